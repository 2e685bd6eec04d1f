package operators

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fixedKeyIDs maps the values of up to maxFixedKeys integer-like grouping keys (byte to long,
// date, timestamp) to dense group ids by open addressing over the values themselves: a batch
// aggregate's lookup without row hashing or row compares. A key row is stride words: a bit
// mask of its NULL keys, then each key's value (0 when NULL). The key rows of new groups still
// go to the aggregate's rowTable (rowTable.add), which builds the output keys.
type fixedKeyIDs struct {
	stride int
	// slots holds stride+1 words per slot: id+1 (0: empty), then the key row; one cache
	// line per probe for a few keys.
	slots []int64
	size  int // slots
	n     int
	// direct, for a single key whose values span less than maxDirectKeys, is the group id + 1
	// of value base+i at i (0: look it up in slots); noDirect: the span grew past that.
	direct   []uint32
	base     int64
	noDirect bool
}

// maxFixedKeys bounds the keys fixedKeyIDs takes (the NULL mask is one word).
const maxFixedKeys = 4

// fixedKeyType reports whether a key of type t can group through fixedKeyIDs.
func fixedKeyType(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Date,
		sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return true
	}
	return false
}

// fixedKeyTypes reports whether keys of types ts can group through fixedKeyIDs.
func fixedKeyTypes(ts []sqltypes.DataType) bool {
	if len(ts) == 0 || len(ts) > maxFixedKeys {
		return false
	}
	for _, t := range ts {
		if !fixedKeyType(t) {
			return false
		}
	}
	return true
}

func newFixedKeyIDs(keys int) *fixedKeyIDs { return &fixedKeyIDs{stride: keys + 1} }

// sameRow compares a slot's key row with row.
func sameRow(slot, row []int64) bool {
	if len(row) == 2 {
		return slot[0] == row[0] && slot[1] == row[1]
	}
	return slices.Equal(slot, row)
}

// keyInts reads a key column as int64 values, or nil for another layout.
func keyInts(a arrow.Array) []int64 {
	switch x := a.(type) {
	case *array.Int64:
		if x.Len() == 0 {
			return []int64{} // Int64Values is nil for no rows
		}
		return x.Int64Values()
	case *array.Timestamp:
		out := make([]int64, x.Len())
		for i, v := range x.TimestampValues() {
			out[i] = int64(v)
		}
		return out
	case *array.Int32:
		return widenInts(x.Int32Values())
	case *array.Date32:
		out := make([]int64, x.Len())
		for i, v := range x.Date32Values() {
			out[i] = int64(v)
		}
		return out
	case *array.Int16:
		return widenInts(x.Int16Values())
	case *array.Int8:
		return widenInts(x.Int8Values())
	}
	return nil
}

func widenInts[T int8 | int16 | int32](vs []T) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// fixedHash hashes a key row (fixedJoinTable.probe inlines it for one-word rows).
func fixedHash(row []int64) uint64 {
	h := uint64(0x243f6a8885a308d3)
	for _, v := range row {
		h = (h ^ uint64(v)) * 0x9e3779b97f4a7c15
		h ^= h >> 32
	}
	return h
}

// lookup sets groups[i] to the group of row i of keys, creating groups (create returns the
// next dense id) for new key rows and recording their rows in table. ok is false when a
// column's layout is not an integer one (the caller then looks up through the row table).
func (t *fixedKeyIDs) lookup(table *rowTable, keys []arrow.Array, groups []uint32, create func() uint32) (ok bool, err error) {
	cols := make([][]int64, len(keys))
	nulls := false
	for k, c := range keys {
		if cols[k] = keyInts(c); cols[k] == nil {
			return false, nil
		}
		nulls = nulls || c.NullN() > 0
	}
	row := make([]int64, t.stride)
	var fresh []int64
	if len(cols) == 1 && t.covers(cols[0]) {
		c, base := cols[0], t.base
		for i, v := range c {
			if nulls && keys[0].IsNull(i) {
				row[0], row[1] = 1, 0
				fresh = t.probe(row, i, groups, create, fresh)
				continue
			}
			d := &t.direct[uint64(v)-uint64(base)]
			if *d != 0 {
				groups[i] = *d - 1
				continue
			}
			row[0], row[1] = 0, v
			fresh = t.probe(row, i, groups, create, fresh)
			*d = groups[i] + 1
		}
		return true, table.add(keys, fresh)
	}
	// A row with the previous row's keys takes its group without a probe: rows clustered by
	// key (a file sorted by it, lineitem by l_orderkey) probe once per run.
	prev := make([]int64, t.stride)
	for i := range groups {
		row[0] = 0
		for k, c := range cols {
			row[k+1] = c[i]
			if nulls && keys[k].IsNull(i) {
				row[0] |= 1 << k
				row[k+1] = 0
			}
		}
		if i > 0 && sameRow(prev, row) {
			groups[i] = groups[i-1]
			continue
		}
		fresh = t.probe(row, i, groups, create, fresh)
		prev, row = row, prev
	}
	return true, table.add(keys, fresh)
}

// probe sets groups[i] to key row's group, creating it (and appending i to fresh) when new.
func (t *fixedKeyIDs) probe(row []int64, i int, groups []uint32, create func() uint32, fresh []int64) []int64 {
	if 2*(t.n+1) > t.size {
		t.grow()
	}
	w := t.stride + 1
	mask := uint64(t.size - 1)
	for s := fixedHash(row) & mask; ; s = (s + 1) & mask {
		slot := t.slots[int(s)*w : int(s+1)*w]
		if slot[0] == 0 {
			g := create()
			slot[0] = int64(g) + 1
			copy(slot[1:], row)
			t.n++
			groups[i] = g
			return append(fresh, int64(i))
		}
		if sameRow(slot[1:], row) {
			groups[i] = uint32(slot[0] - 1)
			return fresh
		}
	}
}

// maxDirectKeys bounds the span of values a single key's direct table covers (256 KiB of ids).
const maxDirectKeys = 1 << 16

// covers reports whether the direct table of a single key covers every value of c, growing it
// to the span of the values seen so far while that stays within maxDirectKeys (after which
// the key goes through the open-addressing slots only). The direct table caches the slots'
// ids by value (0: not cached yet), so the two never disagree.
func (t *fixedKeyIDs) covers(c []int64) bool {
	if t.noDirect || len(c) == 0 {
		return false
	}
	lo, hi := c[0], c[0]
	for _, v := range c {
		lo, hi = min(lo, v), max(hi, v)
	}
	if t.direct != nil {
		if lo >= t.base && uint64(hi)-uint64(t.base) < uint64(len(t.direct)) {
			return true
		}
		lo, hi = min(lo, t.base), max(hi, t.base+int64(len(t.direct))-1)
	}
	if uint64(hi)-uint64(lo) >= maxDirectKeys {
		t.noDirect, t.direct = true, nil
		return false
	}
	d := make([]uint32, hi-lo+1)
	if t.direct != nil {
		copy(d[t.base-lo:], t.direct)
	}
	t.direct, t.base = d, lo
	return true
}

func (t *fixedKeyIDs) grow() {
	w := t.stride + 1
	old := t.slots
	t.size = max(1024, 2*t.size)
	t.slots = make([]int64, t.size*w)
	mask := uint64(t.size - 1)
	for k := 0; k+w <= len(old); k += w {
		if old[k] == 0 {
			continue
		}
		s := fixedHash(old[k+1:k+w]) & mask
		for t.slots[int(s)*w] != 0 {
			s = (s + 1) & mask
		}
		copy(t.slots[int(s)*w:], old[k:k+w])
	}
}
