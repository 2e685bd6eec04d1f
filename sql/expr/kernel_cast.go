package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Typed cast kernels: between TINYINT..BIGINT, FLOAT and DOUBLE in every direction (narrowing
// integers wrap, or fail under ANSI with CAST_OVERFLOW; fractional to integral truncates and
// saturates like Java, or fails under ANSI), DECIMAL(p <= 18) to FLOAT/DOUBLE (exact division
// of a 53-bit unscaled value by an exact power of ten is correctly rounded, as the string
// conversion of the row path is; other values take that conversion), and DECIMAL(p <= 18) to a
// wider-scaled decimal when the rescaled value stays within 18 digits, TIMESTAMP[_NTZ] to DATE
// and back (kernel_timestamp.go), FLOAT/DOUBLE to DECIMAL (kernel_cast_decimal.go), and STRING
// to integers, FLOAT, DOUBLE and DATE (kernel_cast_string.go). try_cast and everything else take the row path (castValue).

// castKernel returns ok=false when the cast is not one of the kernels'.
func (c *castExpr) castKernel(ctx *Context, in arrow.Array, from sqltypes.DataType) (arrow.Array, bool, error) {
	if c.try {
		return nil, false, nil
	}
	to := c.to
	if from.Kind == sqltypes.Decimal {
		switch {
		case from.Precision > 18:
			return nil, false, nil
		case to.Kind == sqltypes.Double:
			return decimalToFloats[float64](ctx, in, from), true, nil
		case to.Kind == sqltypes.Float:
			return decimalToFloats[float32](ctx, in, from), true, nil
		case to.Kind == sqltypes.Decimal:
			out := rescaleDecimals(ctx, in, from, to)
			return out, out != nil, nil
		}
		return nil, false, nil
	}
	switch from.Kind {
	case sqltypes.String:
		if !binaryCollation(from) {
			return nil, false, nil
		}
		return castFromStringKernel(ctx, c, in)
	case sqltypes.Date:
		if to.Kind != sqltypes.Timestamp && to.Kind != sqltypes.TimestampNTZ {
			return nil, false, nil
		}
		out, ok := dateToTimestampKernel(ctx, in, to)
		return out, ok, nil
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		if to.Kind != sqltypes.Date {
			return nil, false, nil
		}
		out, ok := timestampToDateKernel(ctx, in, from.Kind == sqltypes.TimestampNTZ)
		return out, ok, nil
	case sqltypes.Byte:
		return castNumFrom[int8](ctx, c, in, from)
	case sqltypes.Short:
		return castNumFrom[int16](ctx, c, in, from)
	case sqltypes.Integer:
		return castNumFrom[int32](ctx, c, in, from)
	case sqltypes.Long:
		return castNumFrom[int64](ctx, c, in, from)
	case sqltypes.Float:
		if to.Kind == sqltypes.Decimal {
			return floatToDecimalKernel[float32](ctx, c, in, from)
		}
		return castNumFrom[float32](ctx, c, in, from)
	case sqltypes.Double:
		if to.Kind == sqltypes.Decimal {
			return floatToDecimalKernel[float64](ctx, c, in, from)
		}
		return castNumFrom[float64](ctx, c, in, from)
	}
	return nil, false, nil
}

func castNumFrom[S kernNum](ctx *Context, c *castExpr, in arrow.Array, from sqltypes.DataType) (arrow.Array, bool, error) {
	xs, ok := numSlice[S](in)
	if !ok {
		return nil, false, nil
	}
	switch c.to.Kind {
	case sqltypes.String:
		switch xs := any(xs).(type) {
		case []int8:
			return intsToStrings(ctx, in, xs), true, nil
		case []int16:
			return intsToStrings(ctx, in, xs), true, nil
		case []int32:
			return intsToStrings(ctx, in, xs), true, nil
		case []int64:
			return intsToStrings(ctx, in, xs), true, nil
		}
		return nil, false, nil // FLOAT/DOUBLE to STRING: the row path
	case sqltypes.Byte:
		return castNum[S, int8](ctx, c, in, xs, from)
	case sqltypes.Short:
		return castNum[S, int16](ctx, c, in, xs, from)
	case sqltypes.Integer:
		return castNum[S, int32](ctx, c, in, xs, from)
	case sqltypes.Long:
		return castNum[S, int64](ctx, c, in, xs, from)
	case sqltypes.Float:
		return castNum[S, float32](ctx, c, in, xs, from)
	case sqltypes.Double:
		return castNum[S, float64](ctx, c, in, xs, from)
	}
	return nil, false, nil
}

func isFloatKind[T kernNum]() bool {
	var zero T
	switch any(zero).(type) {
	case float32, float64:
		return true
	}
	return false
}

// castNum converts xs from S to T; bad rows (overflow under ANSI) fail with the first valid one.
func castNum[S, T kernNum](ctx *Context, c *castExpr, in arrow.Array, xs []S, from sqltypes.DataType) (arrow.Array, bool, error) {
	mem := ctx.mem()
	n := len(xs)
	buf, out := kernValues[T](mem, n)
	bad := false
	switch {
	case isFloatKind[T]():
		for i, x := range xs {
			out[i] = T(float64(x))
		}
	case !isFloatKind[S]():
		var diff int64
		for i, x := range xs {
			z := T(x)
			out[i] = z
			diff |= int64(z) ^ int64(x)
		}
		bad = diff != 0 && c.ansi
	default:
		lo, hi := integralBounds(c.to.Kind)
		long := c.to.Kind == sqltypes.Long
		for i, x := range xs {
			f := float64(x)
			t := math.Trunc(f)
			if math.IsNaN(f) || t < float64(lo) || t > float64(hi) || (long && t >= 9.223372036854775807e18) {
				bad = bad || c.ansi
				switch {
				case math.IsNaN(f):
					out[i] = 0
				case long:
					out[i] = T(saturate(t, math.MinInt64, math.MaxInt64))
				default:
					out[i] = T(saturate(t, math.MinInt32, math.MaxInt32))
				}
				continue
			}
			out[i] = T(int64(t))
		}
	}
	valid := andValidity(mem, n, in)
	if bad {
		for i, x := range xs {
			if !isValidBit(valid, i) {
				continue
			}
			if _, ok, _ := castToIntegral(any(x), from, c.to, true); !ok {
				buf.Release()
				releaseBuf(valid)
				return nil, true, castOverflow(any(x), from, c.to)
			}
		}
	}
	return makeArray(sqltypes.ToArrow(c.to, ""), n, valid, buf), true, nil
}

// pow10Float holds the powers of ten a double represents exactly.
var pow10Float = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func decimalToFloats[T float32 | float64](ctx *Context, in arrow.Array, from sqltypes.DataType) arrow.Array {
	d := in.(*array.Decimal128)
	vals := d.Values()
	mem := ctx.mem()
	buf, out := kernValues[T](mem, len(vals))
	s := from.Scale
	for i, v := range vals {
		u := int64(v.LowBits())
		if s >= 0 && int(s) < len(pow10Float) && u < 1<<53 && u > -(1<<53) {
			out[i] = T(float64(u) / pow10Float[s])
			continue
		}
		out[i] = T(decimalToFloat(v, s))
	}
	return makeArray(sqltypes.ToArrow(sqltypes.DataType{Kind: kindOf[T]()}, ""), len(vals), andValidity(mem, len(vals), in), buf)
}

func kindOf[T float32 | float64]() sqltypes.Kind {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return sqltypes.Float
	}
	return sqltypes.Double
}

// rescaleDecimals casts DECIMAL(p1, s1) to DECIMAL(p2, s2 >= s1) over int64 values; nil when a
// value could pass 18 digits or passes p2 (the row path then reports it).
func rescaleDecimals(ctx *Context, in arrow.Array, from, to sqltypes.DataType) arrow.Array {
	d, ok := in.(*array.Decimal128)
	k := to.Scale - from.Scale
	if !ok || k < 0 || from.Scale < 0 || from.Precision+k > 18 {
		return nil
	}
	mul := pow10Int64(k)
	var limit int64
	if to.Precision < from.Precision+k {
		limit = pow10Int64(to.Precision)
	}
	mem := ctx.mem()
	valid := andValidity(mem, d.Len(), in)
	vals := d.Values()
	buf, out := newDecimalValues(mem, len(vals))
	for i, v := range vals {
		z := int64(v.LowBits()) * mul
		if limit != 0 && (z >= limit || z <= -limit) && isValidBit(valid, i) {
			buf.Release()
			releaseBuf(valid)
			return nil
		}
		out[i] = decimal128.FromI64(z)
	}
	return makeArray(sqltypes.ToArrow(to, ""), len(vals), valid, buf)
}
