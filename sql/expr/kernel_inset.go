package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// IN kernels: value IN (constants) looks each row's raw value up in a set typed by the
// comparison type (int64 keys for integers, dates and timestamps; strings read from the Arrow
// data buffer without allocating; decimal128 values; doubles by floatKey, so NaN = NaN and
// -0.0 = 0.0), writing the hits as bits. A row is then TRUE on a hit, else FALSE, or NULL when
// the list holds a NULL (NOT IN over a list with a NULL is never TRUE); a NULL value is NULL.
// An IN list of InSetThreshold values or fewer keeps Spark's In plan shape (inList) and uses
// the same set when its values are constants.

// kernel looks col up; ok is false when col is not of a layout the set reads raw.
func (s *inSet) kernel(ctx *Context, col arrow.Array) (arrow.Array, bool) {
	n := col.Len()
	hits := make([]byte, bitutil.BytesForBits(int64(n)))
	ok := false
	switch {
	case s.ints != nil:
		switch col.DataType().ID() {
		case arrow.INT8:
			ok = intHits[int8](col, s.ints, hits)
		case arrow.INT16:
			ok = intHits[int16](col, s.ints, hits)
		case arrow.INT32, arrow.DATE32:
			ok = intHits[int32](col, s.ints, hits)
		case arrow.INT64, arrow.TIMESTAMP:
			ok = intHits[int64](col, s.ints, hits)
		}
	case s.strs != nil:
		if v, isStr := viewOf(col); isStr {
			for i := 0; i < n; i++ {
				if _, hit := s.strs[v.at(i)]; hit {
					hits[i>>3] |= 1 << (i & 7)
				}
			}
			ok = true
		}
	case s.decs != nil:
		if d, isDec := col.(*array.Decimal128); isDec {
			for i, x := range d.Values() {
				if _, hit := s.decs[x]; hit {
					hits[i>>3] |= 1 << (i & 7)
				}
			}
			ok = true
		}
	case s.flts != nil:
		switch col.DataType().ID() {
		case arrow.FLOAT64:
			ok = floatHits[float64](col, s.flts, hits)
		case arrow.FLOAT32:
			ok = floatHits[float32](col, s.flts, hits)
		}
	}
	if !ok {
		return nil, false
	}
	var t, f []byte
	if col.NullN() == 0 {
		t = hits
		f = make([]byte, len(hits))
		if !s.hasNull {
			for i := range f {
				f[i] = ^hits[i]
			}
		}
	} else {
		valid := make([]byte, len(hits))
		bitutil.CopyBitmap(col.NullBitmapBytes(), col.Data().Offset(), n, valid, 0)
		t, f = hits, make([]byte, len(hits))
		for i, v := range valid {
			t[i] &= v
			if !s.hasNull {
				f[i] = v &^ hits[i]
			}
		}
	}
	if r := n & 7; r != 0 {
		f[len(f)-1] &= byte(1)<<r - 1
	}
	return boolsFromBits(ctx.mem(), n, t, f), true
}

func intHits[T int8 | int16 | int32 | int64](col arrow.Array, set map[int64]struct{}, hits []byte) bool {
	xs, ok := numSlice[T](col)
	if !ok {
		return false
	}
	for i, x := range xs {
		if _, hit := set[int64(x)]; hit {
			hits[i>>3] |= 1 << (i & 7)
		}
	}
	return true
}

func floatHits[T float32 | float64](col arrow.Array, set map[uint64]struct{}, hits []byte) bool {
	xs, ok := numSlice[T](col)
	if !ok {
		return false
	}
	for i, x := range xs {
		if _, hit := set[floatKey(float64(x))]; hit {
			hits[i>>3] |= 1 << (i & 7)
		}
	}
	return true
}
