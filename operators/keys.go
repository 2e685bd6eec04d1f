package operators

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Row hashing, equality and ordering over Arrow columns (Spark's semantics: NaN equals NaN and
// sorts above every number, -0.0 equals 0.0, NULL sorts first ascending).

// hashColumns and rowsEqual are expr's: equal rows (NULL = NULL, NaN = NaN, -0.0 = 0.0) hash
// alike.
var (
	hashColumns = expr.HashColumns
	rowsEqual   = expr.RowsEqual
)

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
		return expr.CompareFloat(float64(x.Value(i)), floatValue(b, j))
	case *array.Float64:
		return expr.CompareFloat(x.Value(i), floatValue(b, j))
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
