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
// (make_interval and try_make_interval build Spark's CALENDAR INTERVAL, a type Weir does not
// have.)

func init() {
	registerScalar(0, 4, bindMakeDTInterval, "make_dt_interval")
	registerScalar(0, 2, bindMakeYMInterval, "make_ym_interval")
}

var makeDTSecsType = sqltypes.DecimalType(18, 6)

// intervalParts casts args to types, filling missing trailing arguments with defaults; shown
// are the arguments as the column name shows them.
func intervalParts(name string, args []Expr, types []sqltypes.DataType, defaults []Expr, opts Options) (cs, shown []Expr, err error) {
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
		if cs[i], err = NewCast(a, types[i], plan.CastDefault, opts); err != nil {
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
		[]Expr{zero, zero, zero, NewLiteral(decimal128.FromI64(0), makeDTSecsType)}, opts)
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
		[]Expr{zero, zero}, opts)
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
