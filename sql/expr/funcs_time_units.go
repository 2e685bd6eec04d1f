package expr

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// time_trunc(unit, time) and time_diff(unit, start, end), as Spark 4.2's TimeTrunc and
// TimeDiff: the unit is HOUR, MINUTE, SECOND, MILLISECOND or MICROSECOND (any case), a NULL
// unit gives NULL and another one fails with INVALID_PARAMETER_VALUE.TIME_UNIT when evaluated.
// A string time argument is cast to TIME(6).

func init() {
	registerScalar(2, 2, bindTimeTrunc, "time_trunc")
	registerScalar(3, 3, bindTimeDiff, "time_diff")
}

var timeUnitNanos = map[string]int64{
	"HOUR": sqltypes.NanosPerHour, "MINUTE": sqltypes.NanosPerMinute, "SECOND": sqltypes.NanosPerSecond,
	"MILLISECOND": sqltypes.NanosPerMilli, "MICROSECOND": sqltypes.NanosPerMicro,
}

// timeUnit is the nanoseconds of a unit name.
func timeUnit(fn, unit string) (int64, error) {
	if n, ok := timeUnitNanos[strings.ToUpper(unit)]; ok {
		return n, nil
	}
	return 0, sparkerr.Newf(sparkerr.SparkIllegalArgumentException, "INVALID_PARAMETER_VALUE.TIME_UNIT", "22023",
		"The value of parameter(s) `unit` in `%s` is invalid: expects one of the units 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', but got ''%s''.", fn, unit).
		WithParams("parameter", "`unit`", "functionName", "`"+fn+"`", "invalidValue", "'"+unit+"'")
}

// timeOperand keeps a TIME argument and casts a string (or NULL) one to TIME(6).
func timeOperand(name string, args []Expr, i int, opts Options) (Expr, error) {
	a := args[i]
	switch a.Type().Kind {
	case sqltypes.Time:
		return a, nil
	case sqltypes.String, sqltypes.Null:
		return implicitCast(a, time6Type, opts)
	}
	return nil, unexpectedInputType(quoteSQL(callString(name, args)), i, `"TIME"`, a)
}

func bindTimeTrunc(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	u, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	x, err := timeOperand(name, args, 1, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, []Expr{u, x}, x.Type(), func(_ *Context, a []any) (any, error) {
		unit, err := timeUnit(name, a[0].(string))
		if err != nil {
			return nil, err
		}
		nanos := a[1].(int64)
		return nanos - nanos%unit, nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindTimeDiff(name string, args []Expr, opts Options) (Expr, error) {
	if err := timeTypeEnabled(opts); err != nil {
		return nil, err
	}
	u, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	start, err := timeOperand(name, args, 1, opts)
	if err != nil {
		return nil, err
	}
	end, err := timeOperand(name, args, 2, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, []Expr{u, start, end}, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
		unit, err := timeUnit(name, a[0].(string))
		if err != nil {
			return nil, err
		}
		return (a[2].(int64) - a[1].(int64)) / unit, nil
	})
	f.text = callText(name, args)
	return f, nil
}
