package expr

import (
	"fmt"
	"math/bits"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Bit functions over integral values: bit_count and bit_get.

func init() {
	registerScalar(1, 1, bindBitCount, "bit_count")
	registerScalar(2, 2, bindBitGet, "bit_get", "getbit")
}

// bindBitCount is Spark's BitwiseCount: the set bits of the value as a 64-bit two's
// complement (a negative tinyint counts 64, as Java's Long.bitCount of the widened value).
func bindBitCount(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if !t.IsIntegral() && t.Kind != sqltypes.Boolean {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("INTEGRAL" or "BOOLEAN")`, args[0])
	}
	f := strict(name, args, intType, func(_ *Context, a []any) (any, error) {
		if b, ok := a[0].(bool); ok {
			if b {
				return int32(1), nil
			}
			return int32(0), nil
		}
		return int32(bits.OnesCount64(uint64(toInt64(a[0])))), nil
	})
	f.str = callString(name, args)
	return f, nil
}

// bindBitGet is Spark's BitwiseGet: bit pos (0 is the least significant) as a tinyint; a
// position outside the type's width is INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE.
func bindBitGet(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if !t.IsIntegral() {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"INTEGRAL"`, args[0])
	}
	pos, err := coerceArg(name, args, 1, intType, opts)
	if err != nil {
		return nil, err
	}
	width := map[sqltypes.Kind]int64{sqltypes.Byte: 8, sqltypes.Short: 16, sqltypes.Integer: 32, sqltypes.Long: 64}[t.Kind]
	f := strict(name, []Expr{args[0], pos}, sqltypes.ByteType, func(_ *Context, a []any) (any, error) {
		p := toInt64(a[1])
		if p < 0 || p >= width {
			return nil, sparkerr.Newf(sparkerr.SparkIllegalArgumentException, "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE", "22023",
				"The value of parameter(s) `pos` in `%s` is invalid: expects an integer value in [0, %d), but got %d.", name, width, p).
				WithParams("parameter", "`pos`", "functionName", "`"+name+"`", "upper", fmt.Sprint(width), "invalidValue", fmt.Sprint(p))
		}
		return int8(uint64(toInt64(a[0])) >> uint(p) & 1), nil
	})
	f.str = callString(name, args)
	return f, nil
}
