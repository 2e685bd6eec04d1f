package operators

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeFixed gathers rows idx (none NULL; highest is maxIndex(idx)) of a column that is
// entirely NULL or all false (a prefix slice of it serves), or has a fixed width of 1 (boolean),
// 8, 16, 32, 64, 128 (decimal128) or 256 bits, or is a string or binary column with 32-bit
// offsets, copying values (and the validity bits of a column with NULLs) directly; nil for any
// other column or an index out of range (compute.Take handles and reports those).
func takeFixed(mem memory.Allocator, c arrow.Array, idx []int64, highest uint64) arrow.Array {
	n := len(idx)
	if n > 0 && highest >= uint64(c.Len()) {
		return nil
	}
	if c.NullN() > 0 && c.NullN() == c.Len() && c.DataType().ID() != arrow.NULL {
		if n <= c.Len() {
			// Every row of a prefix is NULL too (the flow-event _marker column).
			return array.NewSlice(c, 0, int64(n))
		}
		return array.MakeArrayOfNull(mem, c.DataType(), n)
	}
	switch c.DataType().ID() {
	case arrow.STRING, arrow.BINARY:
		return takeVarBinary(mem, c, idx)
	case arrow.DICTIONARY, arrow.EXTENSION:
		return nil
	}
	fw, ok := c.DataType().(arrow.FixedWidthDataType)
	if !ok || len(c.Data().Buffers()) != 2 || c.Data().Buffers()[1] == nil {
		return nil
	}
	width := fw.BitWidth()
	src := c.Data().Buffers()[1].Bytes()
	off := c.Data().Offset()
	buf := memory.NewResizableBuffer(mem)
	switch width {
	case 1:
		if c.NullN() == 0 && n <= c.Len() && bitutil.CountSetBits(src, off, c.Len()) == 0 {
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
	case 128:
		buf.Resize(16 * n)
		gather(asSlice[[2]uint64](buf.Bytes(), n), asSlice[[2]uint64](src, off+c.Len())[off:], idx)
	case 256:
		buf.Resize(32 * n)
		gather(asSlice[[4]uint64](buf.Bytes(), n), asSlice[[4]uint64](src, off+c.Len())[off:], idx)
	default:
		buf.Release()
		return nil
	}
	validity, nulls := takeValidity(mem, c, idx)
	data := array.NewData(c.DataType(), n, []*memory.Buffer{validity, buf}, nil, nulls, 0)
	buf.Release()
	if validity != nil {
		validity.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// takeValidity gathers the validity bits of rows idx of c: nil and 0 when c has no NULLs,
// else the bitmap and the count of NULLs taken.
func takeValidity(mem memory.Allocator, c arrow.Array, idx []int64) (*memory.Buffer, int) {
	if c.NullN() == 0 {
		return nil, 0
	}
	src := c.NullBitmapBytes()
	off := c.Data().Offset()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	out := buf.Bytes()
	clear(out)
	valid := 0
	for i, j := range idx {
		if bitutil.BitIsSet(src, off+int(j)) {
			bitutil.SetBit(out, i)
			valid++
		}
	}
	return buf, len(idx) - valid
}

// takeVarBinary gathers rows idx of a string or binary column with 32-bit offsets; nil when
// the taken bytes would overflow them (compute.Take reports that).
func takeVarBinary(mem memory.Allocator, c arrow.Array, idx []int64) arrow.Array {
	bufs := c.Data().Buffers()
	if len(bufs) != 3 || bufs[1] == nil {
		return nil
	}
	off := c.Data().Offset()
	offsets := asSlice[int32](bufs[1].Bytes(), off+c.Len()+1)[off:]
	var values []byte
	if bufs[2] != nil {
		values = bufs[2].Bytes()
	}
	total := 0
	for _, j := range idx {
		total += int(offsets[j+1] - offsets[j])
	}
	if total > 1<<31-1 {
		return nil
	}
	n := len(idx)
	ob := memory.NewResizableBuffer(mem)
	ob.Resize(4 * (n + 1))
	outOff := asSlice[int32](ob.Bytes(), n+1)
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(total)
	out := vb.Bytes()
	pos := int32(0)
	outOff[0] = 0
	for i, j := range idx {
		s, e := offsets[j], offsets[j+1]
		pos += int32(copy(out[pos:], values[s:e]))
		outOff[i+1] = pos
	}
	validity, nulls := takeValidity(mem, c, idx)
	data := array.NewData(c.DataType(), n, []*memory.Buffer{validity, ob, vb}, nil, nulls, 0)
	ob.Release()
	vb.Release()
	if validity != nil {
		validity.Release()
	}
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
