package operators

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// byteKeyIDs maps the rows of a batch aggregate's grouping keys that are strings, binaries,
// decimals or booleans, alone or mixed with integer-like keys, to dense group ids without a Go
// value or string per row: each batch's key rows are normalized column by column into one byte
// key per row (per key: a NULL flag byte, then the value: 8 bytes for integers, 16 for a
// decimal, 1 for a boolean, a 4-byte length and the bytes for a string or binary; the layout
// is fixed by the key types, so equal byte keys are equal key rows), hashed with the runtime's
// memory hash and found by open addressing over the groups' byte keys, which live in one
// arena. As with fixedKeyIDs, the key rows of new groups go to the aggregate's rowTable
// (rowTable.add), which builds the output keys.
type byteKeyIDs struct {
	seed maphash.Seed
	// slots holds, per slot, the key's hash and its group id + 1 (0: empty).
	slots []byteKeySlot
	n     int
	// arena holds the groups' byte keys, group g's at arena[ends[g-1]:ends[g]] (ends[-1] = 0).
	arena []byte
	ends  []int
	// Per batch buffers: each row's byte key is buf[offs[i]:offs[i+1]]; hs the keys' hashes.
	buf  []byte
	offs []int
	pos  []int
	hs   []uint64
}

type byteKeySlot struct {
	hash uint64
	id   uint32 // group id + 1; 0: empty
}

// byteKeyType reports whether a key of type t can group through byteKeyIDs. Collated strings
// compare by their collation, not their bytes: they keep the row table.
func byteKeyType(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.String:
		return t.StringCollation == ""
	case sqltypes.Binary, sqltypes.Decimal, sqltypes.Boolean:
		return true
	}
	return fixedKeyType(t)
}

// byteKeyTypes reports whether keys of types ts can group through byteKeyIDs.
func byteKeyTypes(ts []sqltypes.DataType) bool {
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if !byteKeyType(t) {
			return false
		}
	}
	return true
}

func newByteKeyIDs() *byteKeyIDs { return &byteKeyIDs{seed: maphash.MakeSeed()} }

// keyWidth is the fixed part of a key column's encoding per row (the NULL flag included) and
// whether the column's layout is one encodeKeys handles.
func keyWidth(c arrow.Array) (int, bool) {
	switch c.(type) {
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Date32, *array.Timestamp:
		return 9, true
	case *array.Decimal128:
		return 17, true
	case *array.Boolean:
		return 2, true
	case *array.String, *array.Binary:
		return 5, true
	}
	return 0, false
}

// encodeKeys normalizes the rows of keys into t.buf and t.offs; false when a column's layout
// is not one it handles.
func (t *byteKeyIDs) encodeKeys(keys []arrow.Array, n int) bool {
	fixed := 0
	for _, c := range keys {
		w, ok := keyWidth(c)
		if !ok {
			return false
		}
		fixed += w
	}
	// Row sizes: the fixed part plus the string bytes of every valid string value.
	if cap(t.offs) < n+1 {
		t.offs = make([]int, n+1)
	}
	offs := t.offs[:n+1]
	for i := range offs {
		offs[i] = fixed
	}
	for _, c := range keys {
		var vo []int32
		switch x := c.(type) {
		case *array.String:
			vo = x.ValueOffsets()
		case *array.Binary:
			vo = x.ValueOffsets()
		default:
			continue
		}
		nulls := c.NullN() > 0
		for i := 0; i < n; i++ {
			if !nulls || c.IsValid(i) {
				offs[i+1] += int(vo[i+1] - vo[i])
			}
		}
	}
	// Prefix sums: offs[i] becomes row i's start.
	offs[0] = 0
	for i := 1; i <= n; i++ {
		offs[i] += offs[i-1]
	}
	if cap(t.buf) < offs[n] {
		t.buf = make([]byte, offs[n]+offs[n]/4)
	}
	buf := t.buf[:offs[n]]
	// pos is each row's write position as the columns are written in turn.
	if cap(t.pos) < n {
		t.pos = make([]int, n)
	}
	pos := t.pos[:n]
	copy(pos, offs[:n])
	for _, c := range keys {
		nulls := c.NullN() > 0
		switch x := c.(type) {
		case *array.Int64:
			putInts(buf, pos, c, nulls, x.Int64Values())
		case *array.Int32:
			putInts(buf, pos, c, nulls, x.Int32Values())
		case *array.Int16:
			putInts(buf, pos, c, nulls, x.Int16Values())
		case *array.Int8:
			putInts(buf, pos, c, nulls, x.Int8Values())
		case *array.Date32:
			putInts(buf, pos, c, nulls, x.Date32Values())
		case *array.Timestamp:
			putInts(buf, pos, c, nulls, x.TimestampValues())
		case *array.Decimal128:
			for i, v := range x.Values() {
				p := pos[i]
				if nulls && x.IsNull(i) {
					buf[p] = 1
					clear(buf[p+1 : p+17])
				} else {
					buf[p] = 0
					binary.LittleEndian.PutUint64(buf[p+1:], v.LowBits())
					binary.LittleEndian.PutUint64(buf[p+9:], uint64(v.HighBits()))
				}
				pos[i] = p + 17
			}
		case *array.Boolean:
			for i := 0; i < n; i++ {
				p := pos[i]
				switch {
				case nulls && x.IsNull(i):
					buf[p], buf[p+1] = 1, 0
				case x.Value(i):
					buf[p], buf[p+1] = 0, 1
				default:
					buf[p], buf[p+1] = 0, 0
				}
				pos[i] = p + 2
			}
		case *array.String:
			putBytes(buf, pos, c, nulls, x.ValueOffsets(), x.ValueBytes())
		case *array.Binary:
			putBytes(buf, pos, c, nulls, x.ValueOffsets(), x.ValueBytes())
		}
	}
	return true
}

