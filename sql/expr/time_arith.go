package expr

import (
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// bindTimeArith is + and - over TIME, as Spark 4.2's SubtractTimes and TimeAddInterval: TIME -
// TIME is an INTERVAL HOUR TO SECOND, TIME ± a day-time interval (either side of +) is a TIME of
// the TIME operand's precision, and a result outside the day is DATETIME_OVERFLOW. Both render
// without parentheses, as Spark names them. Other operand types are not TIME arithmetic
// (ok=false: the caller's type checks report them).
func bindTimeArith(op string, l, r Expr, lt, rt sqltypes.DataType) (Expr, bool, error) {
	str := sqlOf(l, " "+op+" ", r)
	switch {
	case op == "-" && lt.Kind == sqltypes.Time && rt.Kind == sqltypes.Time:
		f := strict("subtract_times", []Expr{l, r}, sqltypes.DayTimeIntervalType(1, 3), func(_ *Context, a []any) (any, error) {
			return (a[0].(int64) - a[1].(int64)) / sqltypes.NanosPerMicro, nil
		})
		f.text = str
		return f, true, nil
	case lt.Kind == sqltypes.Time && rt.Kind == sqltypes.DayTimeInterval,
		op == "+" && lt.Kind == sqltypes.DayTimeInterval && rt.Kind == sqltypes.Time:
		t, iv := l, r
		if rt.Kind == sqltypes.Time {
			t, iv = r, l
			str = sqlOf(r, " + ", l)
		}
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		ivType := iv.Type()
		f := strict("time_add_interval", []Expr{t, iv}, t.Type(), func(_ *Context, a []any) (any, error) {
			micros := sign * a[1].(int64)
			nanos := a[0].(int64) + micros*sqltypes.NanosPerMicro
			if micros > sqltypes.NanosPerDay/sqltypes.NanosPerMicro || micros < -sqltypes.NanosPerDay/sqltypes.NanosPerMicro ||
				nanos < 0 || nanos >= sqltypes.NanosPerDay {
				return nil, timeOverflow(literalSQL(micros, ivType), literalSQL(a[0], t.Type()))
			}
			return nanos, nil
		})
		f.text = str
		return f, true, nil
	}
	return nil, false, nil
}

// timeOverflow is Spark's DATETIME_OVERFLOW for adding an interval to a TIME.
func timeOverflow(interval, value string) *sparkerr.Error {
	op := "add " + interval + " to the time value " + value
	return sparkerr.Newf(sparkerr.ArithmeticException, "DATETIME_OVERFLOW", "22008",
		"Datetime operation overflow: %s.", op).WithParams("operation", op)
}
