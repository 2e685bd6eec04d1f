package query

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
)

// PollingDelayConf is Spark's spark.sql.streaming.pollingDelay: how long the default trigger
// waits before asking the sources again when they had no new data (default 10ms, as Spark).
const PollingDelayConf = "spark.sql.streaming.pollingDelay"

var pollingPattern = regexp.MustCompile(`^([0-9]+)(us|ms|s|m|min|h)?$`)

// pollingDelay reads PollingDelayConf: a Spark time string whose bare number means
// milliseconds ("1ms", "500us", "10").
func pollingDelay(conf func(string) (string, bool)) (time.Duration, bool, error) {
	if conf == nil {
		return 0, false, nil
	}
	v, ok := conf(PollingDelayConf)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, false, nil
	}
	m := pollingPattern.FindStringSubmatch(strings.ToLower(strings.TrimSpace(v)))
	if m == nil {
		return 0, false, sparkerr.IllegalArgument("Invalid value '%s' for %s: a time such as 10ms, 500us or 1s is expected", v, PollingDelayConf)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, false, sparkerr.IllegalArgument("Invalid value '%s' for %s", v, PollingDelayConf)
	}
	unit := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "m": time.Minute, "min": time.Minute, "h": time.Hour}[m[2]]
	return time.Duration(n) * unit, true, nil
}