func putInts[T int8 | int16 | int32 | int64 | arrow.Date32 | arrow.Timestamp](buf []byte, pos []int, c arrow.Array, nulls bool, vs []T) {
	for i, v := range vs {
		p := pos[i]
		if nulls && c.IsNull(i) {
			buf[p] = 1
			binary.LittleEndian.PutUint64(buf[p+1:], 0)
		} else {
			buf[p] = 0
			binary.LittleEndian.PutUint64(buf[p+1:], uint64(int64(v)))
		}
		pos[i] = p + 9
	}
}

// putBytes writes string or binary values: vo are the array's value offsets (absolute, from
// ValueOffsets), data its value bytes (from ValueBytes, which start at vo[0]).
func putBytes(buf []byte, pos []int, c arrow.Array, nulls bool, vo []int32, data []byte) {
	base := vo[0]
	for i := range pos {
		p := pos[i]
		if nulls && c.IsNull(i) {
			buf[p] = 1
			binary.LittleEndian.PutUint32(buf[p+1:], 0)
			pos[i] = p + 5
			continue
		}
		s, e := vo[i]-base, vo[i+1]-base
		buf[p] = 0
		binary.LittleEndian.PutUint32(buf[p+1:], uint32(e-s))
		pos[i] = p + 5 + copy(buf[p+5:], data[s:e])
	}
}

// lookup sets groups[i] to the group of row i of keys, creating groups (create returns the
// next dense id) for new key rows and recording their rows in table. ok is false when a
// column's layout is not one byteKeyIDs encodes (the caller then looks up through the row
// table).
func (t *byteKeyIDs) lookup(table *rowTable, keys []arrow.Array, groups []uint32, create func() uint32) (ok bool, err error) {
	n := len(groups)
	if !t.encodeKeys(keys, n) {
		return false, nil
	}
	if cap(t.hs) < n {
		t.hs = make([]uint64, n)
	}
	hs := t.hs[:n]
	offs := t.offs
	for i := range hs {
		hs[i] = maphash.Bytes(t.seed, t.buf[offs[i]:offs[i+1]])
	}
	var fresh []int64
	for i, h := range hs {
		if 2*(t.n+1) > len(t.slots) {
			t.grow()
		}
		key := t.buf[offs[i]:offs[i+1]]
		mask := uint64(len(t.slots) - 1)
		for s := h & mask; ; s = (s + 1) & mask {
			slot := &t.slots[s]
			if slot.id == 0 {
				g := create()
				slot.hash, slot.id = h, g+1
				t.n++
				t.arena = append(t.arena, key...)
				t.ends = append(t.ends, len(t.arena))
				groups[i] = g
				fresh = append(fresh, int64(i))
				break
			}
			if slot.hash == h && bytes.Equal(t.key(slot.id-1), key) {
				groups[i] = slot.id - 1
				break
			}
		}
	}
	return true, table.add(keys, fresh)
}

// key is group g's byte key.
func (t *byteKeyIDs) key(g uint32) []byte {
	start := 0
	if g > 0 {
		start = t.ends[g-1]
	}
	return t.arena[start:t.ends[g]]
}

func (t *byteKeyIDs) grow() {
	old := t.slots
	t.slots = make([]byteKeySlot, max(1024, 2*len(old)))
	mask := uint64(len(t.slots) - 1)
	for _, e := range old {
		if e.id == 0 {
			continue
		}
		s := e.hash & mask
		for t.slots[s].id != 0 {
			s = (s + 1) & mask
		}
		t.slots[s] = e
	}
}
