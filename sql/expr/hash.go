package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Hashing and row equality for grouping, DISTINCT and hash joins. Equal rows (NULL = NULL,
// NaN = NaN, -0.0 = 0.0) hash equally when the columns have the same types.

const (
	hashPrime = 0x100000001b3
	nullHash  = 0x9e3779b97f4a7c15
)

func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func hashBytes(h uint64, b []byte) uint64 {
	h ^= 0xcbf29ce484222325
	for _, c := range b {
		h ^= uint64(c)
		h *= hashPrime
	}
	return mix64(h + uint64(len(b)))
}

func hashString(h uint64, s string) uint64 {
	h ^= 0xcbf29ce484222325
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= hashPrime
	}
	return mix64(h + uint64(len(s)))
}

func combine(h, v uint64) uint64 { return mix64(h*31 + v) }

func floatBits(f float64) uint64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

// HashColumns sets out[i] to the hash of row i over cols (len(out) = rows), starting from seed.
func HashColumns(cols []arrow.Array, seed uint64, out []uint64) {
	for i := range out {
		out[i] = seed
	}
	for _, c := range cols {
		hashColumn(c, out)
	}
}

func hashColumn(c arrow.Array, out []uint64) {
	noNull := c.NullN() == 0
	switch a := c.(type) {
	case *array.Int64:
		for i, v := range a.Int64Values() {
			if noNull || a.IsValid(i) {
				out[i] = combine(out[i], uint64(v))
			} else {
				out[i] = combine(out[i], nullHash)
			}
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			if noNull || a.IsValid(i) {
				out[i] = combine(out[i], uint64(int64(v)))
			} else {
				out[i] = combine(out[i], nullHash)
			}
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			if noNull || a.IsValid(i) {
				out[i] = combine(out[i], floatBits(v))
			} else {
				out[i] = combine(out[i], nullHash)
			}
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			if noNull || a.IsValid(i) {
				out[i] = combine(out[i], uint64(int64(v)))
			} else {
				out[i] = combine(out[i], nullHash)
			}
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			if noNull || a.IsValid(i) {
				out[i] = combine(out[i], uint64(v))
			} else {
				out[i] = combine(out[i], nullHash)
			}
		}
	case *array.Boolean:
		for i := range out {
			switch {
			case !noNull && a.IsNull(i):
				out[i] = combine(out[i], nullHash)
			case a.Value(i):
				out[i] = combine(out[i], 1)
			default:
				out[i] = combine(out[i], 0)
			}
		}
	case *array.Decimal128:
		for i, v := range a.Values() {
			if noNull || a.IsValid(i) {
				out[i] = combine(combine(out[i], v.LowBits()), uint64(v.HighBits()))
			} else {
				out[i] = combine(out[i], nullHash)
			}
		}
	case *array.String:
		for i := range out {
			if noNull || a.IsValid(i) {
				out[i] = combine(out[i], hashString(0, a.Value(i)))
			} else {
				out[i] = combine(out[i], nullHash)
			}
		}
	default:
		t, err := sqltypes.FromArrow(c.DataType())
		if err != nil {
			t = sqltypes.StringType
		}
		for i := range out {
			out[i] = combine(out[i], hashValue(ValueAt(c, i, t), t))
		}
	}
}

// hashValue hashes a Go value consistently with the typed fast paths.
func hashValue(v any, t sqltypes.DataType) uint64 {
	switch x := v.(type) {
	case nil:
		return nullHash
	case bool:
		if x {
			return 1
		}
		return 0
	case int8, int16, int32, int64:
		return uint64(toInt64(x))
	case float32:
		return floatBits(float64(x))
	case float64:
		return floatBits(x)
	case string:
		return hashString(0, x)
	case []byte:
		return hashBytes(0, x)
	}
	return hashString(1, keyString(v, t))
}

// RowsEqual compares row i of colsA with row j of colsB (same types); NULL equals NULL.
func RowsEqual(colsA []arrow.Array, i int, colsB []arrow.Array, j int) bool {
	for k := range colsA {
		if !valuesEqualAt(colsA[k], i, colsB[k], j) {
			return false
		}
	}
	return true
}

func valuesEqualAt(a arrow.Array, i int, b arrow.Array, j int) bool {
	an, bn := isNullAt(a, i), isNullAt(b, j)
	if an || bn {
		return an && bn
	}
	switch x := a.(type) {
	case *array.Int64:
		if y, ok := b.(*array.Int64); ok {
			return x.Value(i) == y.Value(j)
		}
	case *array.Int32:
		if y, ok := b.(*array.Int32); ok {
			return x.Value(i) == y.Value(j)
		}
	case *array.String:
		if y, ok := b.(*array.String); ok {
			return x.Value(i) == y.Value(j)
		}
	case *array.Float64:
		if y, ok := b.(*array.Float64); ok {
			return floatBits(x.Value(i)) == floatBits(y.Value(j))
		}
	case *array.Date32:
		if y, ok := b.(*array.Date32); ok {
			return x.Value(i) == y.Value(j)
		}
	case *array.Timestamp:
		if y, ok := b.(*array.Timestamp); ok {
			return x.Value(i) == y.Value(j)
		}
	case *array.Boolean:
		if y, ok := b.(*array.Boolean); ok {
			return x.Value(i) == y.Value(j)
		}
	case *array.Decimal128:
		if y, ok := b.(*array.Decimal128); ok {
			return x.Value(i) == y.Value(j)
		}
	}
	t, err := sqltypes.FromArrow(a.DataType())
	if err != nil {
		return false
	}
	va, vb := ValueAt(a, i, t), ValueAt(b, j, t)
	switch t.Kind {
	case sqltypes.Array, sqltypes.Struct, sqltypes.Map:
		return keyString(va, t) == keyString(vb, t)
	}
	return valueKey(va, t) == valueKey(vb, t)
}
