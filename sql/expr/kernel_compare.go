package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Typed comparison kernels: = <=> < <= > >= over TINYINT..BIGINT, FLOAT, DOUBLE, DATE,
// TIMESTAMP, TIMESTAMP_NTZ and DECIMAL(p <= 18) (= < <= > >= over wider decimals, as 128-bit
// values), column-column and column-constant in either order, writing result bits eight rows
// at a time. Doubles follow Spark's ordering (NaN equals
// NaN and is above everything; -0.0 equals 0.0: Go's == already says so). The comparison
// predicates are written so that for integer types the NaN terms (x != x) fold away.

// kernelKind reports whether the typed kernel compares c's operands.
func (c *comparison) kernelKind() bool {
	switch c.in.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Float, sqltypes.Double,
		sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return true
	case sqltypes.Decimal:
		return c.left.Type().Equal(c.in) && c.right.Type().Equal(c.in) && (c.in.Precision <= 18 || c.op != "<=>")
	case sqltypes.String:
		return c.op != "<=>" && binaryCollation(c.in)
	}
	return false
}

func (c *comparison) evalKernel(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	if out, ok, err := c.widenedKernel(ctx, batch); ok {
		return out, err
	}
	l, err := evalOperand(ctx, c.left, batch)
	if err != nil {
		return nil, err
	}
	defer l.release()
	r, err := evalOperand(ctx, c.right, batch)
	if err != nil {
		return nil, err
	}
	defer r.release()
	n := int(batch.NumRows())
	if out, ok := c.kernel(ctx, l, r, n); ok {
		return out, nil
	}
	la, ra := l.materialize(ctx, c.left.Type(), n), r.materialize(ctx, c.right.Type(), n)
	defer la.Release()
	defer ra.Release()
	return c.evalArrays(ctx, la, ra), nil
}

func (c *comparison) kernel(ctx *Context, l, r operand, n int) (arrow.Array, bool) {
	if c.op != "<=>" && ((l.isConst && l.k == nil) || (r.isConst && r.k == nil)) {
		return array0Null(ctx, sqltypes.BooleanType, n), true
	}
	switch c.in.Kind {
	case sqltypes.String:
		return c.stringKernel(ctx, l, r, n)
	case sqltypes.Byte:
		return compareKernel[int8](ctx, c.op, l, r, n)
	case sqltypes.Short:
		return compareKernel[int16](ctx, c.op, l, r, n)
	case sqltypes.Integer, sqltypes.Date:
		return compareKernel[int32](ctx, c.op, l, r, n)
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return compareKernel[int64](ctx, c.op, l, r, n)
	case sqltypes.Float:
		return compareKernel[float32](ctx, c.op, l, r, n)
	case sqltypes.Double:
		return compareKernel[float64](ctx, c.op, l, r, n)
	case sqltypes.Decimal:
		if c.in.Precision > 18 {
			return compareDecimal128(ctx, c.op, l, r, n)
		}
		xs, la, ok1 := decimalSliceOrZero(l, n)
		ys, ra, ok2 := decimalSliceOrZero(r, n)
		if !ok1 || !ok2 {
			return nil, false
		}
		return compareValues(ctx, c.op, xs, ys, la, ra, l, r, n), true
	}
	return nil, false
}

// decimalSliceOrZero is decimalSlice with a NULL constant read as zeros (only <=> gets there).
func decimalSliceOrZero(o operand, n int) ([]int64, arrow.Array, bool) {
	if o.isConst && o.k == nil {
		return make([]int64, n), nil, true
	}
	return decimalSlice(o, n)
}

