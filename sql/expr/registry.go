package expr

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The function registry: every scalar and aggregate function by lower-case Spark name.

type scalarBinder struct {
	// minArgs/maxArgs bound the arity (-1 max: variadic; -1 min: the binder checks itself).
	minArgs, maxArgs int
	bind             func(name string, args []Expr, opts Options) (Expr, error)
}

type aggregateBinder struct {
	minArgs, maxArgs int
	bind             func(name string, args []Expr, distinct bool, opts Options) (AggFunc, error)
}

var (
	scalarRegistry    = map[string]scalarBinder{}
	aggregateRegistry = map[string]aggregateBinder{}
)

func registerScalar(minArgs, maxArgs int, bind func(string, []Expr, Options) (Expr, error), names ...string) {
	for _, n := range names {
		scalarRegistry[n] = scalarBinder{minArgs, maxArgs, bind}
	}
}

func registerAggregate(minArgs, maxArgs int, bind func(string, []Expr, bool, Options) (AggFunc, error), names ...string) {
	for _, n := range names {
		aggregateRegistry[n] = aggregateBinder{minArgs, maxArgs, bind}
	}
}

func arityString(lo, hi int) string {
	switch {
	case hi < 0:
		return fmt.Sprintf("> %d", lo-1)
	case lo == hi:
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("[%d, %d]", lo, hi)
}

// strict returns a row-wise function that is NULL when any argument is NULL.
func strict(name string, args []Expr, t sqltypes.DataType, fn func(ctx *Context, a []any) (any, error)) *rowFunc {
	return &rowFunc{name: name, args: args, t: t, null: anyNullable(args), strict: true, fn: fn}
}

// nullableStrict is strict with a result that may be NULL even for non-null arguments.
func nullableStrict(name string, args []Expr, t sqltypes.DataType, fn func(ctx *Context, a []any) (any, error)) *rowFunc {
	f := strict(name, args, t, fn)
	f.null = true
	return f
}

// normalizeValue converts a literal's Go value to the exact Go type the sqltypes conventions
// use for t (e.g. an int literal of long type becomes int64).
func normalizeValue(v any, t sqltypes.DataType) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case sqltypes.Byte:
		return int8(toInt64(v))
	case sqltypes.Short:
		return int16(toInt64(v))
	case sqltypes.Integer:
		return int32(toInt64(v))
	case sqltypes.Long:
		return toInt64(v)
	case sqltypes.Float:
		return float32(toFloat64(v))
	case sqltypes.Double:
		return toFloat64(v)
	case sqltypes.Date:
		switch x := v.(type) {
		case time.Time:
			d, _ := daysFromCivil(x.Year(), int(x.Month()), x.Day())
			return d
		}
		return int32(toInt64(v))
	case sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval:
		if x, ok := v.(time.Time); ok {
			return x.UnixMicro()
		}
		return toInt64(v)
	case sqltypes.YearMonthInterval:
		return int32(toInt64(v))
	case sqltypes.Time:
		return toInt64(v)
	case sqltypes.Decimal:
		switch x := v.(type) {
		case decimal128.Num:
			return x
		case int64, int32, int16, int8, int:
			return bigToNum(rescale(decimal128.FromI64(toInt64(x)).BigInt(), 0, t.Scale))
		case float64, float32:
			if b, ok := decimalFromFloat(toFloat64(x), t.Scale); ok {
				return bigToNum(b)
			}
		case string:
			if b, s, ok := parseDecimalString(x); ok {
				return bigToNum(rescale(b, s, t.Scale))
			}
		}
	case sqltypes.String:
		if b, ok := v.([]byte); ok {
			return string(b)
		}
	case sqltypes.Binary:
		if s, ok := v.(string); ok {
			return []byte(s)
		}
	}
	return v
}
