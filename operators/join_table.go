package operators

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// joinTable is the hash join's build side index: buckets chained through flat int32 arrays
// (no per-key allocation), each chain in ascending row order, with the rows' key hashes kept
// so a probe compares keys only on a hash match.
type joinTable struct {
	keys   []arrow.Array
	hashes []uint64
	first  []int32 // bucket → first row, -1: none
	next   []int32 // row → next row of its bucket, -1: end
	mask   uint64
}

// joinTableBytes is what newJoinTable and its caller's hashes allocate for n rows.
func joinTableBytes(n int) int64 {
	return int64(1<<max(4, bits.Len(uint(n))))*4 + int64(n)*(4+8)
}

// newJoinTable indexes the rows of keys (hashes: their key hashes) whose keys are not NULL.
func newJoinTable(keys []arrow.Array, hashes []uint64) *joinTable {
	n := len(hashes)
	size := 1 << max(4, bits.Len(uint(n)))
	t := &joinTable{keys: keys, hashes: hashes, first: make([]int32, size), next: make([]int32, n), mask: uint64(size - 1)}
	for i := range t.first {
		t.first[i] = -1
	}
	nulls := false
	for _, k := range keys {
		nulls = nulls || k.NullN() > 0
	}
	// Backwards, so each chain runs in ascending row order.
	for r := n - 1; r >= 0; r-- {
		if nulls && anyNull(keys, r) {
			t.next[r] = -1
			continue
		}
		b := hashes[r] & t.mask
		t.next[r], t.first[b] = t.first[b], int32(r)
	}
	return t
}

// probe appends to li and ri the pairs (left row i, right row r) with equal keys, NULL keys
// never matching, in left row order then right row order.
func (t *joinTable) probe(keys []arrow.Array, hashes []uint64, li, ri []int64) ([]int64, []int64) {
	nulls := false
	for _, k := range keys {
		nulls = nulls || k.NullN() > 0
	}
	eq := t.equal(keys)
	for i, h := range hashes {
		if nulls && anyNull(keys, i) {
			continue
		}
		for r := t.first[h&t.mask]; r >= 0; r = t.next[r] {
			if t.hashes[r] == h && eq(i, int(r)) {
				li = append(li, int64(i))
				ri = append(ri, int64(r))
			}
		}
	}
	return li, ri
}

// equal compares left row i's keys with right row r's: one 32- or 64-bit integer key on both
// sides compares raw values, other keys through rowsEqual.
func (t *joinTable) equal(keys []arrow.Array) func(i, r int) bool {
	if len(keys) == 1 {
		switch l := keys[0].(type) {
		case *array.Int64:
			if rk, ok := t.keys[0].(*array.Int64); ok {
				lv, rv := l.Int64Values(), rk.Int64Values()
				return func(i, r int) bool { return lv[i] == rv[r] }
			}
		case *array.Int32:
			if rk, ok := t.keys[0].(*array.Int32); ok {
				lv, rv := l.Int32Values(), rk.Int32Values()
				return func(i, r int) bool { return lv[i] == rv[r] }
			}
		case *array.Date32:
			if rk, ok := t.keys[0].(*array.Date32); ok {
				lv, rv := l.Date32Values(), rk.Date32Values()
				return func(i, r int) bool { return lv[i] == rv[r] }
			}
		}
	}
	return func(i, r int) bool { return rowsEqual(keys, i, t.keys, r) }
}
