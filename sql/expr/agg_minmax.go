package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// numMinMaxAcc is min/max over int32, int64 and float64 values read from raw slices, with a
// per-group multiset (value → count) so any row can be retracted. An insert-only one (batch
// aggregation, see InsertOnly) keeps only the best value per group.
type numMinMaxAcc[T fastNum] struct {
	t          sqltypes.DataType
	isMax      bool
	insertOnly bool
	best       []T
	has        []bool
	counts     []map[T]int32
	nans       []int32
	size       int64
}

func newNumMinMax[T fastNum](t sqltypes.DataType, isMax bool) *numMinMaxAcc[T] {
	return &numMinMaxAcc[T]{t: t, isMax: isMax}
}

func (a *numMinMaxAcc[T]) Grow(n int) {
	a.best, a.has, a.counts = growTo(a.best, n), growTo(a.has, n), growTo(a.counts, n)
	a.nans = growTo(a.nans, n)
}

func (a *numMinMaxAcc[T]) SizeBytes() int64 { return a.size + int64(len(a.best))*24 }

// canon maps NaN to one NaN payload and -0.0 to 0.0 so they are single multiset keys.
func canon[T fastNum](v T) T {
	if f, ok := any(v).(float64); ok {
		if math.IsNaN(f) {
			return T(math.Float64frombits(0x7ff8000000000000))
		}
		if f == 0 {
			return 0
		}
	}
	return v
}

func (a *numMinMaxAcc[T]) better(x, y T) bool {
	if f, ok := any(x).(float64); ok {
		c := CompareFloat(f, float64(y))
		return (a.isMax && c > 0) || (!a.isMax && c < 0)
	}
	return (a.isMax && x > y) || (!a.isMax && x < y)
}

func (a *numMinMaxAcc[T]) values(arr arrow.Array) []T {
	if _, isInt32 := any(T(0)).(int32); isInt32 {
		if d, ok := arr.(*array.Date32); ok {
			raw := d.Date32Values()
			out := make([]T, len(raw))
			for i, v := range raw {
				out[i] = T(v)
			}
			return out
		}
	}
	if v := rawValues[T](arr); v != nil {
		return v
	}
	if _, isInt64 := any(T(0)).(int64); isInt64 {
		if v := int64Like[T](arr); v != nil {
			return v
		}
	}
	// Other layouts (unsigned or differently-unit Arrow types) convert through Go values.
	out := make([]T, arr.Len())
	for i := range out {
		switch v := ValueAt(arr, i, a.t).(type) {
		case nil:
		case float64:
			out[i] = T(v)
		case float32:
			out[i] = T(v)
		default:
			out[i] = T(toInt64(v))
		}
	}
	return out
}

// insertOnlyAccumulator implements insertOnlyAccumulator: no multiset.
func (a *numMinMaxAcc[T]) insertOnlyAccumulator() GroupedAccumulator {
	a.insertOnly = true
	return a
}

// updateBest is the insert-only Update: a compare per row against the group's best.
func (a *numMinMaxAcc[T]) updateBest(groups []uint32, arr arrow.Array, vals []T) {
	noNull := arr.NullN() == 0
	if noNull && len(a.has) == 1 {
		a.updateBestOneGroup(vals[:len(groups)])
		return
	}
	for i, g := range groups {
		if !noNull && arr.IsNull(i) {
			continue
		}
		v := canon(vals[i])
		if !a.has[g] || a.better(v, a.best[g]) {
			a.best[g], a.has[g] = v, true
		}
	}
}

func (a *numMinMaxAcc[T]) Update(groups []uint32, args []arrow.Array) error {
	arr := args[0]
	vals := a.values(arr)
	if a.insertOnly {
		a.updateBest(groups, arr, vals)
		return nil
	}
	noNull := arr.NullN() == 0
	for i, g := range groups {
		if !noNull && arr.IsNull(i) {
			continue
		}
		v := canon(vals[i])
		if isNaNValue(v) {
			a.nans[g]++
		} else {
			m := a.counts[g]
			if m == nil {
				m = map[T]int32{}
				a.counts[g] = m
			}
			if m[v] == 0 {
				a.size += 16
			}
			m[v]++
		}
		if !a.has[g] || a.better(v, a.best[g]) {
			a.best[g], a.has[g] = v, true
		}
	}
	return nil
}

func (a *numMinMaxAcc[T]) Retract(groups []uint32, args []arrow.Array) error {
	if a.insertOnly {
		return errInsertOnly
	}
	arr := args[0]
	vals := a.values(arr)
	for i, g := range groups {
		if arr.IsNull(i) {
			continue
		}
		v := canon(vals[i])
		gone := false
		if isNaNValue(v) {
			if a.nans[g] > 0 {
				a.nans[g]--
			}
			gone = a.nans[g] == 0
		} else if m := a.counts[g]; m != nil {
			if c := m[v]; c <= 1 {
				delete(m, v)
				a.size -= 16
				gone = true
			} else {
				m[v] = c - 1
			}
		}
		if !gone || !a.has[g] || !(a.best[g] == v || (isNaNValue(v) && isNaNValue(a.best[g]))) {
			continue
		}
		a.has[g] = false
		if a.nans[g] > 0 {
			a.best[g], a.has[g] = T(math.NaN()), true
		}
		for k := range a.counts[g] {
			if !a.has[g] || a.better(k, a.best[g]) {
				a.best[g], a.has[g] = k, true
			}
		}
	}
	return nil
}

func isNaNValue[T fastNum](v T) bool {
	f, ok := any(v).(float64)
	return ok && math.IsNaN(f)
}

func (a *numMinMaxAcc[T]) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		if a.has[g] {
			out[i] = a.best[g]
		}
	}
	return BuildArray(ctx.mem(), a.t, ctx.tz(), out), nil
}

// newMinMaxAcc picks the typed kernel for t, or the generic multiset accumulator.
func newMinMaxAcc(t sqltypes.DataType, isMax bool) GroupedAccumulator {
	switch t.Kind {
	case sqltypes.Integer, sqltypes.Date:
		return newNumMinMax[int32](t, isMax)
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return newNumMinMax[int64](t, isMax)
	case sqltypes.Double:
		return newNumMinMax[float64](t, isMax)
	}
	return newValuesAcc(valuesMinMax, t, isMax, false)
}
