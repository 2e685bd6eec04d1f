package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Decimal arithmetic over 64-bit unscaled values (Spark's Decimal keeps precision <= 18 in a
// long). The kernel applies when every intermediate value is bounded by 10^18 in magnitude,
// known from the operand and result types alone: + and - with the result at the wider operand
// scale, * with the result at scale s1+s2, / (HALF_UP) when the dividend rescaled to the
// result scale stays within 18 digits. The result keeps Arrow's decimal128 layout; a value
// past the result precision fails under ANSI and is NULL otherwise, as in the exact path.

// decPlan is how a decimal operation runs on int64 values.
type decPlan struct {
	lmul, rmul int64 // + and -: operand rescale factors; /: lmul scales the dividend
}

func (a *arith) decimalKernelPlan() *decPlan {
	if a.try || a.t.Kind != sqltypes.Decimal {
		return nil
	}
	lt, rt := a.left.Type(), a.right.Type()
	if lt.Kind != sqltypes.Decimal || rt.Kind != sqltypes.Decimal || lt.Precision > 18 || rt.Precision > 18 {
		return nil
	}
	p1, s1, p2, s2, tp, ts := lt.Precision, lt.Scale, rt.Precision, rt.Scale, a.t.Precision, a.t.Scale
	if s1 < 0 || s2 < 0 || ts < 0 {
		return nil
	}
	p := &decPlan{lmul: 1, rmul: 1}
	var digits int32
	switch a.op {
	case "+", "-":
		s := max(s1, s2)
		if ts != s {
			return nil
		}
		p.lmul, p.rmul = pow10Int64(s-s1), pow10Int64(s-s2)
		digits = max(p1+s-s1, p2+s-s2) + 1
	case "*":
		if ts != s1+s2 {
			return nil
		}
		digits = p1 + p2
	case "/":
		k := ts + s2 - s1
		if k < 0 {
			return nil
		}
		p.lmul = pow10Int64(k)
		digits = p1 + k
	default:
		return nil
	}
	if digits > 18 {
		return nil
	}
	if digits > tp {
		// A result could pass the result precision: the exact path applies it.
		return nil
	}
	return p
}

func pow10Int64(n int32) int64 {
	v := int64(1)
	for ; n > 0; n-- {
		v *= 10
	}
	return v
}

// decimalSlice is o's unscaled values as int64 (o's precision <= 18).
func decimalSlice(o operand, n int) ([]int64, arrow.Array, bool) {
	if o.isConst {
		return broadcast(int64(o.k.(decimal128.Num).LowBits()), n), nil, true
	}
	d, ok := o.arr.(*array.Decimal128)
	if !ok {
		return nil, nil, false
	}
	vals := d.Values()
	out := make([]int64, len(vals))
	for i, v := range vals {
		out[i] = int64(v.LowBits())
	}
	return out, o.arr, true
}

func decimalKernel(ctx *Context, a *arith, p *decPlan, l, r operand, n int) (arrow.Array, bool, error) {
	if a.op != "/" {
		return decimalAddMul(ctx, a, p, l, r, n)
	}
	xs, la, ok1 := decimalSlice(l, n)
	ys, ra, ok2 := decimalSlice(r, n)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	mem := ctx.mem()
	valid := andValidity(mem, n, la, ra)
	zs := make([]int64, n)
	switch a.op {
	case "+":
		for i := range zs {
			zs[i] = xs[i]*p.lmul + ys[i]*p.rmul
		}
	case "-":
		for i := range zs {
			zs[i] = xs[i]*p.lmul - ys[i]*p.rmul
		}
	case "*":
		for i := range zs {
			zs[i] = xs[i] * ys[i]
		}
	default:
		zero := false
		for i := range zs {
			num, d := xs[i]*p.lmul, ys[i]
			if d == 0 {
				d, zero = 1, true
			}
			q, rem := num/d, num%d
			if rem < 0 {
				rem = -rem
			}
			ad := d
			if ad < 0 {
				ad = -ad
			}
			if 2*rem >= ad {
				if (num < 0) != (d < 0) {
					q--
				} else {
					q++
				}
			}
			zs[i] = q
		}
		if zero {
			var err error
			valid, err = a.zeroDivisors(mem, valid, n, func(i int) bool { return ys[i] == 0 })
			if err != nil {
				return nil, true, err
			}
		}
	}
	buf, vals := newDecimalValues(mem, n)
	for i, z := range zs {
		vals[i] = decimal128.FromI64(z)
	}
	return makeArray(sqltypes.ToArrow(a.t, ""), n, valid, buf), true, nil
}

// decimalAddMul is decimalKernel's + - and *: each operand's unscaled 64-bit values read in
// place from its Decimal128 column (or a constant's held in a register), the results written
// straight into the output's values.
func decimalAddMul(ctx *Context, a *arith, p *decPlan, l, r operand, n int) (arrow.Array, bool, error) {
	xd, xk, la, ok1 := decimalOperand(l)
	yd, yk, ra, ok2 := decimalOperand(r)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	lm, rm := p.lmul, p.rmul
	if a.op == "-" {
		rm = -rm
	}
	mem := ctx.mem()
	valid := andValidity(mem, n, la, ra)
	buf, vals := newDecimalValues(mem, n)
	switch {
	case a.op == "*" && xd != nil && yd != nil:
		for i := range vals {
			vals[i] = decimal128.FromI64(int64(xd[i].LowBits()) * int64(yd[i].LowBits()))
		}
	case a.op == "*" && xd != nil:
		for i := range vals {
			vals[i] = decimal128.FromI64(int64(xd[i].LowBits()) * yk)
		}
	case a.op == "*" && yd != nil:
		for i := range vals {
			vals[i] = decimal128.FromI64(xk * int64(yd[i].LowBits()))
		}
	case a.op == "*":
		z := decimal128.FromI64(xk * yk)
		for i := range vals {
			vals[i] = z
		}
	case xd != nil && yd != nil:
		for i := range vals {
			vals[i] = decimal128.FromI64(int64(xd[i].LowBits())*lm + int64(yd[i].LowBits())*rm)
		}
	case xd != nil:
		c := yk * rm
		for i := range vals {
			vals[i] = decimal128.FromI64(int64(xd[i].LowBits())*lm + c)
		}
	case yd != nil:
		c := xk * lm
		for i := range vals {
			vals[i] = decimal128.FromI64(c + int64(yd[i].LowBits())*rm)
		}
	default:
		z := decimal128.FromI64(xk*lm + yk*rm)
		for i := range vals {
			vals[i] = z
		}
	}
	return makeArray(sqltypes.ToArrow(a.t, ""), n, valid, buf), true, nil
}

// decimalOperand is a DECIMAL(p <= 18) operand's values: a column's Decimal128 values (vals)
// or a constant's unscaled value (k, vals nil); ok false for another layout.
func decimalOperand(o operand) (vals []decimal128.Num, k int64, arr arrow.Array, ok bool) {
	if o.isConst {
		return nil, int64(o.k.(decimal128.Num).LowBits()), nil, true
	}
	d, isDec := o.arr.(*array.Decimal128)
	if !isDec {
		return nil, 0, nil, false
	}
	return d.Values(), 0, o.arr, true
}
