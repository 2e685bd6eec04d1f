package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Selection kernels for CASE WHEN / IF / NULLIF / NVL2 and COALESCE / NVL / IFNULL: each
// branch is evaluated over the whole batch (evalMasked: on the rows that take it only when the
// whole batch fails, so a branch not taken never raises), and the result is assembled from the
// branches' value slices by the rows each one takes, with no per-row Go values. Rows no branch
// takes are NULL.

// selectPart is one branch's values and the rows that take them.
type selectPart struct {
	arr  arrow.Array
	take []bool
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
		for i, tk := range p.take {
			if tk {
				out[i] = ValueAt(p.arr, i, t)
			}
		}
	}
	return BuildArray(ctx.mem(), t, ctx.tz(), out)
}

// mergeValidity is the result's validity: a row is valid when the branch it takes is valid
// there.
func mergeValidity(mem memory.Allocator, n int, parts []selectPart) *memory.Buffer {
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := valid.Bytes()
	clear(bits)
	for _, p := range parts {
		if p.arr.NullN() == 0 {
			for i, tk := range p.take {
				if tk {
					bitutil.SetBit(bits, i)
				}
			}
			continue
		}
		src, off := p.arr.NullBitmapBytes(), p.arr.Data().Offset()
		for i, tk := range p.take {
			if tk && bitutil.BitIsSet(src, off+i) {
				bitutil.SetBit(bits, i)
			}
		}
	}
	return valid
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
		xs := srcs[k]
		for i, tk := range p.take {
			if tk {
				out[i] = xs[i]
			}
		}
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
		xs := srcs[k]
		for i, tk := range p.take {
			if tk {
				out[i] = xs[i]
			}
		}
	}
	return makeArray(sqltypes.ToArrow(t, ""), n, mergeValidity(mem, n, parts), buf)
}
