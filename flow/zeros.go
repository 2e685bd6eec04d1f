package flow

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// zeroRows is the largest data batch whose constant columns share zeroBytes.
const zeroRows = 1 << 16

// zeroBytes backs the constant flow-event columns of data batches: the all-NULL _marker column
// (validity and offsets all zero) and an all-false _retracted column. Arrow arrays are
// immutable, so every batch of up to zeroRows rows shares these read-only bytes instead of
// allocating and clearing its own; they belong to no allocator and are never written.
var zeroBytes = make([]byte, 4*(zeroRows+1))

// nullMarkers is an all-NULL _marker column of n rows.
func nullMarkers(mem memory.Allocator, n int) arrow.Array {
	if n > zeroRows {
		return array.MakeArrayOfNull(mem, arrow.BinaryTypes.Binary, n)
	}
	bitmap := memory.NewBufferBytes(zeroBytes[:bitutil.BytesForBits(int64(n))])
	offsets := memory.NewBufferBytes(zeroBytes[:4*(n+1)])
	values := memory.NewBufferBytes(zeroBytes[:0])
	data := array.NewData(arrow.BinaryTypes.Binary, n, []*memory.Buffer{bitmap, offsets, values}, nil, n, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// falseArray is an all-false, non-null boolean array of n values.
func falseArray(mem memory.Allocator, n int) arrow.Array {
	var buf *memory.Buffer
	if n <= zeroRows {
		buf = memory.NewBufferBytes(zeroBytes[:bitutil.BytesForBits(int64(n))])
	} else {
		buf = memory.NewResizableBuffer(mem)
		buf.Resize(int(bitutil.BytesForBits(int64(n))))
		memory.Set(buf.Bytes(), 0)
	}
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	defer data.Release()
	return array.MakeFromData(data)
}
