package query

import (
	"strings"
	"time"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sparkerr"
)

// PollingDelayConf is Spark's spark.sql.streaming.pollingDelay: how long the default trigger
// waits before asking the sources again when they had no new data (default 10ms, as Spark).
const PollingDelayConf = "spark.sql.streaming.pollingDelay"

// pollingDelay reads PollingDelayConf: a Spark time string (conf.ParseTime) whose bare number
// means milliseconds ("1ms", "500us", "10").
func pollingDelay(get func(string) (string, bool)) (time.Duration, bool, error) {
	if get == nil {
		return 0, false, nil
	}
	v, ok := get(PollingDelayConf)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, false, nil
	}
	d, err := conf.ParseTime(v, time.Millisecond)
	if err != nil || d < 0 {
		return 0, false, sparkerr.IllegalArgument("Invalid value '%s' for %s: a time such as 10ms, 500us or 1s is expected", v, PollingDelayConf)
	}
	return d, true, nil
}
