package planner

import (
	"strings"
	"testing"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestGenerateFusesAndRuns plans Project(Generate(Filter(Range))): the Generate fuses into the
// stateless chain (no extra node) and every partition's rows are exploded in order.
func TestGenerateFusesAndRuns(t *testing.T) {
	e := newEnv(t)
	rng := &logical.Range{Start: 0, End: 6, Step: 1, Partitions: 2}
	id := &expr.Column{Index: 0, Name: "id", T: sqltypes.LongType}
	even, err := expr.Bind("==", []expr.Expr{mustBindT(t, "%", id, expr.NewLiteral(int64(2), sqltypes.LongType)),
		expr.NewLiteral(int64(0), sqltypes.LongType)}, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	filtered := &logical.Filter{Input: rng, Cond: even}
	arr := mustBindT(t, "array", id, mustBindT(t, "*", id, expr.NewLiteral(int64(10), sqltypes.LongType)))
	g, err := expr.BindGenerator("posexplode", []expr.Expr{arr}, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	gen := &logical.Generate{Input: filtered, Generator: g, Names: []string{"pos", "col"}}
	out := gen.Schema()
	root := &logical.Project{Input: gen, Exprs: []expr.Expr{
		&expr.Column{Index: 1, Name: "pos", T: out[1].Type},
		&expr.Column{Index: 2, Name: "col", T: out[2].Type},
	}}
	graph, err := Build(root, Options{Mem: e.mem, Partitions: 2, Expr: &expr.Context{ANSI: true}})
	if err != nil {
		t.Fatal(err)
	}
	chain := graph.Output.Inputs[0].From
	if !strings.Contains(chain.Name, "Filter") || !strings.Contains(chain.Name, "Generate") || !strings.Contains(chain.Name, "Project") {
		t.Errorf("Filter, Generate and Project are not one chain: %s", chain.Name)
	}
	rows, err := e.run(root, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := "0, 0 | 1, 0 | 0, 2 | 1, 20 | 0, 4 | 1, 40"
	if got := strings.Join(rows, " | "); got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}

func mustBindT(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	x, err := expr.Bind(name, args, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return x
}
