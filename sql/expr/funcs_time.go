package expr

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The TIME functions that build and take apart TIME values, as Spark 4.2's MakeTime,
// TimeFromMicros/Millis/Seconds, TimeToMicros/Millis/Seconds, CurrentTime and ToTime
// (time_trunc and time_diff are in funcs_time_units.go). Values are nanoseconds since midnight
// (sqltypes' TIME convention); every result is TIME(6) but current_time(p) and time_trunc,
// which keep their precision. A value outside the day is DATETIME_FIELD_OUT_OF_BOUNDS.

func init() {
	registerScalar(3, 3, bindMakeTime, "make_time")
	registerScalar(1, 1, bindTimeFromEpoch, "time_from_micros", "time_from_millis")
	registerScalar(1, 1, bindTimeFromSeconds, "time_from_seconds")
	registerScalar(1, 1, bindTimeToEpoch, "time_to_micros", "time_to_millis", "time_to_seconds")
	registerScalar(0, 1, bindCurrentTime, "current_time")
	registerScalar(1, 2, bindToTime, "to_time", "try_to_time")
}

var (
	time6Type          = sqltypes.TimeType(sqltypes.MaxTimePrecision)
	makeTimeSecsType   = sqltypes.DecimalType(16, 6)
	timeToSecondsType  = sqltypes.DecimalType(14, 6)
	defaultTimePattern = "HH:mm:ss.SSSSSS"
)

// UnsupportedTimeType is Spark's refusal of TIME values and functions while
// spark.sql.timeType.enabled is off (Options.TimeType).
func UnsupportedTimeType() *sparkerr.Error {
	return sparkerr.Analysis("UNSUPPORTED_TIME_TYPE", "0A000", "The data type TIME is not supported.")
}

// timeTypeEnabled fails with UNSUPPORTED_TIME_TYPE unless the session enables TIME.
func timeTypeEnabled(opts Options) error {
	if !opts.TimeType {
		return UnsupportedTimeType()
	}
	return nil
}

// timeOutOfBounds is Spark's DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION with rangeMessage msg.
func timeOutOfBounds(msg string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.DateTimeException, "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION", "22023",
		"%s. ", msg).WithParams("rangeMessage", msg)
}

// notTimeOfDay is the error for a count of nanoseconds (shown as Spark computes it) outside the
// day.
func notTimeOfDay(shown string) error {
	return timeOutOfBounds("Invalid TIME value: must be between 00:00:00 and 23:59:59.999999999, but got " +
		shown + " nanoseconds")
}

// timeConversionOverflow is Spark's error for a count whose nanoseconds pass a long.
var timeConversionOverflow = timeOutOfBounds("Overflow in TIME conversion")

// unitsToTime is n units of nanoseconds as a TIME value, or notTimeOfDay when outside the day.
func unitsToTime(n, unit int64) (any, error) {
	if n > math.MaxInt64/unit || n < math.MinInt64/unit {
		return nil, timeConversionOverflow
	}
	if n < 0 || n >= sqltypes.NanosPerDay/unit {
		return nil, notTimeOfDay(fmt.Sprint(n * unit))
	}
	return n * unit, nil
}

// requireTime requires a TIME argument (Spark's time functions do not cast strings to TIME here).
func requireTime(name string, args []Expr, i int) error {
	if k := args[i].Type().Kind; k != sqltypes.Time && k != sqltypes.Null {
		return unexpectedInputType(quoteSQL(callString(name, args)), i, `"TIME"`, args[i])
	}
	return nil
}

