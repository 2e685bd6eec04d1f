package operators

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fixedKeyIDs maps the values of one integer-like grouping key (byte to long, date,
// timestamp) to dense group ids by open addressing over the values themselves: a batch
// aggregate's lookup without row hashing or row compares. The key rows of new groups still go
// to the aggregate's rowTable (rowTable.add), which builds the output keys.
type fixedKeyIDs struct {
	vals   []int64
	ids    []uint32 // id+1; 0 marks an empty slot
	n      int
	nullID uint32 // the NULL key's group, notFound before it appears
}

// fixedKeyType reports whether a key of type t can group through fixedKeyIDs.
func fixedKeyType(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Date,
		sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return true
	}
	return false
}

func newFixedKeyIDs() *fixedKeyIDs { return &fixedKeyIDs{nullID: notFound} }

// keyInts reads a key column as int64 values, or nil for another layout.
func keyInts(a arrow.Array) []int64 {
	switch x := a.(type) {
	case *array.Int64:
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

func fixedHash(v int64) uint64 {
	h := uint64(v) * 0x9e3779b97f4a7c15
	return h ^ h>>32
}

// lookup sets groups[i] to the group of row i's key, creating groups (create returns the next
// dense id) for new keys and recording their rows in table. ok is false when the column's
// layout is not an integer one (the caller then looks up through the row table).
func (t *fixedKeyIDs) lookup(table *rowTable, key arrow.Array, groups []uint32, create func() uint32) (ok bool, err error) {
	vals := keyInts(key)
	if vals == nil {
		return false, nil
	}
	nulls := key.NullN() > 0
	var fresh []int64
	for i, v := range vals {
		if nulls && key.IsNull(i) {
			if t.nullID == notFound {
				t.nullID = create()
				fresh = append(fresh, int64(i))
			}
			groups[i] = t.nullID
			continue
		}
		if 2*(t.n+1) > len(t.vals) {
			t.grow()
		}
		mask := uint64(len(t.vals) - 1)
		for s := fixedHash(v) & mask; ; s = (s + 1) & mask {
			id := t.ids[s]
			if id == 0 {
				g := create()
				t.vals[s], t.ids[s] = v, g+1
				t.n++
				groups[i] = g
				fresh = append(fresh, int64(i))
				break
			}
			if t.vals[s] == v {
				groups[i] = id - 1
				break
			}
		}
	}
	return true, table.add([]arrow.Array{key}, fresh)
}

func (t *fixedKeyIDs) grow() {
	size := max(1024, 2*len(t.vals))
	oldVals, oldIDs := t.vals, t.ids
	t.vals, t.ids = make([]int64, size), make([]uint32, size)
	mask := uint64(size - 1)
	for k, id := range oldIDs {
		if id == 0 {
			continue
		}
		s := fixedHash(oldVals[k]) & mask
		for t.ids[s] != 0 {
			s = (s + 1) & mask
		}
		t.vals[s], t.ids[s] = oldVals[k], id
	}
}
