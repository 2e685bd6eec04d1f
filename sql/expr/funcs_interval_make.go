package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// make_dt_interval(days, hours, mins, secs) and make_ym_interval(years, months) build ANSI
// intervals as Spark's MakeDTInterval / MakeYMInterval: missing arguments are 0 (shown in the
// column name, secs as 0.000000), the parts are cast to INT (secs to DECIMAL(18,6)), a NULL part
// gives NULL, and a total past the interval's range is INTERVAL_ARITHMETIC_OVERFLOW.
//
// make_interval(years, months, weeks, days, hours, mins, secs) and try_make_interval build
// Spark's CALENDAR INTERVAL as MakeInterval: the same casts and defaults, months = years*12 +
// months, days = weeks*7 + days, microseconds = secs + hours + mins, each step overflow-checked
// (ARITHMETIC_OVERFLOW; NULL for try_make_interval, whose casts are try_casts, and without ANSI).
// Spark fails when it writes a microsecond part past ±2^63 nanoseconds to Arrow (a "long
// overflow"); Weir's values are Arrow's month-day-nano, so make_interval refuses it when it
// builds the interval (try_make_interval too, as Spark's TryEval does not reach the Arrow write).

func init() {
	registerScalar(0, 4, bindMakeDTInterval, "make_dt_interval")
	registerScalar(0, 2, bindMakeYMInterval, "make_ym_interval")
	registerScalar(0, 7, bindMakeInterval, "make_interval", "try_make_interval")
}

var makeDTSecsType = sqltypes.DecimalType(18, 6)

// intervalParts casts args to types, filling missing trailing arguments with defaults; shown
// are the arguments as the column name shows them.
func intervalParts(name string, args []Expr, types []sqltypes.DataType, defaults []Expr, mode plan.CastMode, opts Options) (cs, shown []Expr, err error) {
	shown = append(append([]Expr(nil), args...), defaults[len(args):]...)
	cs = make([]Expr, len(shown))
	for i, a := range shown {
		at := a.Type()
		if !at.IsNumeric() && at.Kind != sqltypes.String && at.Kind != sqltypes.Null {
			return nil, nil, unexpectedInputType(quoteSQL(callString(name, shown)), i, `"`+types[i].SQL()+`"`, a)
		}
		if at.EqualIgnoreNullable(types[i]) {
			cs[i] = a
			continue
		}
		if cs[i], err = NewCast(a, types[i], mode, opts); err != nil {
			return nil, nil, err
		}
	}
	return cs, shown, nil
}

func intervalOverflow() *sparkerr.Error {
	return sparkerr.New(sparkerr.ArithmeticException, "INTERVAL_ARITHMETIC_OVERFLOW.WITHOUT_SUGGESTION", "22015",
		"Integer overflow while operating with intervals. Try devising appropriate values for the interval parameters.")
}

func bindMakeDTInterval(name string, args []Expr, opts Options) (Expr, error) {
	zero := NewLiteral(int32(0), sqltypes.IntegerType)
	cs, shown, err := intervalParts(name, args,
		[]sqltypes.DataType{sqltypes.IntegerType, sqltypes.IntegerType, sqltypes.IntegerType, makeDTSecsType},
		[]Expr{zero, zero, zero, NewLiteral(decimal128.FromI64(0), makeDTSecsType)}, plan.CastDefault, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, sqltypes.DayTimeIntervalType(0, 3), func(_ *Context, a []any) (any, error) {
		micros := int64(a[3].(decimal128.Num).LowBits())
		for i, unit := range []int64{86_400_000_000, 3_600_000_000, 60_000_000} {
			n := int64(a[i].(int32))
			if n > math.MaxInt64/unit || n < math.MinInt64/unit {
				return nil, intervalOverflow()
			}
			part := n * unit
			sum := micros + part
			if (part > 0 && sum < micros) || (part < 0 && sum > micros) {
				return nil, intervalOverflow()
			}
			micros = sum
		}
		return micros, nil
	})
	f.str = callString(name, shown)
	return f, nil
}

