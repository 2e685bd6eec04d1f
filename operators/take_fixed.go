package operators

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeFixed gathers rows idx (none NULL; highest is maxIndex(idx)) of a column that is
// entirely NULL or all false (a prefix slice of it serves), or has no NULLs and a fixed width of
// 1 (boolean), 8, 16, 32 or 64 bits, copying values directly; nil for any other column or an
// index out of range (compute.Take handles and reports those).
func takeFixed(mem memory.Allocator, c arrow.Array, idx []int64, highest uint64) arrow.Array {
	n := len(idx)
	if n > 0 && highest >= uint64(c.Len()) {
		return nil
	}
	if c.NullN() > 0 {
		if c.NullN() == c.Len() && c.DataType().ID() != arrow.NULL {
			if n <= c.Len() {
				// Every row of a prefix is NULL too (the flow-event _marker column).
				return array.NewSlice(c, 0, int64(n))
			}
			return array.MakeArrayOfNull(mem, c.DataType(), n)
		}
		return nil
	}
	fw, ok := c.DataType().(arrow.FixedWidthDataType)
	if id := c.DataType().ID(); id == arrow.DICTIONARY || id == arrow.EXTENSION {
		ok = false
	}
	if !ok || len(c.Data().Buffers()) != 2 || c.Data().Buffers()[1] == nil {
		return nil
	}
	width := fw.BitWidth()
	src := c.Data().Buffers()[1].Bytes()
	off := c.Data().Offset()
	buf := memory.NewResizableBuffer(mem)
	switch width {
	case 1:
		if n <= c.Len() && bitutil.CountSetBits(src, off, c.Len()) == 0 {
			// Every row of a prefix is false too (the flow-event _retracted column).
			buf.Release()
			return array.NewSlice(c, 0, int64(n))
		}
		buf.Resize(int(bitutil.BytesForBits(int64(n))))
		out := buf.Bytes()
		clear(out)
		for i, j := range idx {
			if bitutil.BitIsSet(src, off+int(j)) {
				bitutil.SetBit(out, i)
			}
		}
	case 8:
		buf.Resize(n)
		gather(buf.Bytes(), src[off:], idx)
	case 16:
		buf.Resize(2 * n)
		gather(asSlice[uint16](buf.Bytes(), n), asSlice[uint16](src, off+c.Len())[off:], idx)
	case 32:
		buf.Resize(4 * n)
		gather(asSlice[uint32](buf.Bytes(), n), asSlice[uint32](src, off+c.Len())[off:], idx)
	case 64:
		buf.Resize(8 * n)
		gather(asSlice[uint64](buf.Bytes(), n), asSlice[uint64](src, off+c.Len())[off:], idx)
	default:
		buf.Release()
		return nil
	}
	data := array.NewData(c.DataType(), n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	defer data.Release()
	return array.MakeFromData(data)
}

func gather[T any](out, src []T, idx []int64) {
	for i, j := range idx {
		out[i] = src[j]
	}
}

// asSlice views the first n values of T in b (n may be 0).
func asSlice[T any](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// maxIndex is the largest of idx as an unsigned number (a negative index is huge).
func maxIndex(idx []int64) uint64 {
	var m uint64
	for _, j := range idx {
		m = max(m, uint64(j))
	}
	return m
}
