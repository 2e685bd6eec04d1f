package rate

import (
	"context"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sources"
)

// rateBatches writes the rate sources' (timestamp, value) batches straight into Arrow buffers:
// values first, first+step, … below end, RangeBatchRows per batch; stamp fills each batch's
// timestamps (µs) from its values.
type rateBatches struct {
	mem    memory.Allocator
	schema *arrow.Schema
	stamp  func(vals, ts []int64)
}

// emit sends the rows to emit, checking ctx between batches.
func (r rateBatches) emit(ctx context.Context, first, end, step int64, emit func(arrow.RecordBatch) error) error {
	if first >= end {
		return nil
	}
	remaining := (end-first-1)/step + 1
	v := first
	for remaining > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(remaining, sources.RangeBatchRows)
		valBuf, vals := int64Buffer(r.mem, int(n))
		for i := range vals {
			vals[i] = v
			v += step
		}
		tsBuf, ts := int64Buffer(r.mem, int(n))
		r.stamp(vals, ts)
		remaining -= n
		tsArr := int64Array(r.schema.Field(0).Type, tsBuf, int(n))
		valArr := int64Array(arrow.PrimitiveTypes.Int64, valBuf, int(n))
		rec := array.NewRecordBatch(r.schema, []arrow.Array{tsArr, valArr}, n)
		tsArr.Release()
		valArr.Release()
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// int64Buffer allocates n int64 values (n > 0).
func int64Buffer(mem memory.Allocator, n int) (*memory.Buffer, []int64) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * 8)
	return buf, unsafe.Slice((*int64)(unsafe.Pointer(&buf.Bytes()[0])), n)
}

// int64Array wraps a buffer of n non-null 64-bit values as an array of type dt, taking over
// the caller's reference to buf.
func int64Array(dt arrow.DataType, buf *memory.Buffer, n int) arrow.Array {
	data := array.NewData(dt, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	defer data.Release()
	return array.MakeFromData(data)
}