// bindMakeTime is make_time(hour, minute, second): hour and minute cast to INT, second to
// DECIMAL(16,6) (numbers and strings only, as make_dt_interval's parts), each checked as
// java.time's LocalTime.of does.
func bindMakeTime(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	cs, _, err := intervalParts(name, args, []sqltypes.DataType{sqltypes.IntegerType, sqltypes.IntegerType, makeTimeSecsType},
		make([]Expr, 3), plan.CastDefault, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, cs, time6Type, func(_ *Context, a []any) (any, error) {
		micros := a[2].(decimal128.Num).BigInt().Int64()
		secs, frac := micros/1_000_000, micros%1_000_000
		for _, c := range []struct {
			name   string
			v, max int64
		}{{"HourOfDay", int64(a[0].(int32)), 23}, {"MinuteOfHour", int64(a[1].(int32)), 59}, {"SecondOfMinute", secs, 59}} {
			if c.v < 0 || c.v > c.max {
				return nil, timeOutOfBounds(fmt.Sprintf("Invalid value for %s (valid values 0 - %d): %d", c.name, c.max, c.v))
			}
		}
		if frac < 0 {
			return nil, timeOutOfBounds(fmt.Sprintf("Invalid value for NanoOfSecond (valid values 0 - 999999999): %d", frac*1000))
		}
		return int64(a[0].(int32))*sqltypes.NanosPerHour + int64(a[1].(int32))*sqltypes.NanosPerMinute +
			micros*sqltypes.NanosPerMicro, nil
	})
	f.str = callString(name, args)
	return f, nil
}

// bindTimeFromEpoch is time_from_micros / time_from_millis over an integral count since
// midnight.
func bindTimeFromEpoch(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	a := args[0]
	if !a.Type().IsIntegral() && a.Type().Kind != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"INTEGRAL"`, a)
	}
	unit := sqltypes.NanosPerMicro
	if name == "time_from_millis" {
		unit = sqltypes.NanosPerMilli
	}
	x, err := implicitCast(a, sqltypes.LongType, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, []Expr{x}, time6Type, func(_ *Context, v []any) (any, error) {
		return unitsToTime(v[0].(int64), unit)
	})
	f.str = callString(name, args)
	return f, nil
}

// bindTimeFromSeconds is time_from_seconds over any numeric: the fraction is kept to the
// microsecond (truncated); NaN and infinities are out of bounds.
func bindTimeFromSeconds(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	a := args[0]
	at := a.Type()
	if !at.IsNumeric() && at.Kind != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"NUMERIC"`, a)
	}
	f := nullableStrict(name, []Expr{a}, time6Type, func(_ *Context, v []any) (any, error) {
		switch {
		case at.IsIntegral():
			return unitsToTime(toInt64(v[0]), sqltypes.NanosPerSecond)
		case at.Kind == sqltypes.Decimal:
			b := v[0].(decimal128.Num).BigInt()
			if at.Scale > 6 {
				b.Quo(b, pow10(at.Scale-6))
			} else {
				b = rescale(b, at.Scale, 6)
			}
			if !b.IsInt64() {
				return nil, timeConversionOverflow
			}
			return unitsToTime(b.Int64(), sqltypes.NanosPerMicro)
		}
		d := toFloat64(v[0])
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return nil, timeOutOfBounds("Cannot convert NaN or Infinite value to TIME")
		}
		if d < 0 || d >= 86400 {
			// Java's (long) cast saturates.
			return nil, notTimeOfDay(fmt.Sprint(saturate(d*1e9, math.MinInt64, math.MaxInt64)))
		}
		return int64(d*1e6) * sqltypes.NanosPerMicro, nil
	})
	f.str = callString(name, args)
	return f, nil
}

// bindTimeToEpoch is time_to_micros / time_to_millis (BIGINT) and time_to_seconds
// (DECIMAL(14,6)).
func bindTimeToEpoch(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	if err := requireTime(name, args, 0); err != nil {
		return nil, err
	}
	t, unit := sqltypes.LongType, sqltypes.NanosPerMicro
	switch name {
	case "time_to_millis":
		unit = sqltypes.NanosPerMilli
	case "time_to_seconds":
		t = timeToSecondsType
	}
	f := nullableStrict(name, args, t, func(_ *Context, v []any) (any, error) {
		nanos := v[0].(int64)
		if t.Kind == sqltypes.Decimal {
			return bigToNum(big.NewInt(nanos / sqltypes.NanosPerMicro)), nil
		}
		return nanos / unit, nil
	})
	f.str = callString(name, args)
	return f, nil
}

