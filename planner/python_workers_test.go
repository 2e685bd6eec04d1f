package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// noRunner is never run: these plans are only built.
type noRunner struct{}

func (noRunner) Open(context.Context, pyworker.Task) (operators.PythonStream, error) {
	panic("planner test: a plan was run")
}

func idRef() expr.Expr { return &expr.Column{Index: 0, Name: "id", T: sqltypes.LongType} }

// udfOver is in with one scalar pandas function of id appended.
func udfOver(in logical.Node) logical.Node {
	return &logical.PythonEval{Input: in, EvalType: 200, Names: []string{"pythonUDF0"},
		Funcs: []*logical.PythonFunc{{Name: "f", EvalType: 200, Command: []byte("f"), ReturnType: sqltypes.LongType, Args: []expr.Expr{idRef()}}}}
}

// TestPythonWorkersBound checks which plans the planner refuses because their Python
// partitions could wait forever for one of spark.weir.python.maxWorkers workers.
func TestPythonWorkersBound(t *testing.T) {
	rng := func(parts int) logical.Node { return &logical.Range{Start: 0, End: 100, Step: 1, Partitions: parts} }
	structOf := sqltypes.StructType(sqltypes.Field{Name: "id", Type: sqltypes.LongType, Nullable: true})
	groupMap := func(in logical.Node) logical.Node {
		return &logical.GroupMapInPython{Input: in, Keys: []expr.Expr{idRef()},
			Func: &logical.PythonFunc{Name: "g", EvalType: 201, Command: []byte("g"), ReturnType: structOf, Args: []expr.Expr{idRef()}}}
	}
	for _, c := range []struct {
		name       string
		plan       logical.Node
		partitions int
		maxWorkers int
		refused    bool
	}{
		{"one node over independent source partitions", udfOver(rng(16)), 4, 2, false},
		{"one node behind an exchange", udfOver(&logical.Repartition{Input: rng(2), Partitions: 8}), 4, 4, true},
		{"one node behind an exchange, enough workers", udfOver(&logical.Repartition{Input: rng(2), Partitions: 8}), 4, 8, false},
		{"two nodes in a pipeline", udfOver(udfOver(rng(4))), 4, 7, true},
		{"two nodes in a pipeline, enough workers", udfOver(udfOver(rng(4))), 4, 8, false},
		{"a grouped map alone takes its workers at end of data", groupMap(rng(2)), 16, 2, false},
		{"a grouped map under a scalar node", udfOver(groupMap(rng(2))), 16, 8, true},
		{"no bound", udfOver(udfOver(rng(64))), 4, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Build(c.plan, Options{Partitions: c.partitions,
				Python: &operators.PythonSpec{Runner: noRunner{}, MaxWorkers: c.maxWorkers}})
			switch {
			case c.refused && (err == nil || !strings.Contains(err.Error(), PythonMaxWorkersConf)):
				t.Fatalf("want an error naming %s, got %v", PythonMaxWorkersConf, err)
			case !c.refused && err != nil:
				t.Fatalf("refused: %v", err)
			}
		})
	}
}