func bindMakeYMInterval(name string, args []Expr, opts Options) (Expr, error) {
	zero := NewLiteral(int32(0), sqltypes.IntegerType)
	cs, shown, err := intervalParts(name, args, []sqltypes.DataType{sqltypes.IntegerType, sqltypes.IntegerType},
		[]Expr{zero, zero}, plan.CastDefault, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, sqltypes.YearMonthIntervalType(0, 1), func(_ *Context, a []any) (any, error) {
		months := int64(a[0].(int32))*12 + int64(a[1].(int32))
		if months > math.MaxInt32 || months < math.MinInt32 {
			return nil, intervalOverflow()
		}
		return int32(months), nil
	})
	f.str = callString(name, shown)
	return f, nil
}

func bindMakeInterval(name string, args []Expr, opts Options) (Expr, error) {
	zero := NewLiteral(int32(0), sqltypes.IntegerType)
	types := []sqltypes.DataType{sqltypes.IntegerType, sqltypes.IntegerType, sqltypes.IntegerType,
		sqltypes.IntegerType, sqltypes.IntegerType, sqltypes.IntegerType, makeDTSecsType}
	defaults := []Expr{zero, zero, zero, zero, zero, zero, NewLiteral(decimal128.FromI64(0), makeDTSecsType)}
	try := name == "try_make_interval"
	mode := plan.CastDefault
	if try {
		mode = plan.CastTry
	}
	cs, shown, err := intervalParts(name, args, types, defaults, mode, opts)
	if err != nil {
		return nil, err
	}
	fail := opts.ANSI && !try
	f := nullableStrict(name, cs, sqltypes.CalendarIntervalType, func(_ *Context, a []any) (any, error) {
		p := make([]int64, 6)
		for i := range p {
			p[i] = int64(a[i].(int32))
		}
		v, ok := makeCalendarInterval(p[0], p[1], p[2], p[3], p[4], p[5], int64(a[6].(decimal128.Num).LowBits()))
		return calendarResult(v, ok, fail)
	})
	f.str = callString(name, shown)
	return f, nil
}

// makeCalendarInterval is Spark's IntervalUtils.makeInterval with Math.*Exact: ok=false on an
// int (months, days) or long (microseconds) overflow.
func makeCalendarInterval(years, months, weeks, days, hours, mins, secsMicros int64) (sqltypes.CalendarIntervalValue, bool) {
	m, okM := int32Exact(years*12 + months)
	d, okD := int32Exact(weeks*7 + days)
	micros, okH := addExact(secsMicros, hours*3_600_000_000)
	micros, okMin := addExact(micros, mins*60_000_000)
	return sqltypes.CalendarIntervalValue{Months: m, Days: d, Micros: micros}, okM && okD && okH && okMin
}

func int32Exact(n int64) (int32, bool) {
	return int32(n), n >= math.MinInt32 && n <= math.MaxInt32
}

func addExact(a, b int64) (int64, bool) {
	return a + b, !overflowed(a, b, a+b, "+", math.MinInt64, math.MaxInt64)
}

// calendarResult is an interval computed with overflow checks (ok=false on an overflow): the
// overflow is ARITHMETIC_OVERFLOW when fail and NULL otherwise; a microsecond part past Arrow's
// int64 nanoseconds is the "long overflow" Spark's Arrow writer fails with.
func calendarResult(v sqltypes.CalendarIntervalValue, ok, fail bool) (any, error) {
	switch {
	case !ok && fail:
		return nil, calendarOverflow()
	case !ok:
		return nil, nil
	case v.Micros > math.MaxInt64/1000 || v.Micros < math.MinInt64/1000:
		return nil, longOverflow()
	}
	return v, nil
}

// calendarOverflow is Spark's ARITHMETIC_OVERFLOW from Math.*Exact ("overflow", no suggestion).
func calendarOverflow() *sparkerr.Error {
	return sparkerr.New(sparkerr.ArithmeticException, "ARITHMETIC_OVERFLOW", "22003",
		`overflow. If necessary set "spark.sql.ansi.enabled" to "false" to bypass this error.`).
		WithParams("message", "overflow", "alternative", "", "config", `"spark.sql.ansi.enabled"`)
}

// longOverflow is the java.lang.ArithmeticException Spark's task fails with (no error class).
func longOverflow() *sparkerr.Error {
	return sparkerr.New(sparkerr.ArithmeticException, "", "", "long overflow")
}