func compareKernel[T kernNum](ctx *Context, op string, l, r operand, n int) (arrow.Array, bool) {
	if op != "<=>" && l.isConst != r.isConst {
		col, k := splitConst(l, r)
		xs, ok := numSlice[T](col.arr)
		if !ok {
			return nil, false
		}
		return compareWithConst(ctx, op, xs[:n], kernConst[T](k.k), l.isConst, col.arr), true
	}
	var xs, ys []T
	var la, ra arrow.Array
	ok1, ok2 := true, true
	if l.isConst && l.k == nil {
		xs = make([]T, n)
	} else {
		xs, la, ok1 = operandSlice[T](l, n)
	}
	if r.isConst && r.k == nil {
		ys = make([]T, n)
	} else {
		ys, ra, ok2 = operandSlice[T](r, n)
	}
	if !ok1 || !ok2 {
		return nil, false
	}
	return compareValues(ctx, op, xs, ys, la, ra, l, r, n), true
}

// compareValues compares xs op ys into a boolean array: NULL where an operand is NULL, except
// for <=>, which is true where both are NULL and false where one is.
func compareValues[T kernNum](ctx *Context, op string, xs, ys []T, la, ra arrow.Array, l, r operand, n int) arrow.Array {
	mem := ctx.mem()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	switch op {
	case "=", "<=>":
		cmpEq(xs, ys, bits)
	case "<":
		cmpLt(xs, ys, bits)
	case "<=":
		cmpLe(xs, ys, bits)
	case ">":
		cmpGt(xs, ys, bits)
	default:
		cmpGe(xs, ys, bits)
	}
	if op != "<=>" {
		return makeArray(arrow.FixedWidthTypes.Boolean, n, andValidity(mem, n, la, ra), buf)
	}
	lv, rv := operandValidity(mem, l, n), operandValidity(mem, r, n)
	defer lv.Release()
	defer rv.Release()
	both := bitutil.BitmapAndAlloc(mem, lv.Bytes(), rv.Bytes(), 0, 0, int64(n), 0)
	defer both.Release()
	neither := bitutil.BitmapOrAlloc(mem, lv.Bytes(), rv.Bytes(), 0, 0, int64(n), 0)
	defer neither.Release()
	bitutil.InvertBitmap(neither.Bytes(), 0, n, neither.Bytes(), 0)
	bitutil.BitmapAnd(bits, both.Bytes(), 0, 0, bits, 0, int64(n))
	bitutil.BitmapOr(bits, neither.Bytes(), 0, 0, bits, 0, int64(n))
	return makeArray(arrow.FixedWidthTypes.Boolean, n, nil, buf)
}

// operandValidity is o's validity as a bitmap of n rows starting at bit 0.
func operandValidity(mem memory.Allocator, o operand, n int) *memory.Buffer {
	if o.isConst {
		out := memory.NewResizableBuffer(mem)
		out.Resize(int(bitutil.BytesForBits(int64(n))))
		bitutil.SetBitsTo(out.Bytes(), 0, int64(n), o.k != nil)
		return out
	}
	if v := andValidity(mem, n, o.arr); v != nil {
		return v
	}
	return allValid(mem, n)
}

// cmpEq packs the rows' results into bits, eight rows per byte.
func cmpEq[T kernNum](xs, ys []T, bits []byte) {
	n := len(xs)
	ys = ys[:n]
	full := n &^ 7
	for i := 0; i < full; i += 8 {
		xv, yv := xs[i:i+8:i+8], ys[i:i+8:i+8]
		var b byte
		for j := 0; j < 8; j++ {
			x, y := xv[j], yv[j]
			if x == y || (x != x && y != y) {
				b |= 1 << j
			}
		}
		bits[i>>3] = b
	}
	if full < n {
		var b byte
		for j := full; j < n; j++ {
			x, y := xs[j], ys[j]
			if x == y || (x != x && y != y) {
				b |= 1 << (j - full)
			}
		}
		bits[full>>3] = b
	}
}

// cmpLt packs the rows' results into bits, eight rows per byte.
func cmpLt[T kernNum](xs, ys []T, bits []byte) {
	n := len(xs)
	ys = ys[:n]
	full := n &^ 7
	for i := 0; i < full; i += 8 {
		xv, yv := xs[i:i+8:i+8], ys[i:i+8:i+8]
		var b byte
		for j := 0; j < 8; j++ {
			x, y := xv[j], yv[j]
			if x < y || (x == x && y != y) {
				b |= 1 << j
			}
		}
		bits[i>>3] = b
	}
	if full < n {
		var b byte
		for j := full; j < n; j++ {
			x, y := xs[j], ys[j]
			if x < y || (x == x && y != y) {
				b |= 1 << (j - full)
			}
		}
		bits[full>>3] = b
	}
}

