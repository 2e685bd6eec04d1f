package engine

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var (
	memoryOnly    = logical.StorageLevel{UseMemory: true, Replication: 1}
	memoryAndDisk = logical.StorageLevel{UseMemory: true, UseDisk: true, Deserialized: true, Replication: 1}
	diskOnly      = logical.StorageLevel{UseDisk: true, Replication: 1}
)

// persistSession is a session over its own store spilling into a test directory.
func persistSession(t *testing.T, budget string) (*Session, *PersistStore, string) {
	t.Helper()
	dir := t.TempDir()
	store := NewPersistStore(dir)
	s := NewSession(WithPersistStore(store))
	t.Cleanup(s.Close)
	if budget != "" {
		if err := s.conf.Set(PersistMemoryBudgetConf, budget); err != nil {
			t.Fatal(err)
		}
	}
	return s, store, dir
}

// idsBelow reads the persisted DataFrame key (over rng) with id < n.
func idsBelow(key string, rng plan.Relation, n int64) plan.Relation {
	return &plan.Filter{Input: &plan.Persisted{Key: key, Input: rng},
		Condition: plan.Call{Name: "<", Args: []plan.Expr{plan.ColumnRef{Name: []string{"id"}}, plan.Lit(n, sqltypes.LongType)}}}
}

func heldOf(t *testing.T, s *Session, key string) *heldRows {
	t.Helper()
	r, ok := s.views.PersistedRelation(key)
	if !ok {
		t.Fatalf("%s is not persisted", key)
	}
	return r.Rows.(*heldRows)
}

func spillFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(entries)
}

// TestPersistedRowsFilledByFirstReader: a persisted plan is read through its held rows once a
// query computed them, and unpersist drops them.
func TestPersistedRowsFilledByFirstReader(t *testing.T) {
	s, store, _ := persistSession(t, "")
	ctx := context.Background()
	rng := &plan.Range{End: 4, Step: 1}
	if err := s.Persist(ctx, "k", rng, memoryOnly); err != nil {
		t.Fatal(err)
	}
	h := heldOf(t, s, "k")
	if held, _ := h.State(); held {
		t.Fatal("held before any query read it")
	}
	if got := rowsOf(t, s, idsBelow("k", rng, 2)); len(got) != 2 || got[0] != "0" || got[1] != "1" {
		t.Fatalf("rows %v", got)
	}
	if held, _ := h.State(); !held {
		t.Fatal("a query reading the persisted plan did not fill its rows")
	}
	if store.MemoryUsed() != 4*8 {
		t.Fatalf("store holds %d bytes, want 32 (4 longs)", store.MemoryUsed())
	}
	recs, ok, err := h.pin()
	if err != nil || !ok || len(recs) != 1 || recs[0].NumRows() != 4 {
		t.Fatalf("held rows %v %v %v", recs, ok, err)
	}
	releaseAll(recs)
	s.Unpersist("k")
	if _, ok := s.views.PersistedRelation("k"); ok {
		t.Fatal("still persisted after Unpersist")
	}
	if store.MemoryUsed() != 0 {
		t.Fatalf("store holds %d bytes after unpersist", store.MemoryUsed())
	}
	if got := rowsOf(t, s, idsBelow("k", rng, 2)); len(got) != 2 {
		t.Fatalf("rows after unpersist %v", got)
	}
}

// TestPersistedRowsTooLargeAreNotKept: memory-only rows past the whole budget are not held;
// readers get them from the plan.
func TestPersistedRowsTooLargeAreNotKept(t *testing.T) {
	s, store, dir := persistSession(t, "64k")
	ctx := context.Background()
	rng := &plan.Range{End: 100000, Step: 1}
	if err := s.Persist(ctx, "big", rng, memoryOnly); err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, s, idsBelow("big", rng, 2)); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
	if held, refused := heldOf(t, s, "big").State(); held || !refused {
		t.Fatalf("held %v refused %v", held, refused)
	}
	if store.MemoryUsed() != 0 || spillFiles(t, dir) != 0 {
		t.Fatalf("refused rows are held: %d bytes, %d files", store.MemoryUsed(), spillFiles(t, dir))
	}
}

