package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Native 128-bit decimal kernels for the cases whose results need no rounding: + and - with the
// result at the wider operand scale, and * when the product fits 38 digits at scale s1+s2 (with
// operands of more than 38 digits together, when both fit in 64 bits).
// Everything else (division, precision-loss adjustments) takes the exact big.Int row path.

// decimalFast returns ok=false when the operation needs the exact path.
func (a *arith) decimalFast(ctx *Context, la, ra arrow.Array) (arrow.Array, bool, error) {
	l, ok1 := la.(*array.Decimal128)
	r, ok2 := ra.(*array.Decimal128)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	lt, rt, out := a.left.Type(), a.right.Type(), a.t
	var lmul, rmul decimal128.Num
	wide := false
	switch a.op {
	case "+", "-":
		s := max(lt.Scale, rt.Scale)
		if out.Scale != s || lt.Precision+(s-lt.Scale) > 38 || rt.Precision+(s-rt.Scale) > 38 {
			return nil, false, nil
		}
		lmul, rmul = decimal128.GetScaleMultiplier(int(s-lt.Scale)), decimal128.GetScaleMultiplier(int(s-rt.Scale))
	case "*":
		if out.Scale != lt.Scale+rt.Scale {
			return nil, false, nil
		}
		// Operands of more than 38 digits together may overflow 128 bits: their products
		// are exact here when both fit in 64 bits, checked per value.
		wide = lt.Precision+rt.Precision > 38
	default:
		return nil, false, nil
	}
	xs, ys := l.Values(), r.Values()
	n := len(xs)
	buf, vals := newDecimalValues(ctx.mem(), n)
	valid := validity(l, r)
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			vals[i] = decimal128.Num{}
			continue
		}
		var z decimal128.Num
		switch a.op {
		case "+":
			z = xs[i].Mul(lmul).Add(ys[i].Mul(rmul))
		case "-":
			z = xs[i].Mul(lmul).Sub(ys[i].Mul(rmul))
		default:
			if wide && (!fitsInt64(xs[i]) || !fitsInt64(ys[i])) {
				buf.Release()
				return nil, false, nil
			}
			z = xs[i].Mul(ys[i])
		}
		if !z.FitsInPrecision(out.Precision) {
			if a.ansi && !a.try {
				buf.Release()
				return nil, true, decimalOverflow(formatDecimal(z, out.Scale), out.Precision, out.Scale)
			}
			if valid == nil {
				valid = make([]bool, n)
				for j := range valid {
					valid[j] = true
				}
			}
			valid[i] = false
			vals[i] = decimal128.Num{}
			continue
		}
		vals[i] = z
	}
	return decimalArray(ctx.mem(), out, buf, valid, n), true, nil
}

// fitsInt64 reports whether a decimal's unscaled value is an int64.
func fitsInt64(v decimal128.Num) bool {
	hi, lo := v.HighBits(), v.LowBits()
	return (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64)
}

// fastIntegralToDecimal casts an integer array to decimal natively; nil when a value does not
// fit (the exact path then reports it).
func fastIntegralToDecimal(ctx *Context, in arrow.Array, to sqltypes.DataType) arrow.Array {
	if to.Kind != sqltypes.Decimal || to.Scale < 0 || 19+to.Scale > 38 {
		return nil
	}
	var get func(i int) int64
	switch a := in.(type) {
	case *array.Int64:
		get = func(i int) int64 { return a.Value(i) }
	case *array.Int32:
		get = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int16:
		get = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int8:
		get = func(i int) int64 { return int64(a.Value(i)) }
	default:
		return nil
	}
	mul := decimal128.GetScaleMultiplier(int(to.Scale))
	n := in.Len()
	buf, vals := newDecimalValues(ctx.mem(), n)
	for i := 0; i < n; i++ {
		if in.IsNull(i) {
			vals[i] = decimal128.Num{}
			continue
		}
		v := decimal128.FromI64(get(i)).Mul(mul)
		if !v.FitsInPrecision(to.Precision) {
			buf.Release()
			return nil
		}
		vals[i] = v
	}
	return decimalArray(ctx.mem(), to, buf, validity(in), n)
}

// fastDecimalWiden casts a decimal array to a decimal type at least as wide in both integer
// digits and scale (no value can overflow: the cast the analyzer adds to compare or combine
// decimals of different types), multiplying by a power of ten without leaving decimal128; nil
// when the cast narrows.
func fastDecimalWiden(ctx *Context, in arrow.Array, from, to sqltypes.DataType) arrow.Array {
	a, ok := in.(*array.Decimal128)
	if !ok || from.Kind != sqltypes.Decimal || to.Kind != sqltypes.Decimal || to.Precision > 38 ||
		to.Scale < from.Scale || to.Precision-to.Scale < from.Precision-from.Scale {
		return nil
	}
	mul := decimal128.GetScaleMultiplier(int(to.Scale - from.Scale))
	n := in.Len()
	buf, vals := newDecimalValues(ctx.mem(), n)
	for i := 0; i < n; i++ {
		if in.IsNull(i) {
			vals[i] = decimal128.Num{}
			continue
		}
		vals[i] = a.Value(i).Mul(mul)
	}
	return decimalArray(ctx.mem(), to, buf, validity(in), n)
}

// decimalArray wraps values and validity (nil = all valid) in a decimal128 array without
// copying through a builder.
func decimalArray(mem memory.Allocator, t sqltypes.DataType, vals *memory.Buffer, valid []bool, n int) arrow.Array {
	var bitmap *memory.Buffer
	nulls := 0
	if valid != nil {
		bitmap = memory.NewResizableBuffer(mem)
		bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := bitmap.Bytes()
		for i, ok := range valid {
			if ok {
				bitutil.SetBit(bits, i)
			} else {
				bitutil.ClearBit(bits, i)
				nulls++
			}
		}
	}
	data := array.NewData(&arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}, n, []*memory.Buffer{bitmap, vals}, nil, nulls, 0)
	out := array.MakeFromData(data)
	data.Release()
	vals.Release()
	if bitmap != nil {
		bitmap.Release()
	}
	return out
}

// newDecimalValues allocates an n-value decimal buffer and its typed view.
func newDecimalValues(mem memory.Allocator, n int) (*memory.Buffer, []decimal128.Num) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * arrow.Decimal128SizeBytes)
	return buf, arrow.Decimal128Traits.CastFromBytes(buf.Bytes())
}
