package conf

import (
	"math"
	"testing"
	"time"

	"github.com/weirhq/weir/sparkerr"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"512": 512, "1b": 1, "64k": 64 << 10, "64KB": 64 << 10, " 2m ": 2 << 20, "1g": 1 << 30,
		"3t": 3 << 40, "1p": 1 << 50, "-1k": -1 << 10, "8191p": 8191 << 50,
	} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "1.5m", "1 m", "1x", "8192p", "99999999999999999999"} {
		_, err := ParseBytes(in)
		if se, ok := sparkerr.As(err); !ok || se.JavaClass != sparkerr.NumberFormatException {
			t.Errorf("ParseBytes(%q): got %v, want a NumberFormatException", in, err)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		unit time.Duration
		want time.Duration
	}{
		{"10", time.Millisecond, 10 * time.Millisecond},
		{"10", time.Second, 10 * time.Second},
		{"500us", time.Millisecond, 500 * time.Microsecond},
		{"1MS", time.Second, time.Millisecond},
		{"2s", time.Millisecond, 2 * time.Second},
		{"3m", time.Millisecond, 3 * time.Minute},
		{"3min", time.Millisecond, 3 * time.Minute},
		{"1h", time.Millisecond, time.Hour},
		{"1d", time.Millisecond, 24 * time.Hour},
		{" -5ms ", time.Millisecond, -5 * time.Millisecond},
		{"99999999999d", time.Millisecond, math.MaxInt64},
		{"-99999999999d", time.Millisecond, math.MinInt64},
	} {
		if got, err := ParseTime(c.in, c.unit); err != nil || got != c.want {
			t.Errorf("ParseTime(%q, %v) = %v, %v; want %v", c.in, c.unit, got, err, c.want)
		}
	}
	for _, in := range []string{"", "fast", "1.5s", "10 ms", "5w", "99999999999999999999"} {
		_, err := ParseTime(in, time.Millisecond)
		if se, ok := sparkerr.As(err); !ok || se.JavaClass != sparkerr.NumberFormatException {
			t.Errorf("ParseTime(%q): got %v, want a NumberFormatException", in, err)
		}
	}
}

func TestTimeStringAs(t *testing.T) {
	for _, c := range []struct {
		in   string
		unit time.Duration
		want int64
	}{
		{"5", time.Second, 5},
		{"1500ms", time.Second, 1},
		{"-1500ms", time.Second, -1},
		{"2min", time.Second, 120},
		{"15m", time.Millisecond, 900000},
		{"1us", time.Millisecond, 0},
		{"9223372036854775807d", time.Second, math.MaxInt64},
	} {
		if got, err := TimeStringAs(c.in, c.unit); err != nil || got != c.want {
			t.Errorf("TimeStringAs(%q, %v) = %d, %v; want %d", c.in, c.unit, got, err, c.want)
		}
	}
	_, err := TimeStringAs("5x", time.Second)
	if err == nil || err.Error() != TimeFormatMessage+"\nInvalid suffix: \"x\"" {
		t.Errorf("TimeStringAs(5x): %v", err)
	}
}

func TestParseInterval(t *testing.T) {
	for in, want := range map[string]Interval{
		"10 seconds":                 {Micros: 10e6},
		"1 second":                   {Micros: 1e6},
		"interval 5 seconds":         {Micros: 5e6},
		"INTERVAL 1 hour 30 minutes": {Micros: 5400e6},
		"500 milliseconds":           {Micros: 500e3},
		"1.5 seconds":                {Micros: 1.5e6},
		"0.0000015 seconds":          {Micros: 1},
		"2 days":                     {Micros: 2 * 86400e6},
		"1 week":                     {Micros: 7 * 86400e6},
		"1500 microseconds":          {Micros: 1500},
		"1 minute -30 seconds":       {Micros: 30e6},
		"+3 seconds":                 {Micros: 3e6},
		"  3   seconds ":             {Micros: 3e6},
		"1 year 2 months 1 day":      {Months: 14, Micros: 86400e6},
		"-1 month":                   {Months: -1},
	} {
		if got, err := ParseInterval(in); err != nil || got != want {
			t.Errorf("ParseInterval(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, class := range map[string]string{
		"":                        "INVALID_INTERVAL_FORMAT.INPUT_IS_EMPTY",
		"interval":                "INVALID_INTERVAL_FORMAT.INVALID_PREFIX",
		"ten seconds":             "INVALID_INTERVAL_FORMAT.UNRECOGNIZED_NUMBER",
		"1e3 seconds":             "INVALID_INTERVAL_FORMAT.UNRECOGNIZED_NUMBER",
		"10":                      "INVALID_INTERVAL_FORMAT.MISSING_UNIT",
		"1.5 minutes":             "INVALID_INTERVAL_FORMAT.INVALID_VALUE",
		"10 ms":                   "INVALID_INTERVAL_FORMAT.INVALID_UNIT",
		"10 min":                  "INVALID_INTERVAL_FORMAT.INVALID_UNIT",
		"99999999999999999 weeks": "ARITHMETIC_OVERFLOW",
	} {
		_, err := ParseInterval(in)
		se, ok := sparkerr.As(err)
		if !ok || se.Class != class {
			t.Errorf("ParseInterval(%q): got %v, want %s", in, err, class)
		}
	}
}
