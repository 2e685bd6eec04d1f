package engine

import (
	"math"
	"math/big"
	"strings"
	"time"

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
	case plan.TriggerUnset:
		return query.Trigger{Kind: query.TriggerDefault}, nil
	case plan.TriggerAvailableNow:
		return query.Trigger{Kind: query.TriggerAvailableNow}, nil
	case plan.TriggerOnce:
		return query.Trigger{Kind: query.TriggerOnce}, nil
	case plan.TriggerProcessingTime, plan.TriggerContinuous:
		d, err := parseTriggerInterval(interval)
		if err != nil {
			return query.Trigger{}, err
		}
		k := query.TriggerProcessingTime
		if kind == plan.TriggerContinuous {
			k = query.TriggerContinuous
		}
		return query.Trigger{Kind: k, Interval: d}, nil
	}
	return query.Trigger{}, sparkerr.Unsupported("trigger kind %d is not supported", kind)
}

// intervalUnits are the units of Spark's interval strings (IntervalUtils.stringToInterval), in
// microseconds; months and years are kept apart because triggers refuse them.
var intervalUnits = map[string]int64{
	"microsecond": 1,
	"millisecond": 1000,
	"second":      1000_000,
	"minute":      60 * 1000_000,
	"hour":        3600 * 1000_000,
	"day":         86400 * 1000_000,
	"week":        7 * 86400 * 1000_000,
}

// parseTriggerInterval parses a trigger interval into a duration (whole milliseconds, as Spark
// keeps intervalMs).
func parseTriggerInterval(s string) (time.Duration, error) {
	input := s
	fields := strings.Fields(strings.ToLower(s))
	if len(fields) == 0 {
		return 0, intervalFormatError("INPUT_IS_EMPTY", input, "Interval string cannot be empty.")
	}
	if fields[0] == "interval" {
		fields = fields[1:]
		if len(fields) == 0 {
			return 0, intervalFormatError("INVALID_PREFIX", input, "Invalid interval prefix interval.").
				WithParams("prefix", "interval")
		}
	}
	micros := new(big.Rat)
	months := false
	for i := 0; i < len(fields); i += 2 {
		num := fields[i]
		v, ok := new(big.Rat).SetString(strings.TrimPrefix(num, "+"))
		if !ok || strings.ContainsAny(num, "eE/") {
			return 0, intervalFormatError("UNRECOGNIZED_NUMBER", input, "Unrecognized number "+num+".").
				WithParams("number", num)
		}
		if i+1 >= len(fields) {
			return 0, intervalFormatError("MISSING_UNIT", input, "Expect a unit name after "+num+" but hit EOL.").
				WithParams("word", num)
		}
		unit := strings.TrimSuffix(fields[i+1], "s")
		if unit == "month" || unit == "year" {
			months = months || v.Sign() != 0
			continue
		}
		per, known := intervalUnits[unit]
		if !known {
			return 0, intervalFormatError("INVALID_UNIT", input, "Invalid unit "+fields[i+1]+".").
				WithParams("unit", fields[i+1])
		}
		if !v.IsInt() && unit != "second" {
			return 0, intervalFormatError("INVALID_VALUE", input, "Invalid value "+num+".").
				WithParams("value", num)
		}
		micros.Add(micros, new(big.Rat).Mul(v, new(big.Rat).SetInt64(per)))
	}
	if months {
		return 0, sparkerr.IllegalArgument("Doesn't support month or year interval: %s", input)
	}
	ms := new(big.Int).Quo(micros.Num(), new(big.Int).Mul(micros.Denom(), big.NewInt(1000)))
	if ms.Sign() < 0 {
		return 0, sparkerr.IllegalArgument("requirement failed: the interval of trigger should not be negative")
	}
	if !ms.IsInt64() || ms.Int64() > math.MaxInt64/int64(time.Millisecond) {
		return 0, sparkerr.New(sparkerr.ArithmeticException, "ARITHMETIC_OVERFLOW", "22003",
			"long overflow. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.")
	}
	return time.Duration(ms.Int64()) * time.Millisecond, nil
}

func intervalFormatError(sub, input, detail string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_INTERVAL_FORMAT."+sub, "22006",
		"Error parsing '%s' to interval. %s", input, detail).WithParams("input", input)
}
