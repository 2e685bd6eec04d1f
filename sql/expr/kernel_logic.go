package expr

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Boolean kernels: AND / OR / NOT with three-valued logic and IS [NOT] NULL / isnan, computed
// on bitmaps a byte (eight rows) at a time. A boolean operand is split into the bitmap of its
// TRUE rows and the bitmap of its FALSE rows (a NULL row is in neither); then
//
//	AND: TRUE = lT & rT, FALSE = lF | rF;   OR: TRUE = lT | rT, FALSE = lF & rF
//
// and the result is valid where it is TRUE or FALSE. The right side of AND / OR is not
// evaluated at all when the left side decides every row of the batch (FALSE for AND, TRUE for
// OR), and is evaluated over the rows the left side leaves open only when evaluating it over
// the whole batch fails (evalNeeded), so its errors on decided rows do not surface, as in
// Spark's short-circuit evaluation. The row-wise evalRows remain the oracle (kernel_logic_test).

// triBits splits a boolean array of n rows into the bitmaps (offset 0) of its TRUE and its
// FALSE rows; bits past n are clear.
func triBits(a *array.Boolean, n int) (t, f []byte) {
	nb := int(bitutil.BytesForBits(int64(n)))
	t, f = make([]byte, nb), make([]byte, nb)
	if n == 0 {
		return t, f
	}
	off := a.Data().Offset()
	bitutil.CopyBitmap(a.Data().Buffers()[1].Bytes(), off, n, t, 0)
	if a.NullN() == 0 {
		for i := range f {
			f[i] = ^t[i]
		}
	} else {
		bitutil.CopyBitmap(a.NullBitmapBytes(), off, n, f, 0)
		for i, v := range f {
			t[i], f[i] = t[i]&v, v&^t[i]
		}
	}
	if r := n & 7; r != 0 {
		mask := byte(1)<<r - 1
		t[nb-1] &= mask
		f[nb-1] &= mask
	}
	return t, f
}

// countBits is the number of set bits of bitmap b.
func countBits(b []byte) int {
	c := 0
	for len(b) >= 8 {
		c += bits.OnesCount64(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
		b = b[8:]
	}
	for _, x := range b {
		c += bits.OnesCount8(x)
	}
	return c
}

// boolsFromBits is a boolean array of n rows: TRUE at t, FALSE at f, NULL elsewhere.
func boolsFromBits(mem memory.Allocator, n int, t, f []byte) arrow.Array {
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(len(t))
	copy(vals.Bytes(), t)
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(len(t))
	vb := valid.Bytes()
	for i := range vb {
		vb[i] = t[i] | f[i]
	}
	return makeArray(arrow.FixedWidthTypes.Boolean, n, valid, vals)
}

// bitsToBools unpacks bitmap b of n rows.
func bitsToBools(b []byte, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = b[i>>3]&(1<<(i&7)) != 0
	}
	return out
}

// evalKernel is AND / OR over bitmaps; ok is false when an operand is not a plain boolean
// array (the caller then runs evalRows).
func (b *boolLogic) evalKernel(ctx *Context, batch arrow.RecordBatch, la arrow.Array) (arrow.Array, bool, error) {
	l, ok := la.(*array.Boolean)
	if !ok {
		return nil, false, nil
	}
	n := l.Len()
	lt, lf := triBits(l, n)
	// decided: the rows whose result the left side fixes.
	decided := lt
	if b.and {
		decided = lf
	}
	if countBits(decided) == n {
		return boolsFromBits(ctx.mem(), n, lt, lf), true, nil
	}
	ra, err := evalNeeded(ctx, b.right, batch, func() []bool {
		need := bitsToBools(decided, n)
		for i := range need {
			need[i] = !need[i]
		}
		return need
	})
	if err != nil {
		return nil, true, err
	}
	defer ra.Release()
	r, ok := ra.(*array.Boolean)
	if !ok {
		return nil, false, nil
	}
	rt, rf := triBits(r, n)
	if b.and {
		for i := range lt {
			lt[i] &= rt[i]
			lf[i] |= rf[i]
		}
	} else {
		for i := range lt {
			lt[i] |= rt[i]
			lf[i] &= rf[i]
		}
	}
	return boolsFromBits(ctx.mem(), n, lt, lf), true, nil
}

// evalNeeded evaluates e on all rows; if that fails, it evaluates it only on the rows need()
// gives (other rows become NULL), so that errors on rows whose value is not needed are not
// raised. need is called only then.
func evalNeeded(ctx *Context, e Expr, batch arrow.RecordBatch, need func() []bool) (arrow.Array, error) {
	out, err := e.Eval(ctx, batch)
	if err == nil {
		return out, nil
	}
	return evalOnRows(ctx, e, batch, need(), err)
}

// evalKernel is NOT over bitmaps: values inverted, NULLs kept.
func (x *notExpr) evalKernel(ctx *Context, a arrow.Array) (arrow.Array, bool) {
	b, ok := a.(*array.Boolean)
	if !ok {
		return nil, false
	}
	n := b.Len()
	t, f := triBits(b, n)
	return boolsFromBits(ctx.mem(), n, f, t), true
}

// evalKernel is IS NULL / IS NOT NULL from the validity bitmap, and isnan over FLOAT/DOUBLE
// values, never NULL.
func (x *nullTest) evalKernel(ctx *Context, a arrow.Array) (arrow.Array, bool) {
	n := a.Len()
	mem := ctx.mem()
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(int(bitutil.BytesForBits(int64(n))))
	out := vals.Bytes()
	switch x.kind {
	case "null", "notnull":
		switch {
		case a.DataType().ID() == arrow.NULL:
			bitutil.SetBitsTo(out, 0, int64(n), x.kind == "null")
		case a.NullN() == 0:
			bitutil.SetBitsTo(out, 0, int64(n), x.kind == "notnull")
		default:
			bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), n, out, 0)
			if x.kind == "null" {
				bitutil.InvertBitmap(out, 0, n, out, 0)
			}
		}
	default:
		var ok bool
		switch a.DataType().ID() {
		case arrow.FLOAT64:
			ok = nanBits[float64](a, out)
		case arrow.FLOAT32:
			ok = nanBits[float32](a, out)
		}
		if !ok {
			vals.Release()
			return nil, false
		}
	}
	return makeArray(arrow.FixedWidthTypes.Boolean, n, nil, vals), true
}

// nanBits sets the bits of the valid NaN rows of a float array.
func nanBits[T float32 | float64](a arrow.Array, out []byte) bool {
	xs, ok := numSlice[T](a)
	if !ok {
		return false
	}
	clear(out)
	for i, v := range xs {
		if v != v {
			out[i>>3] |= 1 << (i & 7)
		}
	}
	if a.NullN() > 0 {
		bitutil.BitmapAnd(out, a.NullBitmapBytes(), 0, int64(a.Data().Offset()), out, 0, int64(len(xs)))
	}
	return true
}
