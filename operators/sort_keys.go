package operators

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// sortOrder compares rows by sort keys. When every key is of a fixed-width type (integers,
// dates, timestamps, intervals, floats, booleans) rows compare by normalized keys: per key two
// words, a null rank (nulls first or last whatever the direction) and the value mapped to an
// order-preserving uint64 (NaN above +Inf, -0.0 equal to 0.0; inverted when descending), so a
// comparison is a few integer compares. Other keys compare through compareAt.
type sortOrder struct {
	keys       []SortKey
	normalized bool
}

// newSortOrder decides from the first evaluated key columns whether rows normalize; every
// later batch of the same keys has the same types.
func newSortOrder(keys []SortKey, cols []arrow.Array) *sortOrder {
	o := &sortOrder{keys: keys, normalized: true}
	for _, c := range cols {
		if !normalizable(c) {
			o.normalized = false
		}
	}
	return o
}

func normalizable(c arrow.Array) bool {
	switch c.(type) {
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Date32, *array.Timestamp,
		*array.Duration, *array.MonthInterval, *array.Boolean, *array.Float32, *array.Float64:
		return true
	}
	return false
}

// rowKeys are the evaluated sort keys of a run of rows: normalized words (2 per key per row)
// or the key columns.
type rowKeys struct {
	norm []uint64
	cols []arrow.Array
}

// encode evaluates cols (the key columns of n rows) into rowKeys; the columns are kept (and
// must stay alive) only when rows do not normalize.
func (o *sortOrder) encode(cols []arrow.Array) rowKeys {
	if !o.normalized {
		return rowKeys{cols: cols}
	}
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	w := 2 * len(cols)
	norm := make([]uint64, n*w)
	for k, c := range cols {
		key := o.keys[k]
		nullRank := uint64(2)
		if key.NullsFirst {
			nullRank = 0
		}
		var flip uint64
		if key.Descending {
			flip = math.MaxUint64
		}
		vals := norm[2*k:]
		setNull := func(i int) { vals[i*w], vals[i*w+1] = nullRank, 0 }
		put := func(i int, v uint64) { vals[i*w], vals[i*w+1] = 1, v^flip }
		switch x := c.(type) {
		case *array.Int8:
			for i, v := range x.Int8Values() {
				put(i, uint64(int64(v))^1<<63)
			}
		case *array.Int16:
			for i, v := range x.Int16Values() {
				put(i, uint64(int64(v))^1<<63)
			}
		case *array.Int32:
			for i, v := range x.Int32Values() {
				put(i, uint64(int64(v))^1<<63)
			}
		case *array.MonthInterval:
			for i, v := range x.MonthIntervalValues() {
				put(i, uint64(int64(v))^1<<63)
			}
		case *array.Date32:
			for i, v := range x.Date32Values() {
				put(i, uint64(int64(v))^1<<63)
			}
		case *array.Int64:
			for i, v := range x.Int64Values() {
				put(i, uint64(v)^1<<63)
			}
		case *array.Timestamp:
			for i, v := range x.TimestampValues() {
				put(i, uint64(v)^1<<63)
			}
		case *array.Duration:
			for i, v := range x.DurationValues() {
				put(i, uint64(v)^1<<63)
			}
		case *array.Boolean:
			for i := range n {
				put(i, uint64(boolInt(x.Value(i))))
			}
		case *array.Float32:
			for i, v := range x.Float32Values() {
				put(i, floatKey(float64(v)))
			}
		case *array.Float64:
			for i, v := range x.Float64Values() {
				put(i, floatKey(v))
			}
		}
		if c.NullN() > 0 {
			for i := range n {
				if c.IsNull(i) {
					setNull(i)
				}
			}
		}
	}
	return rowKeys{norm: norm}
}

// floatKey maps a double to an order-preserving uint64 with Spark's ordering: -0.0 = 0.0,
// every NaN equal and above +Inf.
func floatKey(f float64) uint64 {
	switch {
	case f != f:
		return math.MaxUint64
	case f == 0:
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// compare orders row i of a against row j of b (negative: i first).
func (o *sortOrder) compare(a *rowKeys, i int, b *rowKeys, j int) int {
	if o.normalized {
		w := 2 * len(o.keys)
		x, y := a.norm[i*w:(i+1)*w], b.norm[j*w:(j+1)*w]
		for k := range x {
			if x[k] != y[k] {
				if x[k] < y[k] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	for k, key := range o.keys {
		ca, cb := a.cols[k], b.cols[k]
		an, bn := ca.IsNull(i), cb.IsNull(j)
		if an || bn {
			if an && bn {
				continue
			}
			if an == key.NullsFirst {
				return -1
			}
			return 1
		}
		r := compareAt(ca, i, cb, j)
		if key.Descending {
			r = -r
		}
		if r != 0 {
			return r
		}
	}
	return 0
}
