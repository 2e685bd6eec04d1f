package expr

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Raw-slice helpers for the vectorized kernels.

type fastNum interface{ ~int32 | ~int64 | ~float64 }

// rawValues returns the value slice of an int32/int64/float64 array, or nil.
func rawValues[T fastNum](a arrow.Array) []T {
	switch x := a.(type) {
	case *array.Int32:
		if v, ok := any(x.Int32Values()).([]T); ok {
			return v
		}
	case *array.Int64:
		if v, ok := any(x.Int64Values()).([]T); ok {
			return v
		}
	case *array.Float64:
		if v, ok := any(x.Float64Values()).([]T); ok {
			return v
		}
	}
	return nil
}

// validity returns per-row validity of the AND of arrays' validities, or nil when all are valid.
func validity(arrs ...arrow.Array) []bool {
	anyNull := false
	for _, a := range arrs {
		if a.NullN() > 0 {
			anyNull = true
		}
	}
	if !anyNull {
		return nil
	}
	n := arrs[0].Len()
	v := make([]bool, n)
	for i := range v {
		v[i] = true
	}
	for _, a := range arrs {
		if a.NullN() == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			if isNullAt(a, i) {
				v[i] = false
			}
		}
	}
	return v
}

// buildNumeric makes an array from values and validity (nil = all valid), copying the values
// into one buffer and packing the validity bits directly (no per-value builder calls).
func buildNumeric[T fastNum](mem memory.Allocator, vals []T, valid []bool) arrow.Array {
	var dt arrow.DataType
	switch any(vals).(type) {
	case []int32:
		dt = arrow.PrimitiveTypes.Int32
	case []int64:
		dt = arrow.PrimitiveTypes.Int64
	case []float64:
		dt = arrow.PrimitiveTypes.Float64
	default:
		return nil
	}
	n := len(vals)
	var zero T
	size := int(unsafe.Sizeof(zero))
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * size)
	if n > 0 {
		copy(buf.Bytes(), unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), n*size))
	}
	bitmap, nulls := packBits(mem, valid)
	data := array.NewData(dt, n, []*memory.Buffer{bitmap, buf}, nil, nulls, 0)
	buf.Release()
	if bitmap != nil {
		bitmap.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// packBits packs a validity slice into a bitmap and counts the false entries; nil or all-true
// validity gives a nil bitmap.
func packBits(mem memory.Allocator, valid []bool) (*memory.Buffer, int) {
	if valid == nil {
		return nil, 0
	}
	bm := packBools(mem, valid)
	nulls := len(valid) - bitutil.CountSetBits(bm.Bytes(), 0, len(valid))
	if nulls == 0 {
		bm.Release()
		return nil, 0
	}
	return bm, nulls
}

// packBools packs bools into a bitmap buffer, eight at a time.
func packBools(mem memory.Allocator, vals []bool) *memory.Buffer {
	n := len(vals)
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	out := buf.Bytes()
	full := n / 8
	for i := 0; i < full; i++ {
		v := vals[i*8 : i*8+8 : i*8+8]
		var b byte
		for j, x := range v {
			if x {
				b |= 1 << j
			}
		}
		out[i] = b
	}
	if rem := n % 8; rem > 0 {
		var b byte
		for j, x := range vals[full*8:] {
			if x {
				b |= 1 << j
			}
		}
		out[full] = b
	}
	return buf
}

func buildBools(mem memory.Allocator, vals []bool, valid []bool) arrow.Array {
	values := packBools(mem, vals)
	bitmap, nulls := packBits(mem, valid)
	data := array.NewData(arrow.FixedWidthTypes.Boolean, len(vals), []*memory.Buffer{bitmap, values}, nil, nulls, 0)
	values.Release()
	if bitmap != nil {
		bitmap.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// isNullAt is IsNull that also treats every row of a null-typed array as NULL.
func isNullAt(a arrow.Array, i int) bool {
	return a.DataType().ID() == arrow.NULL || a.IsNull(i)
}
