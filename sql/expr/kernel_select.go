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

// Selection kernels for CASE WHEN / IF / NULLIF / NVL2 and COALESCE / NVL / IFNULL: each
// branch is evaluated over the whole batch (evalNeeded: on the rows that take it only when the
// whole batch fails, so a branch not taken never raises), the rows each branch takes are a
// bitmap (offset 0), and the result is assembled from the branches' value slices a bitmap
// byte (eight rows) at a time, with no per-row Go values. Rows no branch takes are NULL.

// selectPart is one branch's values and the bitmap of the rows that take them.
type selectPart struct {
	arr  arrow.Array
	take []byte
}

// allRows is a bitmap of n set bits (bits past n clear).
func allRows(n int) []byte {
	b := make([]byte, bitutil.BytesForBits(int64(n)))
	bitutil.SetBitsTo(b, 0, int64(n), true)
	return b
}

// validBits is a's validity over n rows as a bitmap at offset 0 (a NULL-typed array has none).
func validBits(a arrow.Array, n int) []byte {
	switch {
	case a.DataType().ID() == arrow.NULL:
		return make([]byte, bitutil.BytesForBits(int64(n)))
	case a.NullN() == 0:
		return allRows(n)
	}
	b := make([]byte, bitutil.BytesForBits(int64(n)))
	bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), n, b, 0)
	return b
}

// eachTaken calls f for every row set in take, skipping empty bytes.
func eachTaken(take []byte, f func(i int)) {
	for j, b := range take {
		for b != 0 {
			f(j<<3 | bits.TrailingZeros8(b))
			b &= b - 1
		}
	}
}

func releaseParts(parts []selectPart) {
	for _, p := range parts {
		p.arr.Release()
	}
}

// mergeParts assembles the result of type t over n rows from parts.
func mergeParts(ctx *Context, t sqltypes.DataType, n int, parts []selectPart) arrow.Array {
	var out arrow.Array
	switch t.Kind {
	case sqltypes.Byte:
		out = mergeFixed[int8](ctx, t, n, parts)
	case sqltypes.Short:
		out = mergeFixed[int16](ctx, t, n, parts)
	case sqltypes.Integer, sqltypes.Date:
		out = mergeFixed[int32](ctx, t, n, parts)
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		out = mergeFixed[int64](ctx, t, n, parts)
	case sqltypes.Float:
		out = mergeFixed[float32](ctx, t, n, parts)
	case sqltypes.Double:
		out = mergeFixed[float64](ctx, t, n, parts)
	case sqltypes.Decimal:
		out = mergeDecimal(ctx, t, n, parts)
	}
	if out != nil {
		return out
	}
	return mergeRows(ctx, t, n, parts)
}

// mergeRows is the row-wise assembly (any type; the kernels' oracle).
func mergeRows(ctx *Context, t sqltypes.DataType, n int, parts []selectPart) arrow.Array {
	out := make([]any, n)
	for _, p := range parts {
		eachTaken(p.take, func(i int) { out[i] = ValueAt(p.arr, i, t) })
	}
	return BuildArray(ctx.mem(), t, ctx.tz(), out)
}

// mergeValidity is the result's validity: a row is valid when the branch it takes is valid
// there.
func mergeValidity(mem memory.Allocator, n int, parts []selectPart) *memory.Buffer {
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int(bitutil.BytesForBits(int64(n))))
	out := valid.Bytes()
	clear(out)
	for _, p := range parts {
		pv := validBits(p.arr, n)
		for i, tk := range p.take {
			out[i] |= tk & pv[i]
		}
	}
	return valid
}

// mergeBits copies xs[i] into out[i] for the rows set in take: eight at once for a full byte.
func mergeBits[T any](out, xs []T, take []byte) {
	for j, b := range take {
		switch b {
		case 0:
		case 0xFF:
			copy(out[j<<3:j<<3+8], xs[j<<3:j<<3+8])
		default:
			for b != 0 {
				i := j<<3 | bits.TrailingZeros8(b)
				out[i] = xs[i]
				b &= b - 1
			}
		}
	}
}

func mergeFixed[T kernNum](ctx *Context, t sqltypes.DataType, n int, parts []selectPart) arrow.Array {
	srcs := make([][]T, len(parts))
	for k, p := range parts {
		xs, ok := numSlice[T](p.arr)
		if !ok {
			return nil
		}
		srcs[k] = xs
	}
	mem := ctx.mem()
	buf, out := kernValues[T](mem, n)
	clear(out)
	for k, p := range parts {
		mergeBits(out, srcs[k], p.take)
	}
	return makeArray(sqltypes.ToArrow(t, ctx.tz()), n, mergeValidity(mem, n, parts), buf)
}

func mergeDecimal(ctx *Context, t sqltypes.DataType, n int, parts []selectPart) arrow.Array {
	srcs := make([][]decimal128.Num, len(parts))
	for k, p := range parts {
		d, ok := p.arr.(*array.Decimal128)
		if !ok {
			return nil
		}
		srcs[k] = d.Values()
	}
	mem := ctx.mem()
	buf, out := newDecimalValues(mem, n)
	clear(out)
	for k, p := range parts {
		mergeBits(out, srcs[k], p.take)
	}
	return makeArray(sqltypes.ToArrow(t, ""), n, mergeValidity(mem, n, parts), buf)
}
