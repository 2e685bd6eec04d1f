package operators

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
)

// fixedJoinTable indexes a hash join's build rows by integer keys (one to maxFixedKeys columns
// of the layouts keyInts reads), without row hashes or per-candidate compares: rows with equal
// keys form one chain, so a probe finds its key once and takes the whole chain. A single key
// whose values span at most directSpan(n) is indexed directly (heads[value-base]); other keys
// go to an open-addressing table whose slots hold the key words next to the chain's head, one
// cache line per probe. NULL keys never match (their rows are left out).
type fixedJoinTable struct {
	keys int
	// direct: heads is indexed by the single key's value minus base.
	direct bool
	base   int64
	// heads maps a slot (or value-base) to the first row of its key's chain, -1: empty.
	heads []int32
	// slotKeys holds keys words per slot (hashed tables only).
	slotKeys []int64
	mask     uint64
	// next maps a row to the next row with the same key, -1: end; chains run in ascending
	// row order.
	next []int32
}

// directSpan bounds the value span of a single key indexed directly, for n build rows.
func directSpan(n int) uint64 { return uint64(8*n + 4096) }

// fixedJoinTableBytes is what newFixedJoinTable allocates for keys, and whether it can index
// them at all (every column of a layout keyInts reads, at most maxFixedKeys).
func fixedJoinTableBytes(keys []arrow.Array) (int64, bool) {
	cols, ok := fixedKeyColumns(keys)
	if !ok {
		return 0, false
	}
	n := keys[0].Len()
	if span, _, ok := directRange(keys, cols); ok {
		return int64(span)*4 + int64(n)*4, true
	}
	slots := hashedSlots(n)
	return int64(slots)*(4+8*int64(len(keys))) + int64(n)*4, true
}

func fixedKeyColumns(keys []arrow.Array) ([][]int64, bool) {
	if len(keys) == 0 || len(keys) > maxFixedKeys {
		return nil, false
	}
	cols := make([][]int64, len(keys))
	for k, c := range keys {
		if cols[k] = keyInts(c); cols[k] == nil {
			return nil, false
		}
	}
	return cols, true
}

// directRange is the span and the lowest value of a single key's non-NULL values, ok when it
// is small enough to index directly.
func directRange(keys []arrow.Array, cols [][]int64) (span uint64, base int64, ok bool) {
	if len(cols) != 1 {
		return 0, 0, false
	}
	k, vs := keys[0], cols[0]
	lo, hi, any := int64(0), int64(0), false
	for i, v := range vs {
		if k.NullN() > 0 && k.IsNull(i) {
			continue
		}
		if !any {
			lo, hi, any = v, v, true
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if !any {
		return 1, 0, true
	}
	span = uint64(hi) - uint64(lo) + 1
	if span == 0 || span > directSpan(len(vs)) {
		return 0, 0, false
	}
	return span, lo, true
}

func hashedSlots(n int) int { return 1 << max(4, bits.Len(uint(2*n))) }

// newFixedJoinTable indexes the rows of keys; ok false when their layouts are not integer ones.
func newFixedJoinTable(keys []arrow.Array) (*fixedJoinTable, bool) {
	cols, ok := fixedKeyColumns(keys)
	if !ok {
		return nil, false
	}
	n := keys[0].Len()
	t := &fixedJoinTable{keys: len(keys), next: make([]int32, n)}
	span, base, direct := directRange(keys, cols)
	if direct {
		t.direct, t.base, t.heads = true, base, make([]int32, span)
	} else {
		slots := hashedSlots(n)
		t.heads, t.slotKeys, t.mask = make([]int32, slots), make([]int64, slots*len(keys)), uint64(slots-1)
	}
	for i := range t.heads {
		t.heads[i] = -1
	}
	nulls := false
	for _, k := range keys {
		nulls = nulls || k.NullN() > 0
	}
	row := make([]int64, len(keys))
	// Backwards, so each chain runs in ascending row order.
	for r := n - 1; r >= 0; r-- {
		if nulls && anyNull(keys, r) {
			t.next[r] = -1
			continue
		}
		var h *int32
		if direct {
			h = &t.heads[uint64(cols[0][r])-uint64(base)]
		} else {
			for k := range cols {
				row[k] = cols[k][r]
			}
			h = &t.heads[t.slot(row)]
		}
		t.next[r], *h = *h, int32(r)
	}
	return t, true
}

// slot is the slot holding row's key, or the empty slot where it goes (which it then holds).
func (t *fixedJoinTable) slot(row []int64) uint64 {
	s := fixedHash(row) & t.mask
	for {
		sk := t.slotKeys[int(s)*t.keys : int(s+1)*t.keys]
		if t.heads[s] < 0 {
			copy(sk, row)
			return s
		}
		if sameKeys(sk, row) {
			return s
		}
		s = (s + 1) & t.mask
	}
}

// find is the first row of row's chain, -1: none.
func (t *fixedJoinTable) find(row []int64) int32 {
	s := fixedHash(row) & t.mask
	for {
		r := t.heads[s]
		if r < 0 || sameKeys(t.slotKeys[int(s)*t.keys:int(s+1)*t.keys], row) {
			return r
		}
		s = (s + 1) & t.mask
	}
}

func sameKeys(a, b []int64) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// probe appends to li and ri the pairs (left row i, right row r) with equal keys, in left row
// order then right row order (only each left row's first pair when firstOnly); ok false when
// a left key column's layout is not an integer one.
func (t *fixedJoinTable) probe(keys []arrow.Array, firstOnly bool, li, ri []int64) ([]int64, []int64, bool) {
	cols, ok := fixedKeyColumns(keys)
	if !ok || len(cols) != t.keys {
		return li, ri, false
	}
	nulls := false
	for _, k := range keys {
		nulls = nulls || k.NullN() > 0
	}
	emit := func(i int, r int32) {
		for ; r >= 0; r = t.next[r] {
			li = append(li, int64(i))
			ri = append(ri, int64(r))
			if firstOnly {
				return
			}
		}
	}
	if t.direct {
		vs, span := cols[0], uint64(len(t.heads))
		for i, v := range vs {
			if nulls && keys[0].IsNull(i) {
				continue
			}
			if d := uint64(v) - uint64(t.base); d < span {
				if r := t.heads[d]; r >= 0 {
					emit(i, r)
				}
			}
		}
		return li, ri, true
	}
	if t.keys == 1 {
		// One key: its word compares in place, hashed as fixedHash hashes a one-word row.
		for i, v := range cols[0] {
			if nulls && keys[0].IsNull(i) {
				continue
			}
			h := (uint64(0x243f6a8885a308d3) ^ uint64(v)) * 0x9e3779b97f4a7c15
			for s := (h ^ h>>32) & t.mask; ; s = (s + 1) & t.mask {
				r := t.heads[s]
				if r < 0 {
					break
				}
				if t.slotKeys[s] == v {
					emit(i, r)
					break
				}
			}
		}
		return li, ri, true
	}
	row := make([]int64, t.keys)
	n := keys[0].Len()
	for i := 0; i < n; i++ {
		if nulls && anyNull(keys, i) {
			continue
		}
		for k := range cols {
			row[k] = cols[k][i]
		}
		if r := t.find(row); r >= 0 {
			emit(i, r)
		}
	}
	return li, ri, true
}
