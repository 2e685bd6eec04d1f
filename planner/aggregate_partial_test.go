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
