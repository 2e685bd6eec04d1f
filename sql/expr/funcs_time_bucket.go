package expr

import (
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// time_bucket(bucketSize, ts[, origin]) as Spark 4.2's TimeBucket: the start of the bucket of
// ts, buckets of the constant positive interval bucketSize laid from the constant origin (of
// ts's type; default 1970-01-01 00:00:00, shown in the column name). A day-time bucket shorter
// than a day steps over instants; one of a day or more, and a year-month bucket (origin plus a
// whole number of buckets, the day of month clamped as add_months does), step over the wall
// clock of the session zone (UTC for TIMESTAMP_NTZ), so day buckets start at local midnight.

func init() {
	registerScalar(2, 3, bindTimeBucket, "time_bucket")
}

func bindTimeBucket(name string, args []Expr, opts Options) (Expr, error) {
	size, ts := args[0], args[1]
	tsType := ts.Type()
	switch tsType.Kind {
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
	case sqltypes.Null:
		tsType = sqltypes.TimestampType
	}
	shown := args
	if len(args) == 2 {
		originType := sqltypes.TimestampType
		if tsType.Kind == sqltypes.TimestampNTZ {
			originType = tsType
		}
		shown = []Expr{size, ts, NewLiteral(int64(0), originType)}
	}
	call := callString(name, shown)
	if k := size.Type().Kind; k != sqltypes.DayTimeInterval && k != sqltypes.YearMonthInterval && k != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(call), 0, `("INTERVAL DAY TO SECOND" or "INTERVAL YEAR TO MONTH")`, size)
	}
	if tsType.Kind != sqltypes.Timestamp && tsType.Kind != sqltypes.TimestampNTZ {
		return nil, unexpectedInputType(quoteSQL(call), 1, `"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)"`, ts)
	}
	sizeVal, ok := constantOperand(size)
	if !ok {
		return nil, nonFoldable(call, "bucketSize", `"INTERVAL"`, size)
	}
	if sizeVal != nil && toInt64(sizeVal) <= 0 {
		cur := literalSQL(sizeVal, size.Type())
		return nil, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(call),
			"The `bucketSize` must be between (0, inf) (current value = %s).", cur).
			WithParams("exprName", "`bucketSize`", "valueRange", "(0, inf)", "currentValue", cur)
	}
	cs := []Expr{ts}
	if len(args) == 3 {
		o := args[2]
		if k := o.Type().Kind; k != tsType.Kind && k != sqltypes.Null {
			return nil, unexpectedInputType(quoteSQL(call), 2, `"`+tsType.SQL()+`"`, o)
		}
		if _, ok := constantOperand(o); !ok {
			return nil, nonFoldable(call, "origin", `"`+tsType.SQL()+`"`, o)
		}
		cs = append(cs, o)
	}
	for i, c := range cs {
		var err error
		if cs[i], err = implicitCast(c, tsType, opts); err != nil {
			return nil, err
		}
	}
	if sizeVal == nil {
		return &renamed{Expr: NewLiteral(nil, tsType), name: call}, nil
	}
	ym := size.Type().Kind == sqltypes.YearMonthInterval
	step := toInt64(sizeVal)
	f := strict(name, cs, tsType, func(ctx *Context, a []any) (any, error) {
		loc := ctx.loc()
		if tsType.Kind == sqltypes.TimestampNTZ {
			loc = time.UTC
		}
		origin := ntzToTimestamp(0, loc)
		if len(a) == 2 {
			origin = a[1].(int64)
		}
		t := a[0].(int64)
		if ym {
			return bucketMonths(t, origin, step, tsType, loc), nil
		}
		if step < 86400e6 {
			return origin + floorDiv(t-origin, step)*step, nil
		}
		lt, lo := wallMicros(t, loc), wallMicros(origin, loc)
		return ntzToTimestamp(lo+floorDiv(lt-lo, step)*step, loc), nil
	})
	f.str = call
	return f, nil
}

// wallMicros is the wall clock of instant us in loc, as microseconds of a UTC clock.
func wallMicros(us int64, loc *time.Location) int64 {
	_, off := time.UnixMicro(us).In(loc).Zone()
	return us + int64(off)*1e6
}

// bucketMonths is the last origin + k·step months (k a whole number) at or before t.
func bucketMonths(t, origin, step int64, tsType sqltypes.DataType, loc *time.Location) int64 {
	tt, to := time.UnixMicro(t).In(loc), time.UnixMicro(origin).In(loc)
	diff := int64(tt.Year()*12+int(tt.Month())) - int64(to.Year()*12+int(to.Month()))
	k := floorDiv(diff, step) * step
	at := func(k int64) int64 { return addMonthsValue(origin, tsType, int(k), loc).(int64) }
	for at(k) > t {
		k -= step
	}
	for at(k+step) <= t {
		k += step
	}
	return at(k)
}
