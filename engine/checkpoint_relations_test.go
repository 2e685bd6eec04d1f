package engine

import (
	"context"
	"testing"

	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

func checkpointRows(t *testing.T, s *Session, id string) *heldRows {
	t.Helper()
	n, ok := s.views.CachedRelation(id)
	if !ok {
		t.Fatalf("no DataFrame %s", id)
	}
	return n.(*logical.InMemoryTableScan).Relation.Rows.(*heldRows)
}

// TestCheckpointEagerAndLazy: an eager checkpoint holds its rows at once, a lazy one when first
// read; both are read through the DataFrame id and released by UncacheRelation.
func TestCheckpointEagerAndLazy(t *testing.T) {
	s, store, _ := persistSession(t, "")
	ctx := context.Background()
	if err := s.Checkpoint(ctx, "eager", &plan.Range{End: 3, Step: 1}, true, nil); err != nil {
		t.Fatal(err)
	}
	if held, _ := checkpointRows(t, s, "eager").State(); !held {
		t.Fatal("an eager checkpoint holds no rows")
	}
	if err := s.Checkpoint(ctx, "lazy", &plan.Range{End: 5, Step: 1}, false, nil); err != nil {
		t.Fatal(err)
	}
	if held, _ := checkpointRows(t, s, "lazy").State(); held {
		t.Fatal("a lazy checkpoint holds rows before any query read it")
	}
	if got := rowsOf(t, s, &plan.CachedRemoteRelation{ID: "lazy"}); len(got) != 5 {
		t.Fatalf("lazy: %v", got)
	}
	if held, _ := checkpointRows(t, s, "lazy").State(); !held || store.MemoryUsed() != 8*8 {
		t.Fatalf("lazy held %v, store %d bytes", held, store.MemoryUsed())
	}
	if got := rowsOf(t, s, &plan.CachedRemoteRelation{ID: "eager"}); len(got) != 3 || got[2] != "2" {
		t.Fatalf("eager: %v", got)
	}
	s.UncacheRelation("eager")
	s.UncacheRelation("lazy")
	if store.MemoryUsed() != 0 {
		t.Fatalf("store holds %d bytes after the checkpoints were released", store.MemoryUsed())
	}
}

// TestCheckpointPastBudgetSpills: a memory-only checkpoint larger than the budget, or evicted
// by another, goes to a spill file instead of away: its rows are never recomputed.
func TestCheckpointPastBudgetSpills(t *testing.T) {
	s, store, dir := persistSession(t, "100000")
	ctx := context.Background()
	memOnly := logical.StorageLevel{UseMemory: true, Replication: 1}
	if err := s.Checkpoint(ctx, "big", &plan.Range{End: 20000, Step: 1}, true, &memOnly); err != nil {
		t.Fatal(err)
	}
	if h := checkpointRows(t, s, "big"); h.inMemory || h.file == "" || store.MemoryUsed() != 0 {
		t.Fatalf("big: in memory %v, file %q, store %d bytes", h.inMemory, h.file, store.MemoryUsed())
	}
	if err := s.Checkpoint(ctx, "a", &plan.Range{End: 10000, Step: 1}, true, &memOnly); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(ctx, "b", &plan.Range{End: 10000, Step: 1}, true, &memOnly); err != nil {
		t.Fatal(err)
	}
	if h := checkpointRows(t, s, "a"); h.inMemory || h.file == "" {
		t.Fatalf("evicted checkpoint a: in memory %v, file %q", h.inMemory, h.file)
	}
	if got := rowsOf(t, s, &plan.CachedRemoteRelation{ID: "big"}); len(got) != 20000 {
		t.Fatalf("big from disk: %d rows", len(got))
	}
	if got := rowsOf(t, s, &plan.CachedRemoteRelation{ID: "a"}); len(got) != 10000 {
		t.Fatalf("a from disk: %d rows", len(got))
	}
	if n := spillFiles(t, dir); n != 2 {
		t.Fatalf("%d spill files, want 2", n)
	}
	s.Close()
	if n := spillFiles(t, dir); n != 0 || store.MemoryUsed() != 0 {
		t.Fatalf("after the session's end: %d spill files, %d bytes", n, store.MemoryUsed())
	}
}
