package conf

import (
	"math/big"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// Interval is a parsed interval string: whole months (years count 12) and the rest in
// microseconds (a day counts 24 hours, a week 7 days).
type Interval struct {
	Months int64
	Micros int64
}

// intervalMicros are the fixed-length units of Spark's interval strings, in microseconds.
var intervalMicros = map[string]int64{
	"microsecond": 1,
	"millisecond": 1000,
	"second":      1000_000,
	"minute":      60 * 1000_000,
	"hour":        3600 * 1000_000,
	"day":         86400 * 1000_000,
	"week":        7 * 86400 * 1000_000,
}

// ParseInterval parses an interval string as Spark's IntervalUtils.stringToInterval does: an
// optional "interval" prefix, then pairs of a signed number and a unit (year, month, week,
// day, hour, minute, second, millisecond, microsecond, each optionally plural; any case), only
// seconds with a fraction (kept to the microsecond). Errors are Spark's
// INVALID_INTERVAL_FORMAT.* (IllegalArgumentException), and ARITHMETIC_OVERFLOW past a long.
func ParseInterval(s string) (Interval, error) {
	input := s
	fields := strings.Fields(strings.ToLower(s))
	if len(fields) == 0 {
		return Interval{}, intervalFormatError("INPUT_IS_EMPTY", input, "Interval string cannot be empty.")
	}
	if fields[0] == "interval" {
		fields = fields[1:]
		if len(fields) == 0 {
			return Interval{}, intervalFormatError("INVALID_PREFIX", input, "Invalid interval prefix interval.").
				WithParams("prefix", "interval")
		}
	}
	micros, months := new(big.Rat), new(big.Int)
	for i := 0; i < len(fields); i += 2 {
		num := fields[i]
		v, ok := new(big.Rat).SetString(strings.TrimPrefix(num, "+"))
		if !ok || strings.ContainsAny(num, "eE/") {
			return Interval{}, intervalFormatError("UNRECOGNIZED_NUMBER", input, "Unrecognized number "+num+".").
				WithParams("number", num)
		}
		if i+1 >= len(fields) {
			return Interval{}, intervalFormatError("MISSING_UNIT", input, "Expect a unit name after "+num+" but hit EOL.").
				WithParams("word", num)
		}
		unit := strings.TrimSuffix(fields[i+1], "s")
		per, fixed := intervalMicros[unit]
		if !fixed && unit != "month" && unit != "year" {
			return Interval{}, intervalFormatError("INVALID_UNIT", input, "Invalid unit "+fields[i+1]+".").
				WithParams("unit", fields[i+1])
		}
		if !v.IsInt() && unit != "second" {
			return Interval{}, intervalFormatError("INVALID_VALUE", input, "Invalid value "+num+".").
				WithParams("value", num)
		}
		switch unit {
		case "month":
			months.Add(months, v.Num())
		case "year":
			months.Add(months, new(big.Int).Mul(v.Num(), big.NewInt(12)))
		default:
			micros.Add(micros, new(big.Rat).Mul(v, new(big.Rat).SetInt64(per)))
		}
	}
	us := new(big.Int).Quo(micros.Num(), micros.Denom())
	if !us.IsInt64() || !months.IsInt64() {
		return Interval{}, sparkerr.New(sparkerr.ArithmeticException, "ARITHMETIC_OVERFLOW", "22003",
			"long overflow. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.")
	}
	return Interval{Months: months.Int64(), Micros: us.Int64()}, nil
}

func intervalFormatError(sub, input, detail string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_INTERVAL_FORMAT."+sub, "22006",
		"Error parsing '%s' to interval. %s", input, detail).WithParams("input", input)
}
