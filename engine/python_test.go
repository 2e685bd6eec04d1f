package engine

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// plusOneRunner is a fake worker pool whose every scalar function returns its first argument
// (a bigint) plus one; it records the tasks and the largest batch it was sent.
type plusOneRunner struct {
	mu       sync.Mutex
	tasks    []pyworker.Task
	maxBatch int64
}

func (r *plusOneRunner) Open(_ context.Context, t pyworker.Task) (operators.PythonStream, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tasks = append(r.tasks, t)
	return &plusOneStream{r: r, task: t}, nil
}

type plusOneStream struct {
	r       *plusOneRunner
	task    pyworker.Task
	results []arrow.RecordBatch
	closed  bool
}

func (s *plusOneStream) Send(_ context.Context, g pyworker.Group) error {
	in := g.Batches[0][0]
	s.r.mu.Lock()
	s.r.maxBatch = max(s.r.maxBatch, in.NumRows())
	s.r.mu.Unlock()
	var cols []arrow.Array
	var fs []arrow.Field
	for i, u := range s.task.UDFs {
		arg := in.Column(u.ArgOffsets[0]).(*array.Int64)
		b := array.NewInt64Builder(s.task.Alloc)
		for j := 0; j < arg.Len(); j++ {
			b.Append(arg.Value(j) + 1)
		}
		cols = append(cols, b.NewArray())
		b.Release()
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("_%d", i), Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	s.results = append(s.results, array.NewRecordBatch(arrow.NewSchema(fs, nil), cols, in.NumRows()))
	for _, c := range cols {
		c.Release()
	}
	return nil
}

func (s *plusOneStream) CloseSend(context.Context) error { s.closed = true; return nil }

func (s *plusOneStream) Recv(context.Context) (arrow.RecordBatch, error) {
	if len(s.results) == 0 {
		if s.closed {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("would block")
	}
	r := s.results[0]
	s.results = s.results[1:]
	return r, nil
}

func (s *plusOneStream) Ready() bool { return len(s.results) > 0 }

func (s *plusOneStream) Close() error {
	for _, r := range s.results {
		r.Release()
	}
	s.results = nil
	return nil
}

// TestPythonFunctionInSQL registers a Python function (spark.udf.register) and calls it from
// SQL in a select list and a filter: rows go to the runner in batches of at most
// maxRecordsPerBatch, one task per partition, with Spark's runner conf.
func TestPythonFunctionInSQL(t *testing.T) {
	ctx := context.Background()
	r := &plusOneRunner{}
	s := NewSession(WithPythonRunner(r))
	defer s.Close()
	if err := s.Conf().Set("spark.sql.execution.arrow.maxRecordsPerBatch", "4"); err != nil {
		t.Fatal(err)
	}
	if err := s.Conf().Set("spark.sql.session.timeZone", "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	reg := plan.RegisterPythonFunction{Func: &plan.PythonUDF{Name: "plus_one", PythonFunction: plan.PythonFunction{EvalType: 200, Command: []byte("f"), PythonVer: "3.12"},
		OutputType: sqltypes.LongType, Deterministic: true}}
	if _, err := s.RunCommand(ctx, reg); err != nil {
		t.Fatal(err)
	}
	res, err := runSQL(ctx, s, "SELECT id, PLUS_ONE(id) AS p FROM range(0, 25, 1, 3) WHERE plus_one(id) % 5 = 0")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Schema.Names(), ","); got != "id,p" {
		t.Fatalf("columns %s", got)
	}
	if !res.Schema[1].Nullable {
		t.Fatalf("a Python function's result must be nullable: %v", res.Schema)
	}
	rows, err := render(ctx, s, res)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rows, " "), "4 | 5 9 | 10 14 | 15 19 | 20 24 | 25"; got != want {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if r.maxBatch > 4 {
		t.Fatalf("a batch of %d rows went to a worker; maxRecordsPerBatch is 4", r.maxBatch)
	}
	parts := map[int]bool{}
	for _, task := range r.tasks {
		parts[task.PartitionIndex] = true
		if task.EvalType != pyworker.SQLScalarPandasUDF || task.PythonVersion != "3.12" ||
			task.Conf["spark.sql.session.timeZone"] != "Europe/Paris" ||
			task.Conf["spark.sql.execution.arrow.maxRecordsPerBatch"] != "4" ||
			task.Conf["spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName"] != "true" ||
			task.Conf["spark.sql.execution.pandas.convertToArrowArraySafely"] != "false" {
			t.Fatalf("task %+v", task)
		}
	}
	if len(parts) != 3 {
		t.Fatalf("tasks ran on partitions %v, want the range's 3", parts)
	}
}

// TestPythonFunctionWithoutPython checks a plan calling a Python function fails clearly when
// the session has no Python runner.
func TestPythonFunctionWithoutPython(t *testing.T) {
	ctx := context.Background()
	s := NewSession()
	defer s.Close()
	u := &plan.PythonUDF{Name: "f", PythonFunction: plan.PythonFunction{EvalType: 200, Command: []byte("f")}, OutputType: sqltypes.LongType,
		Args: []plan.Expr{plan.Col("id")}}
	_, err := s.Execute(ctx, &plan.Project{Input: &plan.Range{End: 3, Step: 1}, Exprs: []plan.Expr{u}})
	if err == nil || !strings.Contains(err.Error(), "--python") {
		t.Fatalf("got %v", err)
	}
}
