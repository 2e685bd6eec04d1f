package operators

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// rowTable maps key rows to dense ids 0..n-1: a hash map from key hash to the ids with that
// hash, collisions resolved by comparing stored key rows. The key rows of new ids are kept
// compacted: a batch that brings k new keys stores just those k rows (the whole key columns,
// shared, when every row is new).
type rowTable struct {
	mem     memory.Allocator
	byHash  map[uint64][]uint32
	batches [][]arrow.Array
	refs    []rowRef
}

type rowRef struct{ batch, row int32 }

const notFound = ^uint32(0)

func newRowTable(mem memory.Allocator) *rowTable {
	return &rowTable{mem: mem, byHash: map[uint64][]uint32{}}
}

// lookup sets ids[i] to the id of row i of keys. Unknown keys get a new id from create when
// insert is true (create must return len() at the time), else notFound. It returns the rows
// that created ids.
func (t *rowTable) lookup(keys []arrow.Array, ids []uint32, insert bool, create func() uint32) ([]int64, error) {
	hs := make([]uint64, len(ids))
	hashColumns(keys, 0, hs)
	return t.lookupHashed(keys, hs, ids, insert, create)
}

// lookupHashed is lookup with the rows' key hashes hs computed by the caller.
func (t *rowTable) lookupHashed(keys []arrow.Array, hs []uint64, ids []uint32, insert bool, create func() uint32) ([]int64, error) {
	// New keys first point into keys itself (batch index cur), compacted below.
	cur := int32(len(t.batches))
	var fresh []int64
	for i, h := range hs {
		ids[i] = notFound
		for _, id := range t.byHash[h] {
			ref := t.refs[id]
			stored := keys
			if ref.batch != cur {
				stored = t.batches[ref.batch]
			}
			if rowsEqual(stored, int(ref.row), keys, i) {
				ids[i] = id
				break
			}
		}
		if ids[i] != notFound || !insert {
			continue
		}
		id := create()
		if int(id) != len(t.refs) {
			panic("operators: row table ids must be dense")
		}
		t.refs = append(t.refs, rowRef{cur, int32(i)})
		t.byHash[h] = append(t.byHash[h], id)
		ids[i] = id
		fresh = append(fresh, int64(i))
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	return fresh, t.storeFresh(keys, fresh, len(ids))
}

// add records new ids, the next len(fresh) ones, for rows fresh of keys (rows whose key another
// index, fixedKeyIDs, found new); lookups by hash do not see them.
func (t *rowTable) add(keys []arrow.Array, fresh []int64) error {
	if len(fresh) == 0 {
		return nil
	}
	cur := int32(len(t.batches))
	for _, i := range fresh {
		t.refs = append(t.refs, rowRef{cur, int32(i)})
	}
	return t.storeFresh(keys, fresh, keys[0].Len())
}

// storeFresh keeps the key rows fresh of keys (n rows), whose ids are the last len(fresh) ones
// and point at rows of keys as batch len(t.batches).
func (t *rowTable) storeFresh(keys []arrow.Array, fresh []int64, n int) error {
	var stored []arrow.Array
	if len(fresh) == n {
		stored = append([]arrow.Array(nil), keys...)
		for _, k := range stored {
			k.Retain()
		}
	} else {
		var err error
		if stored, err = take(t.mem, keys, fresh, nil); err != nil {
			return err
		}
		first := len(t.refs) - len(fresh)
		for k := range fresh {
			t.refs[first+k].row = int32(k)
		}
	}
	t.batches = append(t.batches, stored)
	return nil
}

// keyValue is key column k of id as a Go value.
func (t *rowTable) keyValue(id uint32, k int, typ sqltypes.DataType) any {
	ref := t.refs[id]
	return expr.ValueAt(t.batches[ref.batch][k], int(ref.row), typ)
}

func (t *rowTable) len() int { return len(t.refs) }

func (t *rowTable) release() {
	for _, b := range t.batches {
		releaseAll(b)
	}
	t.batches = nil
}

// gather builds the key columns of ids (one row per entry, any order, repeats allowed): each
// run of ids stored in the same batch is one slice (consecutive rows) or take of that batch.
func (t *rowTable) gather(mem memory.Allocator, ids []uint32) ([]arrow.Array, error) {
	if len(ids) == 0 || len(t.batches) == 0 {
		return nil, fmt.Errorf("aggregate: gathering %d keys from %d batches", len(ids), len(t.batches))
	}
	refs := make([]rowRef, len(ids))
	for i, id := range ids {
		refs[i] = t.refs[id]
	}
	types := make([]arrow.DataType, len(t.batches[0]))
	for k, c := range t.batches[0] {
		types[k] = c.DataType()
	}
	return gatherRuns(mem, func(b int32) []arrow.Array { return t.batches[b] }, refs, types, true)
}
