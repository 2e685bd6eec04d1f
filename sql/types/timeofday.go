package sqltypes

import (
	"strconv"
	"strings"
)

// Nanosecond counts of the TIME type's units (a TIME value is nanoseconds since midnight).
const (
	NanosPerMicro  int64 = 1_000
	NanosPerMilli  int64 = 1_000_000
	NanosPerSecond int64 = 1_000_000_000
	NanosPerMinute       = 60 * NanosPerSecond
	NanosPerHour         = 60 * NanosPerMinute
	NanosPerDay          = 24 * NanosPerHour
)

// ParseTime parses a time of day as Spark's string-to-TIME cast (SparkDateTimeUtils.stringToTime):
// a first character 'T', or else leading whitespace, and trailing whitespace are ignored; the
// form is h[h]:m[m][:s[s][.f…]], hours 0..23, minutes and seconds 0..59, the fraction's digits
// past the ninth ignored and the value truncated to microseconds. ok is false for anything else.
func ParseTime(s string) (nanos int64, ok bool) {
	space := func(r rune) bool { return r <= ' ' }
	if rest, found := strings.CutPrefix(s, "T"); found {
		s = rest
	} else {
		s = strings.TrimLeftFunc(s, space)
	}
	s = strings.TrimRightFunc(s, space)
	i := 0
	field := func(max int) (int64, bool) {
		j := i
		for i < len(s) && i-j < 2 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
		v, _ := strconv.Atoi(s[j:i])
		return int64(v), v <= max
	}
	h, ok1 := field(23)
	if !ok1 || i >= len(s) || s[i] != ':' {
		return 0, false
	}
	i++
	m, ok2 := field(59)
	if !ok2 {
		return 0, false
	}
	var sec, frac int64
	if i < len(s) {
		if s[i] != ':' {
			return 0, false
		}
		i++
		var ok3 bool
		if sec, ok3 = field(59); !ok3 {
			return 0, false
		}
		if i < len(s) && s[i] == '.' {
			i++
			scale := NanosPerSecond
			for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
				if scale > 1 {
					scale /= 10
					frac += int64(s[i]-'0') * scale
				}
			}
		}
	}
	if i != len(s) {
		return 0, false
	}
	frac -= frac % NanosPerMicro
	return h*NanosPerHour + m*NanosPerMinute + sec*NanosPerSecond + frac, true
}

// FormatTime renders a TIME value as Spark's TIME-to-string cast: HH:mm:ss and, when the value
// has a fraction of a second, '.' and its digits without trailing zeros.
func FormatTime(nanos int64) string {
	b := make([]byte, 0, 18)
	two := func(v int64) { b = append(b, byte('0'+v/10), byte('0'+v%10)) }
	two(nanos / NanosPerHour)
	b = append(b, ':')
	two(nanos / NanosPerMinute % 60)
	b = append(b, ':')
	two(nanos / NanosPerSecond % 60)
	if f := nanos % NanosPerSecond; f != 0 {
		digits := strconv.FormatInt(NanosPerSecond+f, 10)[1:]
		b = append(b, '.')
		b = append(b, strings.TrimRight(digits, "0")...)
	}
	return string(b)
}

// TruncateTime drops the digits of a TIME value past precision p (0..9) fractional digits.
func TruncateTime(nanos int64, p int32) int64 {
	unit := NanosPerSecond
	for ; p > 0 && unit > 1; p-- {
		unit /= 10
	}
	return nanos - nanos%unit
}
