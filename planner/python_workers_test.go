package planner

import (
	"context"
	"testing"

	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// needRunner is never run: these plans are only built; it records the need the planner sets.
type needRunner struct{ need *int }

func (needRunner) Open(context.Context, pyworker.Task) (operators.PythonStream, error) {
	panic("planner test: a plan was run")
}

func (r needRunner) SetNeed(n int) { *r.need = n }

func idRef() expr.Expr { return &expr.Column{Index: 0, Name: "id", T: sqltypes.LongType} }

// udfOver is in with one scalar pandas function of id appended.
func udfOver(in logical.Node) logical.Node {
	return &logical.PythonEval{Input: in, EvalType: 200, Names: []string{"pythonUDF0"},
		Funcs: []*logical.PythonFunc{{Name: "f", EvalType: 200, Command: []byte("f"), ReturnType: sqltypes.LongType, Args: []expr.Expr{idRef()}}}}
}

// TestPythonWorkersNeeded checks how many workers the planner reserves for a plan: every
// Python partition when some could otherwise wait forever for a worker (even past
// spark.weir.python.maxWorkers: such a plan runs alone), at most maxWorkers when its partitions
// can take turns.
func TestPythonWorkersNeeded(t *testing.T) {
	rng := func(parts int) logical.Node { return &logical.Range{Start: 0, End: 100, Step: 1, Partitions: parts} }
	structOf := sqltypes.StructType(sqltypes.Field{Name: "id", Type: sqltypes.LongType, Nullable: true})
	groupMap := func(in logical.Node) logical.Node {
		return &logical.GroupMapInPython{Input: in, Keys: []expr.Expr{idRef()},
			Func: &logical.PythonFunc{Name: "g", EvalType: 201, Command: []byte("g"), ReturnType: structOf, Args: []expr.Expr{idRef()}}}
	}
	barrierMap := func(in logical.Node) logical.Node {
		return &logical.MapInPython{Input: in, IsBarrier: true,
			Func: &logical.PythonFunc{Name: "m", EvalType: 205, Command: []byte("m"), ReturnType: structOf, Args: []expr.Expr{idRef()}}}
	}
	deep := rng(2)
	for range 30 {
		deep = udfOver(deep)
	}
	for _, c := range []struct {
		name       string
		plan       logical.Node
		partitions int
		maxWorkers int
		need       int
	}{
		{"one node over independent source partitions takes turns", udfOver(rng(16)), 4, 2, 2},
		{"one node behind an exchange", udfOver(&logical.Repartition{Input: rng(2), Partitions: 8}), 4, 4, 8},
		{"two nodes in a pipeline", udfOver(udfOver(rng(4))), 4, 7, 8},
		{"30 nodes × 2 partitions past a bound of 4", deep, 4, 4, 60},
		{"a grouped map alone takes its workers at end of data", groupMap(rng(2)), 16, 2, 2},
		{"a grouped map under a scalar node", udfOver(groupMap(rng(2))), 16, 8, 32},
		{"a barrier map's tasks all run at once", barrierMap(rng(16)), 4, 2, 16},
		{"no bound", udfOver(udfOver(rng(64))), 4, 0, 128},
	} {
		t.Run(c.name, func(t *testing.T) {
			need := -1
			if _, err := Build(c.plan, Options{Partitions: c.partitions,
				Python: &operators.PythonSpec{Runner: needRunner{&need}, MaxWorkers: c.maxWorkers}}); err != nil {
				t.Fatal(err)
			}
			if need != c.need {
				t.Fatalf("need = %d, want %d", need, c.need)
			}
		})
	}
}
