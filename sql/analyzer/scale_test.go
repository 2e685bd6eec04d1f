package analyzer_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// chainOf is a left-deep chain of n terms joined by op, as the parser builds it.
func chainOf(op string, n int, leaf plan.Expr) plan.Expr {
	e := leaf
	for i := 1; i < n; i++ {
		e = plan.Fn(op, e, leaf)
	}
	return e
}

// inOf is id IN (0, 1, …, n-1).
func inOf(n int) plan.Expr {
	args := []plan.Expr{plan.ColumnRef{Name: []string{"id"}}}
	for i := 0; i < n; i++ {
		args = append(args, plan.Literal{Value: int64(i), Type: sqltypes.LongType})
	}
	return plan.Call{Name: "in", Args: args}
}

func rangeRel() plan.Relation { return &plan.Range{Start: 0, End: 10, Step: 1} }

// resolveCost resolves rel and returns the heap allocations and bytes it made.
func resolveCost(t *testing.T, rel plan.Relation) (allocs, bytes uint64) {
	t.Helper()
	a := &analyzer.Analyzer{Options: expr.Options{ANSI: true, TimeZone: "UTC"}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := a.Resolve(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	_ = n.Schema()[0].Name // the auto-generated name is rendered
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}

// TestResolveLinear checks that resolving grows linearly with the size of the expression:
// 4× the terms of a chain of +, of AND, or of an IN list, in plain and grouped queries, may cost at most 6× the allocations
// and bytes (rendering each level made a chain cubic, matching each level against the grouping
// expressions quadratic).
func TestResolveLinear(t *testing.T) {
	one := plan.Literal{Value: int32(1), Type: sqltypes.IntegerType}
	id := plan.ColumnRef{Name: []string{"id"}}
	cases := []struct {
		name string
		rel  func(n int) plan.Relation
	}{
		{"select 1 + … + 1", func(n int) plan.Relation {
			return &plan.Project{Input: rangeRel(), Exprs: []plan.Expr{chainOf("+", n, one)}}
		}},
		{"where id > 0 AND …", func(n int) plan.Relation {
			return &plan.Filter{Input: rangeRel(), Condition: chainOf("and", n, plan.Fn(">", id, one))}
		}},
		{"select id IN (…)", func(n int) plan.Relation {
			return &plan.Project{Input: rangeRel(), Exprs: []plan.Expr{inOf(n)}}
		}},
		{"group by id, select id + … + id", func(n int) plan.Relation {
			return &plan.Aggregate{Input: rangeRel(), Type: plan.GroupBy, Grouping: []plan.Expr{id},
				Aggs: []plan.Expr{chainOf("+", n, id)}}
		}},
		{"select sum(id) + … + sum(id)", func(n int) plan.Relation {
			return &plan.Aggregate{Input: rangeRel(), Type: plan.GroupBy, Aggs: []plan.Expr{chainOf("+", n, plan.Fn("sum", id))}}
		}},
		{"group by id having id > 0 AND …", func(n int) plan.Relation {
			return &plan.Filter{Input: &plan.Aggregate{Input: rangeRel(), Type: plan.GroupBy, Grouping: []plan.Expr{id},
				Aggs: []plan.Expr{id}}, Condition: chainOf("and", n, plan.Fn(">", plan.Fn("max", id), one))}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const n = 1000
			a1, b1 := resolveCost(t, c.rel(n))
			a4, b4 := resolveCost(t, c.rel(4*n))
			t.Logf("%d terms: %d allocs %d bytes; %d terms: %d allocs %d bytes (×%.1f, ×%.1f)",
				n, a1, b1, 4*n, a4, b4, float64(a4)/float64(a1), float64(b4)/float64(b1))
			if a4 > 6*a1 || b4 > 6*b1 {
				t.Errorf("4× the terms cost ×%.1f allocations and ×%.1f bytes; want linear (≤ ×6)",
					float64(a4)/float64(a1), float64(b4)/float64(b1))
			}
		})
	}
}

// cancelAfter is a context whose Err reports cancellation from its n-th call on.
type cancelAfter struct {
	context.Context
	n, calls atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

// TestResolveCanceled checks that binding a huge expression stops with the context's error
// once the context is done: the binder checks it as it goes, not only between relations.
func TestResolveCanceled(t *testing.T) {
	one := plan.Literal{Value: int32(1), Type: sqltypes.IntegerType}
	rel := &plan.Project{Input: rangeRel(), Exprs: []plan.Expr{chainOf("+", 50000, one)}}
	ctx := &cancelAfter{Context: context.Background()}
	ctx.n.Store(5) // the relations check twice; the rest must come from binding
	a := &analyzer.Analyzer{Options: expr.Options{ANSI: true, TimeZone: "UTC"}}
	_, err := a.Resolve(ctx, rel)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if c := ctx.calls.Load(); c != 5 {
		t.Errorf("the context was checked %d times after it was done", c-5)
	}
}
