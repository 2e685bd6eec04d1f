package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/weirhq/weir/sql/plan"
)

// TestWriteRefreshesPersistedReadersOfItsPath: a write to a path drops the held rows of the
// persisted DataFrames reading it (their next reader sees the written rows); one reading
// another path keeps its rows.
func TestWriteRefreshesPersistedReadersOfItsPath(t *testing.T) {
	s, _, _ := persistSession(t, "")
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := runWrite(t, s, &plan.Write{Input: &plan.Range{End: 3, Step: 1}, Format: "parquet", Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	readA := &plan.DataSource{Format: "parquet", Paths: []string{a}}
	readB := &plan.DataSource{Format: "parquet", Paths: []string{b}}
	for key, rel := range map[string]plan.Relation{"a": readA, "b": readB} {
		if err := s.Persist(ctx, key, rel, memoryOnly); err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, s, idsBelow(key, rel, 100)); len(got) != 3 {
			t.Fatalf("%s: rows %v", key, got)
		}
	}
	if err := runWrite(t, s, &plan.Write{Input: &plan.Range{Start: 3, End: 5, Step: 1}, Format: "parquet", Path: a,
		Mode: plan.SaveAppend}); err != nil {
		t.Fatal(err)
	}
	if held, _ := heldOf(t, s, "a").State(); held {
		t.Error("the persisted read of the written path kept its rows")
	}
	if held, _ := heldOf(t, s, "b").State(); !held {
		t.Error("the persisted read of another path lost its rows")
	}
	if got := rowsOf(t, s, idsBelow("a", readA, 100)); len(got) != 5 {
		t.Fatalf("after the append: rows %v, want 5", got)
	}
	if held, _ := heldOf(t, s, "a").State(); !held {
		t.Error("the next reader did not fill the rows again")
	}
}