// bindCurrentTime is current_time([precision]): the query's current instant's time of day in
// the session zone, truncated to precision (a constant 0..6, default 6).
func bindCurrentTime(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	p := int64(sqltypes.MaxTimePrecision)
	shown := "6"
	if len(args) == 1 {
		a := args[0]
		call := callString(name, args)
		if !implicitlyCastable(a.Type(), sqltypes.IntegerType) {
			return nil, unexpectedInputType(quoteSQL(call), 0, `"INT"`, a)
		}
		v, ok := constantOperand(a)
		if !ok {
			return nil, nonFoldable(call, "precision", `"INT"`, a)
		}
		if v != nil {
			iv, err := castValue(v, a.Type(), sqltypes.IntegerType, false, time.UTC)
			if err != nil || iv == nil {
				return nil, unexpectedInputType(quoteSQL(call), 0, `"INT"`, a)
			}
			v = iv
		}
		if v == nil || toInt64(v) < 0 || toInt64(v) > sqltypes.MaxTimePrecision {
			cur := "NULL"
			if v != nil {
				cur = fmt.Sprint(v)
			}
			return nil, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(call),
				"The `precision` must be between [0, 6] (current value = %s).", cur).
				WithParams("exprName", "`precision`", "valueRange", "[0, 6]", "currentValue", cur)
		}
		p = toInt64(v)
		shown = a.String()
	}
	t := sqltypes.TimeType(int32(p))
	return &rowFunc{name: name, t: t, str: name + "(" + shown + ")", fn: func(ctx *Context, _ []any) (any, error) {
		wall := time.UnixMicro(ctx.CurrentMicros()).In(ctx.loc())
		nanos := int64(wall.Hour())*sqltypes.NanosPerHour + int64(wall.Minute())*sqltypes.NanosPerMinute +
			int64(wall.Second())*sqltypes.NanosPerSecond + int64(wall.Nanosecond())
		return sqltypes.TruncateTime(nanos, int32(p)), nil
	}}, nil
}

// timeOfDayField is hour, minute or second of a TIME value.
func timeOfDayField(name string, args []Expr) Expr {
	unit, mod := sqltypes.NanosPerHour, int64(24)
	switch name {
	case "minute":
		unit, mod = sqltypes.NanosPerMinute, 60
	case "second":
		unit, mod = sqltypes.NanosPerSecond, 60
	}
	f := strict(name, args, intType, func(_ *Context, a []any) (any, error) {
		return int32(a[0].(int64) / unit % mod), nil
	})
	f.text = callText(name, args)
	return f
}

// cannotParseTime is Spark's CANNOT_PARSE_TIME.
func cannotParseTime(s, pattern string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.DateTimeException, "CANNOT_PARSE_TIME", "22010",
		"The input string '%s' cannot be parsed to a TIME value because it does not match to the datetime format '%s'.", s, pattern).
		WithParams("input", "'"+s+"'", "format", "'"+pattern+"'")
}

// bindToTime is to_time(str[, format]) and try_to_time: without a format the string-to-TIME
// cast's syntax, with one a datetime pattern whose time-of-day fields make the value. A string
// that does not parse is CANNOT_PARSE_TIME (NULL for try_to_time).
func bindToTime(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	try := name == "try_to_time"
	for i, a := range args {
		if k := a.Type().Kind; k != sqltypes.String && k != sqltypes.Null {
			inner := callString("to_time", args)
			return nil, unexpectedInputType(quoteSQL(inner), i, `"STRING"`, a)
		}
	}
	out := time6Type
	if len(args) == 2 && args[1].Type().Kind == sqltypes.Null && !try {
		// Spark's ToTime keeps the NULL format's type as its result's.
		out = strType
	}
	f := nullableStrict(name, args, out, func(_ *Context, a []any) (any, error) {
		s := a[0].(string)
		if len(a) == 1 {
			if nanos, ok := sqltypes.ParseTime(s); ok {
				return nanos, nil
			}
			if try {
				return nil, nil
			}
			return nil, cannotParseTime(s, defaultTimePattern)
		}
		t, ok := parseJava(s, a[1].(string), time.UTC)
		if !ok {
			if try {
				return nil, nil
			}
			return nil, cannotParseTime(s, a[1].(string))
		}
		return int64(t.Hour())*sqltypes.NanosPerHour + int64(t.Minute())*sqltypes.NanosPerMinute +
			int64(t.Second())*sqltypes.NanosPerSecond + int64(t.Nanosecond()/1000)*sqltypes.NanosPerMicro, nil
	})
	f.str = callString(name, args)
	if try {
		f.str = name + "(" + callString("to_time", args) + ")"
	}
	return f, nil
}
