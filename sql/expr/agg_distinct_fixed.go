package expr

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// insertOnlyAccumulator implements insertOnlyAccumulator: one fixed-width argument dedups
// through a typed (group, value) hash set; other arguments keep the per-group maps, over an
// insert-only inner accumulator.
func (d *distinctAcc) insertOnlyAccumulator() GroupedAccumulator {
	inner := InsertOnly(d.inner)
	if len(d.types) == 1 {
		if w, float := fixedKeyWidth(d.types[0]); w > 0 {
			return &fixedDistinctAcc{inner: inner, width: w, float: float}
		}
	}
	d.inner = inner
	return d
}

// fixedKeyWidth is the byte width of a type's Arrow values when DISTINCT can compare their
// bits (after canonicalizing floats), and whether they are floats; 0 when it cannot.
func fixedKeyWidth(t sqltypes.DataType) (int, bool) {
	switch t.Kind {
	case sqltypes.Byte:
		return 1, false
	case sqltypes.Short:
		return 2, false
	case sqltypes.Integer, sqltypes.Date:
		return 4, false
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return 8, false
	case sqltypes.Float:
		return 4, true
	case sqltypes.Double:
		return 8, true
	}
	return 0, false
}

// fixedDistinctAcc is the insert-only DISTINCT over one fixed-width argument: a value reaches
// the inner accumulator the first time its group sees it (the first NULL too, as the generic
// distinctAcc does), compared by bits with Spark's equality (NaN = NaN, -0.0 = 0.0).
type fixedDistinctAcc struct {
	inner GroupedAccumulator
	width int
	float bool
	seen  pairSet
	nulls []bool
}

func (d *fixedDistinctAcc) Grow(n int) {
	d.nulls = growTo(d.nulls, n)
	d.inner.Grow(n)
}

func (d *fixedDistinctAcc) SizeBytes() int64 {
	return int64(len(d.seen.vals))*12 + int64(len(d.nulls)) + d.inner.SizeBytes()
}

// keyBits reads row values as uint64 keys, canonical for equality.
func (d *fixedDistinctAcc) keyBits(arr arrow.Array) []uint64 {
	data := arr.Data()
	raw := data.Buffers()[1].Bytes()[data.Offset()*d.width:]
	n := arr.Len()
	out := make([]uint64, n)
	switch d.width {
	case 1:
		for i, v := range raw[:n] {
			out[i] = uint64(v)
		}
	case 2:
		for i, v := range unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(raw))), n) {
			out[i] = uint64(v)
		}
	case 4:
		vs := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(raw))), n)
		if d.float {
			for i, v := range vs {
				f := math.Float32frombits(v)
				switch {
				case f != f:
					v = 0x7fc00000
				case f == 0:
					v = 0
				}
				out[i] = uint64(v)
			}
			break
		}
		for i, v := range vs {
			out[i] = uint64(v)
		}
	case 8:
		copy(out, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(raw))), n))
		if d.float {
			for i, v := range out {
				f := math.Float64frombits(v)
				switch {
				case f != f:
					out[i] = 0x7ff8000000000000
				case f == 0:
					out[i] = 0
				}
			}
		}
	}
	return out
}

func (d *fixedDistinctAcc) Update(groups []uint32, args []arrow.Array) error {
	arr := args[0]
	if arr.Len() == 0 {
		return nil
	}
	keys := d.keyBits(arr)
	noNull := arr.NullN() == 0
	var fwd []int32
	for i, g := range groups {
		if !noNull && arr.IsNull(i) {
			if !d.nulls[g] {
				d.nulls[g] = true
				fwd = append(fwd, int32(i))
			}
			continue
		}
		if d.seen.insert(g, keys[i]) {
			fwd = append(fwd, int32(i))
		}
	}
	if len(fwd) == 0 {
		return nil
	}
	sub := gatherFixed(arr, d.width, fwd)
	defer sub.Release()
	gs := make([]uint32, len(fwd))
	for j, i := range fwd {
		gs[j] = groups[i]
	}
	return d.inner.Update(gs, []arrow.Array{sub})
}

func (d *fixedDistinctAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (d *fixedDistinctAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	return d.inner.Result(ctx, groups)
}

// gatherFixed builds an array of arr's type from its rows idx; arr holds width-byte values.
func gatherFixed(arr arrow.Array, width int, idx []int32) arrow.Array {
	data := arr.Data()
	raw := data.Buffers()[1].Bytes()[data.Offset()*width:]
	vals := make([]byte, len(idx)*width)
	for j, i := range idx {
		copy(vals[j*width:(j+1)*width], raw[int(i)*width:int(i+1)*width])
	}
	var valid *memory.Buffer
	nulls := 0
	if arr.NullN() > 0 {
		bits := make([]byte, bitutil.BytesForBits(int64(len(idx))))
		for j, i := range idx {
			if arr.IsValid(int(i)) {
				bitutil.SetBit(bits, j)
			} else {
				nulls++
			}
		}
		valid = memory.NewBufferBytes(bits)
	}
	out := array.NewData(arr.DataType(), len(idx), []*memory.Buffer{valid, memory.NewBufferBytes(vals)}, nil, nulls, 0)
	defer out.Release()
	return array.MakeFromData(out)
}

// pairSet is an open-addressing hash set of (group, value bits) pairs.
type pairSet struct {
	vals   []uint64
	groups []uint32 // group+1; 0 marks an empty slot
	n      int
}

func pairHash(g uint32, v uint64) uint64 {
	h := (v ^ uint64(g)<<32 ^ uint64(g)) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// insert adds (g, v) and reports whether it was new.
func (s *pairSet) insert(g uint32, v uint64) bool {
	if 2*(s.n+1) > len(s.vals) {
		s.grow()
	}
	mask := uint64(len(s.vals) - 1)
	for i := pairHash(g, v) & mask; ; i = (i + 1) & mask {
		switch s.groups[i] {
		case 0:
			s.vals[i], s.groups[i] = v, g+1
			s.n++
			return true
		case g + 1:
			if s.vals[i] == v {
				return false
			}
		}
	}
}

func (s *pairSet) grow() {
	size := max(1024, 2*len(s.vals))
	old := *s
	s.vals, s.groups, s.n = make([]uint64, size), make([]uint32, size), 0
	for i, g := range old.groups {
		if g != 0 {
			s.insert(g-1, old.vals[i])
		}
	}
}
