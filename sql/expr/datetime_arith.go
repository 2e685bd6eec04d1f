package expr

import (
	"math"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// bindDatetimeArith handles + and - with dates, timestamps and intervals; ok=false when the
// operands are not date/time ones.
func bindDatetimeArith(op string, l, r Expr, lt, rt sqltypes.DataType, opts Options) (Expr, bool, error) {
	if op != "+" && op != "-" {
		return nil, false, nil
	}
	if f, ok, err := bindCalendarArith(op, l, r, lt, rt, opts); ok || err != nil {
		return f, ok, err
	}
	str := binaryOpText(op, l, r)
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	if lt.Kind == sqltypes.Time || rt.Kind == sqltypes.Time {
		return bindTimeArith(op, l, r, lt, rt)
	}
	switch {
	case lt.Kind == sqltypes.Date && rt.IsIntegral(), op == "+" && rt.Kind == sqltypes.Date && lt.IsIntegral():
		d, n := l, r
		if rt.Kind == sqltypes.Date {
			d, n = r, l
		}
		f := strict("date_add", []Expr{d, n}, sqltypes.DateType, func(_ *Context, a []any) (any, error) {
			return int32(int64(a[0].(int32)) + sign*toInt64(a[1])), nil
		})
		f.vec = dateAddKernel(sign)
		f.text = str
		return f, true, nil
	case op == "-" && lt.Kind == sqltypes.Date && rt.Kind == sqltypes.Date:
		f := strict("date_diff", []Expr{l, r}, sqltypes.DayTimeIntervalType(0, 0), func(_ *Context, a []any) (any, error) {
			return int64(a[0].(int32)-a[1].(int32)) * 86400e6, nil
		})
		f.text = str
		return f, true, nil
	case (lt.Kind == sqltypes.Timestamp || lt.Kind == sqltypes.TimestampNTZ || lt.Kind == sqltypes.Date) && rt.Kind == sqltypes.DayTimeInterval:
		ts := l
		if lt.Kind == sqltypes.Date {
			var err error
			if ts, err = implicitCast(l, sqltypes.TimestampType, opts); err != nil {
				return nil, true, err
			}
		}
		t := ts.Type()
		f := strict("timestamp_add", []Expr{ts, r}, t, func(_ *Context, a []any) (any, error) {
			return a[0].(int64) + sign*a[1].(int64), nil
		})
		f.text = str
		return f, true, nil
	case (lt.Kind == sqltypes.Timestamp || lt.Kind == sqltypes.TimestampNTZ || lt.Kind == sqltypes.Date) && rt.Kind == sqltypes.YearMonthInterval:
		t := lt
		f := strict("add_months", []Expr{l, r}, t, func(ctx *Context, a []any) (any, error) {
			return addMonthsValue(a[0], t, int(sign)*int(a[1].(int32)), ctx.loc()), nil
		})
		f.text = str
		return f, true, nil
	case op == "-" && (lt.Kind == sqltypes.Timestamp || lt.Kind == sqltypes.TimestampNTZ) && lt.Kind == rt.Kind:
		f := strict("timestamp_diff", []Expr{l, r}, sqltypes.DayTimeIntervalType(0, 3), func(_ *Context, a []any) (any, error) {
			return a[0].(int64) - a[1].(int64), nil
		})
		f.text = str
		return f, true, nil
	case lt.Kind == rt.Kind && (lt.Kind == sqltypes.DayTimeInterval || lt.Kind == sqltypes.YearMonthInterval):
		t := lt
		f := strict("interval_add", []Expr{l, r}, t, func(_ *Context, a []any) (any, error) {
			if t.Kind == sqltypes.YearMonthInterval {
				return int32(int64(a[0].(int32)) + sign*int64(a[1].(int32))), nil
			}
			return a[0].(int64) + sign*a[1].(int64), nil
		})
		f.text = str
		return f, true, nil
	}
	return nil, false, nil
}

// AddMonths adds months to a date (int32 days) or timestamp (int64 micros, in loc; UTC for
// timestamp_ntz) as date arithmetic with a year-month interval does (a window's RANGE frame
// over a date or timestamp order key).
func AddMonths(v any, t sqltypes.DataType, months int, loc *time.Location) any {
	return addMonthsValue(v, t, months, loc)
}

// addMonthsValue adds months to a date (days) or timestamp (micros), clamping the day of month
// like Spark's add_months.
func addMonthsValue(v any, t sqltypes.DataType, months int, loc *time.Location) any {
	switch t.Kind {
	case sqltypes.Date:
		d := time.Unix(int64(v.(int32))*86400, 0).UTC()
		y, m, day := addMonthsYMD(d.Year(), int(d.Month()), d.Day(), months)
		r, _ := daysFromCivil(y, m, day)
		return r
	case sqltypes.TimestampNTZ:
		loc = time.UTC
	}
	tm := time.UnixMicro(v.(int64)).In(loc)
	y, m, day := addMonthsYMD(tm.Year(), int(tm.Month()), tm.Day(), months)
	return time.Date(y, time.Month(m), day, tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), loc).UnixMicro()
}

func addMonthsYMD(y, m, d, months int) (int, int, int) {
	total := y*12 + (m - 1) + months
	ny, nm := int(math.Floor(float64(total)/12)), total%12
	if nm < 0 {
		nm += 12
	}
	nm++
	if last := daysInMonth(ny, nm); d > last {
		d = last
	}
	return ny, nm, d
}

func daysInMonth(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
