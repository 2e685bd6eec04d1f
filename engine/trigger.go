package engine

import (
	"math"
	"time"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// queryTrigger turns the client's trigger into the query's: processing-time and continuous
// intervals are Spark interval strings ("10 seconds", "interval 1 minute 30 seconds",
// "500 milliseconds"), refused like Spark's Trigger.ProcessingTime / Trigger.Continuous when
// malformed, negative or in months.
func queryTrigger(kind plan.TriggerKind, interval string) (query.Trigger, error) {
	switch kind {
	case plan.TriggerUnset, plan.TriggerAvailableNow, plan.TriggerOnce:
		return query.Trigger{Kind: kind}, nil
	case plan.TriggerProcessingTime, plan.TriggerContinuous:
		d, err := parseTriggerInterval(interval)
		if err != nil {
			return query.Trigger{}, err
		}
		return query.Trigger{Kind: kind, Interval: d}, nil
	}
	return query.Trigger{}, sparkerr.Unsupported("trigger kind %d is not supported", kind)
}

// parseTriggerInterval parses a trigger interval (conf.ParseInterval) into a duration of whole
// milliseconds, as Spark keeps intervalMs; months, years and negative intervals are refused as
// Trigger.ProcessingTime refuses them.
func parseTriggerInterval(s string) (time.Duration, error) {
	iv, err := conf.ParseInterval(s)
	if err != nil {
		return 0, err
	}
	if iv.Months != 0 {
		return 0, sparkerr.IllegalArgument("Doesn't support month or year interval: %s", s)
	}
	if iv.Micros < 0 {
		return 0, sparkerr.IllegalArgument("requirement failed: the interval of trigger should not be negative")
	}
	ms := iv.Micros / 1000
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return 0, sparkerr.New(sparkerr.ArithmeticException, "ARITHMETIC_OVERFLOW", "22003",
			"long overflow. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.")
	}
	return time.Duration(ms) * time.Millisecond, nil
}