// TestManyPersistedDataFramesStayWithinBudget: persisting and reading more DataFrames than the
// budget holds keeps the store's memory within it, the least recently read dropped first;
// a dropped memory-only DataFrame is recomputed by its next reader with the same rows.
func TestManyPersistedDataFramesStayWithinBudget(t *testing.T) {
	const budget = 100_000 // bytes: 12 DataFrames of 10000 longs (80000 bytes) each do not fit
	s, store, dir := persistSession(t, fmt.Sprint(budget))
	ctx := context.Background()
	rngs := make([]*plan.Range, 12)
	for i := range rngs {
		rngs[i] = &plan.Range{Start: int64(i), End: int64(i) + 10000, Step: 1}
		key := fmt.Sprint("k", i)
		if err := s.Persist(ctx, key, rngs[i], memoryOnly); err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, s, idsBelow(key, rngs[i], int64(i)+2)); len(got) != 2 {
			t.Fatalf("%s: rows %v", key, got)
		}
		if used := store.MemoryUsed(); used > budget || used != 80000 {
			t.Fatalf("after %s the store holds %d bytes (budget %d, one DataFrame 80000)", key, used, budget)
		}
	}
	for i := range 11 {
		if held, _ := heldOf(t, s, fmt.Sprint("k", i)).State(); held {
			t.Errorf("k%d still held: the least recently read should have gone", i)
		}
	}
	if held, _ := heldOf(t, s, "k11").State(); !held {
		t.Error("the most recently read DataFrame was dropped")
	}
	// Read again, k0 is recomputed (and evicts k11).
	if got := rowsOf(t, s, idsBelow("k0", rngs[0], 1)); len(got) != 1 || got[0] != "0" {
		t.Fatalf("k0 recomputed: %v", got)
	}
	if held, _ := heldOf(t, s, "k0").State(); !held || store.MemoryUsed() != 80000 {
		t.Fatalf("k0 held %v, store %d bytes", held, store.MemoryUsed())
	}
	if spillFiles(t, dir) != 0 {
		t.Fatal("a memory-only level spilled to disk")
	}
}

// TestMemoryAndDiskSpillsEvictedRows: an evicted MEMORY_AND_DISK DataFrame moves to an Arrow IPC
// file of the store and is read back from it; DISK_ONLY rows go to a file at once; unpersist
// removes the files.
func TestMemoryAndDiskSpillsEvictedRows(t *testing.T) {
	s, store, dir := persistSession(t, "100000")
	ctx := context.Background()
	a := &plan.Range{End: 10000, Step: 1}
	b := &plan.Range{Start: 5, End: 10005, Step: 1}
	d := &plan.Range{Start: 7, End: 10007, Step: 1}
	for key, p := range map[string]struct {
		rng   *plan.Range
		level logical.StorageLevel
	}{"a": {a, memoryAndDisk}, "b": {b, memoryAndDisk}, "d": {d, diskOnly}} {
		if err := s.Persist(ctx, key, p.rng, p.level); err != nil {
			t.Fatal(err)
		}
	}
	if got := rowsOf(t, s, idsBelow("a", a, 2)); len(got) != 2 {
		t.Fatalf("a: %v", got)
	}
	if got := rowsOf(t, s, idsBelow("b", b, 7)); len(got) != 2 {
		t.Fatalf("b: %v", got)
	}
	ha := heldOf(t, s, "a")
	if ha.inMemory || ha.file == "" || spillFiles(t, dir) != 1 {
		t.Fatalf("a was not spilled: in memory %v, file %q, %d files", ha.inMemory, ha.file, spillFiles(t, dir))
	}
	if store.MemoryUsed() != 80000 {
		t.Fatalf("store holds %d bytes", store.MemoryUsed())
	}
	// Read back from the file, all 10000 rows.
	if got := rowsOf(t, s, idsBelow("a", a, 10000)); len(got) != 10000 {
		t.Fatalf("a from disk: %d rows", len(got))
	}
	if got := rowsOf(t, s, idsBelow("d", d, 9)); len(got) != 2 || got[0] != "7" {
		t.Fatalf("d: %v", got)
	}
	if hd := heldOf(t, s, "d"); hd.inMemory || hd.file == "" || store.MemoryUsed() != 80000 {
		t.Fatalf("DISK_ONLY rows in memory %v, file %q, store %d bytes", hd.inMemory, hd.file, store.MemoryUsed())
	}
	s.Unpersist("a")
	s.Unpersist("d")
	if n := spillFiles(t, dir); n != 0 {
		t.Fatalf("%d spill files after unpersist", n)
	}
}
