package conf

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
)

var (
	timePattern = regexp.MustCompile(`^(-?[0-9]+)([a-z]+)?$`)
	// timeSuffixMicros is each JavaUtils time suffix's length in microseconds.
	timeSuffixMicros = map[string]int64{
		"us": 1, "ms": 1e3, "s": 1e6, "m": 60e6, "min": 60e6, "h": 3600e6, "d": 86400e6,
	}
)

// TimeFormatMessage is the first line of Spark's error for a malformed time string.
const TimeFormatMessage = "Time must be specified as seconds (s), milliseconds (ms), microseconds (us), minutes (m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us."

// TimeStringAs parses a time string as Spark's JavaUtils.timeStringAs does: a whole number with
// an optional suffix us, ms, s, m or min, h, d (any case), a bare number counting in unit (a
// whole number of microseconds, at least one). The result counts units; finer suffixes
// truncate toward zero and overflow saturates, as TimeUnit.convert does.
func TimeStringAs(str string, unit time.Duration) (int64, error) {
	unitMicros := max(int64(unit/time.Microsecond), 1)
	v, per, err := parseTimeString(str, unitMicros)
	if err != nil {
		return 0, err
	}
	if per >= unitMicros {
		return saturatingMul(v, per/unitMicros), nil
	}
	return v / (unitMicros / per), nil
}

// ParseTime parses a duration as Spark's timeConf does (TimeStringAs) without truncating it
// to unit: "500us" in milliseconds is 500µs; a bare number counts in unit; a value past what
// a time.Duration holds saturates.
func ParseTime(value string, unit time.Duration) (time.Duration, error) {
	v, per, err := parseTimeString(value, max(int64(unit/time.Microsecond), 1))
	if err != nil {
		return 0, err
	}
	return time.Duration(saturatingMul(saturatingMul(v, per), int64(time.Microsecond))), nil
}

// parseTimeString splits a time string into its number and the microseconds its suffix
// counts (bareMicros without one).
func parseTimeString(str string, bareMicros int64) (v, perMicros int64, err error) {
	fail := func(reason string) error {
		return sparkerr.Newf(sparkerr.NumberFormatException, "", "", "%s\n%s", TimeFormatMessage, reason)
	}
	m := timePattern.FindStringSubmatch(strings.TrimSpace(strings.ToLower(str)))
	if m == nil {
		return 0, 0, fail("Failed to parse time string: " + str)
	}
	v, err = strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, 0, fail(fmt.Sprintf("For input string: %q", m[1]))
	}
	if m[2] == "" {
		return v, bareMicros, nil
	}
	per, ok := timeSuffixMicros[m[2]]
	if !ok {
		return 0, 0, fail(fmt.Sprintf("Invalid suffix: %q", m[2]))
	}
	return v, per, nil
}

// saturatingMul is v*f (f > 0), held to the int64 range.
func saturatingMul(v, f int64) int64 {
	switch {
	case v > math.MaxInt64/f:
		return math.MaxInt64
	case v < math.MinInt64/f:
		return math.MinInt64
	}
	return v * f
}
