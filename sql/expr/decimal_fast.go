package expr

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Native 128-bit decimal kernels: + and - with the result at the wider operand scale, and *.
// A product whose operand precisions sum to 38 digits or fewer is exact in 128 bits. Past that
// (decimal(32,4) * decimal(16,2) -> decimal(38,6), TPC-H Q1), or when the result scale is
// below s1+s2 by up to 19 digits (HALF_UP rounding), a row whose operands both fit 64 bits is
// computed exactly in 128 bits (the product is below 2^126) and rounded there; any other row
// takes the exact big.Int function (applyDecimal). Everything else (division, wider
// adjustments) takes the exact big.Int row path.

// decimalFast returns ok=false when the operation needs the exact path.
func (a *arith) decimalFast(ctx *Context, la, ra arrow.Array) (arrow.Array, bool, error) {
	l, ok1 := la.(*array.Decimal128)
	r, ok2 := ra.(*array.Decimal128)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	lt, rt, out := a.left.Type(), a.right.Type(), a.t
	var lmul, rmul decimal128.Num
	switch a.op {
	case "+", "-":
		s := max(lt.Scale, rt.Scale)
		if out.Scale != s || lt.Precision+(s-lt.Scale) > 38 || rt.Precision+(s-rt.Scale) > 38 {
			return nil, false, nil
		}
		lmul, rmul = decimal128.GetScaleMultiplier(int(s-lt.Scale)), decimal128.GetScaleMultiplier(int(s-rt.Scale))
	case "*":
		k := lt.Scale + rt.Scale - out.Scale
		if k < 0 || k > 19 || lt.Scale < 0 || rt.Scale < 0 {
			return nil, false, nil
		}
		if lt.Precision+rt.Precision > 38 || k > 0 {
			return a.decimalMulWide(ctx, l, r, k)
		}
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

// decimalMulWide is l * r where the product may pass 38 digits or needs rounding by 10^k:
// per row, exactly in 128 bits when both operands fit 64 bits, else through applyDecimal.
func (a *arith) decimalMulWide(ctx *Context, l, r *array.Decimal128, k int32) (arrow.Array, bool, error) {
	out := a.t
	xs, ys := l.Values(), r.Values()
	n := len(xs)
	buf, vals := newDecimalValues(ctx.mem(), n)
	valid := validity(l, r)
	div := uint64(pow10Int64(min(k, 18)))
	if k == 19 {
		div *= 10
	}
	setNull := func(i int) {
		if valid == nil {
			valid = make([]bool, n)
			for j := range valid {
				valid[j] = true
			}
		}
		valid[i] = false
		vals[i] = decimal128.Num{}
	}
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			vals[i] = decimal128.Num{}
			continue
		}
		x, y := xs[i], ys[i]
		if !fitsInt64(x) || !fitsInt64(y) {
			v, err := a.applyDecimal(x, y)
			if err != nil && !a.try {
				buf.Release()
				return nil, true, err
			}
			if v == nil {
				setNull(i)
				continue
			}
			vals[i] = v.(decimal128.Num)
			continue
		}
		z := x.Mul(y)
		if k > 0 {
			z = divHalfUp128(z, div)
		}
		if !z.FitsInPrecision(out.Precision) {
			if a.ansi && !a.try {
				buf.Release()
				return nil, true, decimalOverflow(formatDecimal(z, out.Scale), out.Precision, out.Scale)
			}
			setNull(i)
			continue
		}
		vals[i] = z
	}
	return decimalArray(ctx.mem(), out, buf, valid, n), true, nil
}

// fitsInt64 reports whether x is a sign-extended 64-bit value.
func fitsInt64(x decimal128.Num) bool {
	return x.HighBits() == int64(x.LowBits())>>63
}

// divHalfUp128 divides z by d (> 0), rounding half away from zero.
func divHalfUp128(z decimal128.Num, d uint64) decimal128.Num {
	neg := z.Sign() < 0
	m := z.Abs()
	hi, lo := uint64(m.HighBits()), m.LowBits()
	qhi, rem := hi/d, hi%d
	qlo, rem := bits.Div64(rem, lo, d)
	if rem >= d-rem {
		var c uint64
		qlo, c = bits.Add64(qlo, 1, 0)
		qhi += c
	}
	q := decimal128.New(int64(qhi), qlo)
	if neg {
		q = q.Negate()
	}
	return q
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
