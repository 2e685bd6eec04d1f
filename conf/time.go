package conf

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
)

var (
	timePattern = regexp.MustCompile(`^(-?[0-9]+)([a-z]+)?$`)
	timeUnits   = map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
		"m": time.Minute, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
)

// ParseTime parses a duration as Spark's timeConf does (JavaUtils.timeStringAs): a whole
// number with an optional unit us, ms, s, m or min, h, d (any case); a bare number counts in
// unit.
func ParseTime(value string, unit time.Duration) (time.Duration, error) {
	m := timePattern.FindStringSubmatch(strings.ToLower(strings.TrimSpace(value)))
	fail := func(why string) (time.Duration, error) {
		return 0, sparkerr.Newf(sparkerr.NumberFormatException, "", "",
			"Time must be specified as seconds (s), milliseconds (ms), microseconds (us), minutes (m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us.\n%s", why)
	}
	if m == nil {
		return fail("Failed to parse time string: " + value)
	}
	u := unit
	if m[2] != "" {
		var ok bool
		if u, ok = timeUnits[m[2]]; !ok {
			return fail(fmt.Sprintf("Invalid suffix: \"%s\"", m[2]))
		}
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > int64(1<<63-1)/int64(u) || n < -int64(1<<63-1)/int64(u) {
		return fail("Failed to parse time string: " + value)
	}
	return time.Duration(n) * u, nil
}
