package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// buildNumeric makes an array of arrow type dt from values and validity (nil = all valid).
func buildNumeric[T fastNum](mem memory.Allocator, vals []T, valid []bool) arrow.Array {
	switch v := any(vals).(type) {
	case []int32:
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.AppendValues(v, valid)
		return b.NewArray()
	case []int64:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(v, valid)
		return b.NewArray()
	case []float64:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.AppendValues(v, valid)
		return b.NewArray()
	}
	return nil
}

func buildBools(mem memory.Allocator, vals []bool, valid []bool) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

// isNullAt is IsNull that also treats every row of a null-typed array as NULL.
func isNullAt(a arrow.Array, i int) bool {
	return a.DataType().ID() == arrow.NULL || a.IsNull(i)
}
