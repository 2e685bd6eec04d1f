package planner

import (
	"strings"
	"testing"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// findNode reports whether a node whose name starts with kind is upstream of n.
func findNode(n *flow.Node, kind string) bool {
	if strings.HasPrefix(n.Name, kind) {
		return true
	}
	for _, in := range n.Inputs {
		if findNode(in.From, kind) {
			return true
		}
	}
	return false
}

// TestPartialAggregate: count, sum, min, max and avg aggregate per input partition before the
// exchange, with the answers, group order included, of the aggregate without the split (a
// count(DISTINCT) in the same aggregate keeps it whole); an empty input still gives the
// global row.
func TestPartialAggregate(t *testing.T) {
	e := newEnv(t)
	r := &logical.Range{Start: 0, End: 5000, Step: 1, Partitions: 3}
	p := &logical.Project{Input: r, Exprs: []expr.Expr{bind(t, "%", bind(t, "*", col(r, 0), lit(7)), lit(13)),
		bind(t, "-", col(r, 0), lit(2500)), bind(t, "*", col(r, 0), expr.NewLiteral(0.5, sqltypes.DoubleType))}}
	aggs := func(extra ...expr.AggFunc) []expr.AggFunc {
		return append([]expr.AggFunc{agg(t, "count", col(p, 1)), agg(t, "sum", col(p, 1)), agg(t, "min", col(p, 1)),
			agg(t, "max", col(p, 2)), agg(t, "sum", col(p, 2)), agg(t, "avg", col(p, 1)), agg(t, "avg", col(p, 2))}, extra...)
	}
	names := []string{"n", "s", "lo", "hi", "d", "a", "b", "x"}
	distinct, err := expr.BindAggregate("count", []expr.Expr{col(p, 1)}, true, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, groups := range [][]expr.Expr{{col(p, 0)}, nil} {
		split := &logical.Aggregate{Input: p, Groups: groups, Aggs: aggs(), Names: names[:7]}
		whole := &logical.Aggregate{Input: p, Groups: groups, Aggs: aggs(distinct), Names: names}
		g, err := Build(split, Options{Partitions: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !findNode(g.Output, "PartialAggregate") {
			t.Fatalf("groups %v: no partial aggregate", groups)
		}
		if g, _ := Build(whole, Options{Partitions: 2}); findNode(g.Output, "PartialAggregate") {
			t.Fatal("count(DISTINCT) split")
		}
		for _, par := range []int{1, 2, 3} {
			got := e.mustRun(split, par)
			want := e.mustRun(whole, par)
			for i := range want {
				want[i] = want[i][:strings.LastIndex(want[i], ", ")]
			}
			expect(t, got, want)
			if len(got) != max(1, len(groups)*13) {
				t.Fatalf("%d rows", len(got))
			}
		}
	}
	empty := &logical.Filter{Input: r, Cond: bind(t, ">", col(r, 0), lit(1_000_000))}
	g := &logical.Aggregate{Input: empty, Aggs: []expr.AggFunc{agg(t, "count", col(r, 0)), agg(t, "max", col(r, 0)),
		agg(t, "avg", col(r, 0))}, Names: []string{"n", "m", "a"}}
	expect(t, e.mustRun(g, 3), []string{"0, null, null"})
}

func distinctAgg(t *testing.T, name string, x expr.Expr) expr.AggFunc {
	t.Helper()
	f, err := expr.BindAggregate(name, []expr.Expr{x}, true, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestDistinctAggregateInTwoSteps: a global aggregate of DISTINCT functions over one argument
// groups by the argument first (NULLs ignored, empty input: count 0), and answers as the
// one-step DISTINCT does; another argument or a plain function keeps the one-step plan.
func TestDistinctAggregateInTwoSteps(t *testing.T) {
	e := newEnv(t)
	in := e.local(kv, []any{"a", int64(1)}, []any{"b", int64(2)}, []any{"a", int64(1)}, []any{nil, nil},
		[]any{"b", int64(3)}, []any{"c", int64(3)})
	v := col(in, 1)
	all := []expr.AggFunc{distinctAgg(t, "count", v), distinctAgg(t, "sum", v), distinctAgg(t, "avg", v),
		distinctAgg(t, "min", v), distinctAgg(t, "max", v)}
	a := &logical.Aggregate{Input: in, Aggs: all, Names: []string{"n", "s", "a", "lo", "hi"}}
	g, err := Build(a, Options{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !findNode(g.Output.Inputs[0].From, "Aggregate") {
		t.Fatal("one-step plan")
	}
	for _, par := range []int{1, 2, 3} {
		expect(t, e.mustRun(a, par), []string{"3, 6, 2, 1, 3"})
	}
	r := &logical.Range{Start: 0, End: 1000, Step: 1, Partitions: 3}
	m := bind(t, "%", col(r, 0), lit(7))
	ra := &logical.Aggregate{Input: r, Aggs: []expr.AggFunc{distinctAgg(t, "count", m), distinctAgg(t, "sum", m)}, Names: []string{"n", "s"}}
	expect(t, e.mustRun(ra, 2), []string{"7, 21"})
	empty := &logical.Filter{Input: r, Cond: bind(t, ">", col(r, 0), lit(5000))}
	ea := &logical.Aggregate{Input: empty, Aggs: []expr.AggFunc{distinctAgg(t, "count", col(empty, 0))}, Names: []string{"n"}}
	expect(t, e.mustRun(ea, 2), []string{"0"})
	mixed := &logical.Aggregate{Input: in, Aggs: []expr.AggFunc{distinctAgg(t, "count", v), agg(t, "count", v)}, Names: []string{"n", "m"}}
	g, err = Build(mixed, Options{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if findNode(g.Output.Inputs[0].From, "Aggregate") {
		t.Fatal("a plain count went through the two-step DISTINCT")
	}
	expect(t, e.mustRun(mixed, 2), []string{"3, 5"})
	minMax := &logical.Aggregate{Input: in, Aggs: []expr.AggFunc{agg(t, "min", v), agg(t, "max", v)}, Names: []string{"lo", "hi"}}
	if g, _ := Build(minMax, Options{Partitions: 2}); findNode(g.Output.Inputs[0].From, "Aggregate") {
		t.Fatal("min and max without DISTINCT went through the two-step DISTINCT")
	}
}
