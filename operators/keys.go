package operators

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/sqltypes"
)

// Row hashing, equality and ordering over Arrow columns. These are the operators' own: they
// need only what grouping, joining and sorting need (Spark's semantics: integers of any width
// hash alike, NaN equals NaN, -0.0 equals 0.0, NULL sorts first ascending).

// hashSeed is fixed for the process so every partition hashes alike.
var hashSeed = maphash.MakeSeed()

const nullHash = 0x9e3779b97f4a7c15

// hashColumns sets out[i] to the hash of row i over cols (seed mixes in first).
func hashColumns(cols []arrow.Array, seed uint64, out []uint64) {
	for i := range out {
		out[i] = seed
	}
	var h maphash.Hash
	h.SetSeed(hashSeed)
	var buf [8]byte
	for _, c := range cols {
		for i := range out {
			h.Reset()
			binary.LittleEndian.PutUint64(buf[:], out[i])
			h.Write(buf[:])
			hashValue(&h, c, i)
			out[i] = h.Sum64()
		}
	}
}

func writeU64(h *maphash.Hash, v uint64) {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], v)
	h.Write(buf[:])
}

func normFloat(f float64) uint64 {
	if f == 0 {
		return 0
	}
	if math.IsNaN(f) {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

// hashValue writes row i of a into h.
func hashValue(h *maphash.Hash, a arrow.Array, i int) {
	if a.IsNull(i) {
		writeU64(h, nullHash)
		return
	}
	switch c := a.(type) {
	case *array.Int8:
		writeU64(h, uint64(c.Value(i)))
	case *array.Int16:
		writeU64(h, uint64(c.Value(i)))
	case *array.Int32:
		writeU64(h, uint64(c.Value(i)))
	case *array.Int64:
		writeU64(h, uint64(c.Value(i)))
	case *array.Date32:
		writeU64(h, uint64(c.Value(i)))
	case *array.Timestamp:
		writeU64(h, uint64(c.Value(i)))
	case *array.Duration:
		writeU64(h, uint64(c.Value(i)))
	case *array.MonthInterval:
		writeU64(h, uint64(c.Value(i)))
	case *array.Boolean:
		if c.Value(i) {
			writeU64(h, 1)
		} else {
			writeU64(h, 0)
		}
	case *array.Float32:
		writeU64(h, normFloat(float64(c.Value(i))))
	case *array.Float64:
		writeU64(h, normFloat(c.Value(i)))
	case *array.String:
		h.WriteString(c.Value(i))
	case *array.Binary:
		h.Write(c.Value(i))
	case *array.Decimal128:
		v := c.Value(i)
		writeU64(h, v.LowBits())
		writeU64(h, uint64(v.HighBits()))
	case array.ListLike:
		start, end := c.ValueOffsets(i)
		writeU64(h, uint64(end-start))
		vals := c.ListValues()
		for j := int(start); j < int(end); j++ {
			hashValue(h, vals, j)
		}
	case *array.Struct:
		for f := 0; f < c.NumField(); f++ {
			hashValue(h, c.Field(f), i)
		}
	default:
		h.WriteString(a.ValueStr(i))
	}
}

// rowsEqual reports whether row i of a equals row j of b column by column, NULL equal to NULL
// (grouping semantics; joins check nulls first).
func rowsEqual(a []arrow.Array, i int, b []arrow.Array, j int) bool {
	for c := range a {
		if compareAt(a[c], i, b[c], j) != 0 {
			return false
		}
	}
	return true
}

// anyNull reports whether row i has a NULL in any of cols.
func anyNull(cols []arrow.Array, i int) bool {
	for _, c := range cols {
		if c.IsNull(i) {
			return true
		}
	}
	return false
}

func cmp[T int8 | int16 | int32 | int64 | uint64 | string](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// compareFloat orders floats with NaN above everything and -0.0 equal to 0.0.
func compareFloat(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// compareAt orders row i of a against row j of b (same type), NULL first.
func compareAt(a arrow.Array, i int, b arrow.Array, j int) int {
	an, bn := a.IsNull(i), b.IsNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	switch x := a.(type) {
	case *array.Int8:
		return cmp(int64(x.Value(i)), intValue(b, j))
	case *array.Int16:
		return cmp(int64(x.Value(i)), intValue(b, j))
	case *array.Int32:
		return cmp(int64(x.Value(i)), intValue(b, j))
	case *array.Int64:
		return cmp(x.Value(i), intValue(b, j))
	case *array.Date32:
		return cmp(int64(x.Value(i)), int64(b.(*array.Date32).Value(j)))
	case *array.Timestamp:
		return cmp(int64(x.Value(i)), int64(b.(*array.Timestamp).Value(j)))
	case *array.Duration:
		return cmp(int64(x.Value(i)), int64(b.(*array.Duration).Value(j)))
	case *array.MonthInterval:
		return cmp(int64(x.Value(i)), int64(b.(*array.MonthInterval).Value(j)))
	case *array.Boolean:
		return cmp(boolInt(x.Value(i)), boolInt(b.(*array.Boolean).Value(j)))
	case *array.Float32:
		return compareFloat(float64(x.Value(i)), floatValue(b, j))
	case *array.Float64:
		return compareFloat(x.Value(i), floatValue(b, j))
	case *array.String:
		return cmp(x.Value(i), b.(*array.String).Value(j))
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j))
	case *array.Decimal128:
		return decimal128.Num.Cmp(x.Value(i), b.(*array.Decimal128).Value(j))
	case array.ListLike:
		y := b.(array.ListLike)
		xs, xe := x.ValueOffsets(i)
		ys, ye := y.ValueOffsets(j)
		for k := int64(0); xs+k < xe && ys+k < ye; k++ {
			if c := compareAt(x.ListValues(), int(xs+k), y.ListValues(), int(ys+k)); c != 0 {
				return c
			}
		}
		return cmp(xe-xs, ye-ys)
	case *array.Struct:
		y := b.(*array.Struct)
		for f := 0; f < x.NumField(); f++ {
			if c := compareAt(x.Field(f), i, y.Field(f), j); c != 0 {
				return c
			}
		}
		return 0
	}
	return cmp(a.ValueStr(i), b.ValueStr(j))
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func intValue(a arrow.Array, i int) int64 {
	switch x := a.(type) {
	case *array.Int8:
		return int64(x.Value(i))
	case *array.Int16:
		return int64(x.Value(i))
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Int64:
		return x.Value(i)
	}
	panic("operators: not an integer column: " + a.DataType().String())
}

func floatValue(a arrow.Array, i int) float64 {
	switch x := a.(type) {
	case *array.Float32:
		return float64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	}
	panic("operators: not a floating-point column: " + a.DataType().String())
}

// valuesAt reads row i of cols as Go values of types ts.
func valuesAt(cols []arrow.Array, i int, ts []sqltypes.DataType) []any {
	out := make([]any, len(cols))
	for c, a := range cols {
		out[c] = expr.ValueAt(a, i, ts[c])
	}
	return out
}
