package expr

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// FLOAT/DOUBLE to DECIMAL: the row path takes the value's shortest decimal representation
// (strconv 'g', -1, as Java's Double.toString digits) rescaled HALF_UP to the target scale.
// The kernel formats into a stack buffer, reads the digits as an int64 and rescales in 64
// bits; a row whose digits, rescaling or result do not fit 18 digits (or NaN, ±Inf) takes the
// row path's castValue, which gives its value, NULL or error.

// floatToDecimalKernel casts a FLOAT or DOUBLE array to decimal type c.to.
func floatToDecimalKernel[S float32 | float64](ctx *Context, c *castExpr, in arrow.Array, from sqltypes.DataType) (arrow.Array, bool, error) {
	xs, ok := numSlice[S](in)
	if !ok {
		return nil, false, nil
	}
	to := c.to
	mem := ctx.mem()
	n := len(xs)
	valid := andValidity(mem, n, in)
	buf, out := newDecimalValues(mem, n)
	limit := int64(-1)
	if to.Precision <= 18 {
		limit = pow10Int64(to.Precision)
	}
	for i, x := range xs {
		if !isValidBit(valid, i) {
			out[i] = decimal128.Num{}
			continue
		}
		if z, ok := shortestDecimal(float64(x), to.Scale); ok && (limit < 0 || (z < limit && z > -limit)) {
			out[i] = decimal128.FromI64(z)
			continue
		}
		v, err := castValue(any(x), from, to, c.ansi, ctx.loc())
		if err != nil {
			buf.Release()
			releaseBuf(valid)
			return nil, true, err
		}
		if v == nil {
			if valid == nil {
				valid = allValid(mem, n)
			}
			bitutil.ClearBit(valid.Bytes(), i)
			out[i] = decimal128.Num{}
			continue
		}
		out[i] = v.(decimal128.Num)
	}
	return makeArray(sqltypes.ToArrow(to, ""), n, valid, buf), true, nil
}

// shortestDecimal is f's shortest decimal representation as an unscaled value of scale s,
// rounded HALF_UP; ok is false for NaN/±Inf and when a step does not fit 18 digits.
func shortestDecimal(f float64, s int32) (int64, bool) {
	var b [40]byte
	t := strconv.AppendFloat(b[:0], f, 'e', -1, 64)
	// t is [-]d[.ddd]e±xx.
	neg := false
	if len(t) > 0 && t[0] == '-' {
		neg, t = true, t[1:]
	}
	var mant int64
	digits, frac, i := 0, 0, 0
	seenDot := false
	for ; i < len(t) && t[i] != 'e'; i++ {
		switch c := t[i]; {
		case c == '.':
			seenDot = true
		case c >= '0' && c <= '9':
			if digits == 18 {
				return 0, false
			}
			mant = mant*10 + int64(c-'0')
			digits++
			if seenDot {
				frac++
			}
		default:
			return 0, false // NaN, Inf
		}
	}
	if i >= len(t) {
		return 0, false
	}
	exp, sign := 0, 1
	for _, c := range t[i+1:] {
		switch {
		case c == '-':
			sign = -1
		case c >= '0' && c <= '9':
			exp = exp*10 + int(c-'0')
		}
	}
	exp *= sign
	// value = mant * 10^(exp - frac); wanted: value * 10^s.
	k := int(s) + exp - frac
	switch {
	case k >= 0:
		if k > 18 {
			if mant == 0 {
				return 0, true
			}
			return 0, false
		}
		m := pow10Int64(int32(k))
		if mant > (1<<63-1)/m {
			return 0, false
		}
		mant *= m
	case k < -18:
		mant = 0
	default:
		d := pow10Int64(int32(-k))
		q, r := mant/d, mant%d
		if r >= d-r {
			q++
		}
		mant = q
	}
	if neg {
		mant = -mant
	}
	return mant, true
}
