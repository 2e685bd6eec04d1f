package engine

import (
	"context"
	"testing"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestPersistedRowsFilledByFirstReader: a persisted plan is read through its cached rows once a
// query filled them, and unpersist drops them.
func TestPersistedRowsFilledByFirstReader(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ctx := context.Background()
	rng := &plan.Range{End: 4, Step: 1}
	if err := s.Persist(ctx, "k", rng, "StorageLevel(memory, 1 replicas)"); err != nil {
		t.Fatal(err)
	}
	r, ok := s.views.PersistedRelation("k")
	if !ok {
		t.Fatal("not persisted")
	}
	if filled, _ := r.Rows.State(); filled {
		t.Fatal("filled before any query read it")
	}
	read := &plan.Filter{Input: &plan.Persisted{Key: "k", Input: rng},
		Condition: plan.Call{Name: "<", Args: []plan.Expr{plan.ColumnRef{Name: []string{"id"}}, plan.Lit(int64(2), sqltypes.LongType)}}}
	if got := rowsOf(t, s, read); len(got) != 2 || got[0] != "0" || got[1] != "1" {
		t.Fatalf("rows %v", got)
	}
	if filled, _ := r.Rows.State(); !filled {
		t.Fatal("a query reading the persisted plan did not fill its rows")
	}
	if snap := r.Rows.Snapshot(); len(snap) != 1 || snap[0].NumRows() != 4 {
		t.Fatalf("cached rows %v", snap)
	} else {
		snap[0].Release()
	}
	s.Unpersist("k")
	if _, ok := s.views.PersistedRelation("k"); ok {
		t.Fatal("still persisted after Unpersist")
	}
	if got := rowsOf(t, s, read); len(got) != 2 {
		t.Fatalf("rows after unpersist %v", got)
	}
}

// TestPersistedRowsTooLargeAreNotKept: rows past a quarter of the query memory budget are not
// held; readers get them from the plan.
func TestPersistedRowsTooLargeAreNotKept(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ctx := context.Background()
	if err := s.conf.Set(conf.QueryMemoryBudgetKey, "4m"); err != nil {
		t.Fatal(err)
	}
	rng := &plan.Range{End: 1000000, Step: 1}
	if err := s.Persist(ctx, "big", rng, "StorageLevel(memory, 1 replicas)"); err != nil {
		t.Fatal(err)
	}
	read := &plan.Filter{Input: &plan.Persisted{Key: "big", Input: rng},
		Condition: plan.Call{Name: ">=", Args: []plan.Expr{plan.ColumnRef{Name: []string{"id"}}, plan.Lit(int64(999998), sqltypes.LongType)}}}
	if got := rowsOf(t, s, read); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
	r, _ := s.views.PersistedRelation("big")
	if filled, refused := r.Rows.State(); filled || !refused {
		t.Fatalf("filled %v refused %v", filled, refused)
	}
}