// cmpLe packs the rows' results into bits, eight rows per byte.
func cmpLe[T kernNum](xs, ys []T, bits []byte) {
	n := len(xs)
	ys = ys[:n]
	full := n &^ 7
	for i := 0; i < full; i += 8 {
		xv, yv := xs[i:i+8:i+8], ys[i:i+8:i+8]
		var b byte
		for j := 0; j < 8; j++ {
			x, y := xv[j], yv[j]
			if x <= y || y != y {
				b |= 1 << j
			}
		}
		bits[i>>3] = b
	}
	if full < n {
		var b byte
		for j := full; j < n; j++ {
			x, y := xs[j], ys[j]
			if x <= y || y != y {
				b |= 1 << (j - full)
			}
		}
		bits[full>>3] = b
	}
}

// cmpGt packs the rows' results into bits, eight rows per byte.
func cmpGt[T kernNum](xs, ys []T, bits []byte) {
	n := len(xs)
	ys = ys[:n]
	full := n &^ 7
	for i := 0; i < full; i += 8 {
		xv, yv := xs[i:i+8:i+8], ys[i:i+8:i+8]
		var b byte
		for j := 0; j < 8; j++ {
			x, y := xv[j], yv[j]
			if y < x || (y == y && x != x) {
				b |= 1 << j
			}
		}
		bits[i>>3] = b
	}
	if full < n {
		var b byte
		for j := full; j < n; j++ {
			x, y := xs[j], ys[j]
			if y < x || (y == y && x != x) {
				b |= 1 << (j - full)
			}
		}
		bits[full>>3] = b
	}
}

// cmpGe packs the rows' results into bits, eight rows per byte.
func cmpGe[T kernNum](xs, ys []T, bits []byte) {
	n := len(xs)
	ys = ys[:n]
	full := n &^ 7
	for i := 0; i < full; i += 8 {
		xv, yv := xs[i:i+8:i+8], ys[i:i+8:i+8]
		var b byte
		for j := 0; j < 8; j++ {
			x, y := xv[j], yv[j]
			if y <= x || x != x {
				b |= 1 << j
			}
		}
		bits[i>>3] = b
	}
	if full < n {
		var b byte
		for j := full; j < n; j++ {
			x, y := xs[j], ys[j]
			if y <= x || x != x {
				b |= 1 << (j - full)
			}
		}
		bits[full>>3] = b
	}
}

// compareDecimal128 compares decimals of one type as 128-bit two's complement values (not <=>).
func compareDecimal128(ctx *Context, op string, l, r operand, n int) (arrow.Array, bool) {
	side := func(o operand) ([]decimal128.Num, arrow.Array, bool) {
		if o.isConst {
			k := o.k.(decimal128.Num)
			xs := make([]decimal128.Num, n)
			for i := range xs {
				xs[i] = k
			}
			return xs, nil, true
		}
		d, ok := o.arr.(*array.Decimal128)
		if !ok {
			return nil, nil, false
		}
		return d.Values(), o.arr, true
	}
	xs, la, ok1 := side(l)
	ys, ra, ok2 := side(r)
	if !ok1 || !ok2 || op == "<=>" {
		return nil, false
	}
	mem := ctx.mem()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	clear(bits)
	for i := 0; i < n; i++ {
		x, y := xs[i], ys[i]
		var c int
		switch xh, yh := x.HighBits(), y.HighBits(); {
		case xh < yh:
			c = -1
		case xh > yh:
			c = 1
		case x.LowBits() < y.LowBits():
			c = -1
		case x.LowBits() > y.LowBits():
			c = 1
		}
		if cmpResult(op, c) {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(arrow.FixedWidthTypes.Boolean, n, andValidity(mem, n, la, ra), buf), true
}
