package engine

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// foreachRunner is a fake worker pool recording a foreach writer's task: its header, the rows it
// was sent, whether its input was closed and the stream too; fail is what its output ends with.
type foreachRunner struct {
	task             pyworker.Task
	rows             int64
	closedSend, done bool
	fail             error
}

func (r *foreachRunner) Open(_ context.Context, t pyworker.Task) (operators.PythonStream, error) {
	r.task = t
	return foreachStream{r}, nil
}

type foreachStream struct{ r *foreachRunner }

func (s foreachStream) Send(_ context.Context, g pyworker.Group) error {
	for _, rec := range g.Batches[0] {
		s.r.rows += rec.NumRows()
	}
	return nil
}
func (s foreachStream) CloseSend(context.Context) error { s.r.closedSend = true; return nil }
func (s foreachStream) Recv(context.Context) (arrow.RecordBatch, error) {
	if s.r.fail != nil {
		return nil, s.r.fail
	}
	return nil, io.EOF
}
func (s foreachStream) Ready() bool  { return true }
func (s foreachStream) Close() error { s.r.done = true; return nil }

// TestForeachWriterTask: a foreach writer's epoch is one NON_UDF task of the client's command with
// the partition, the epoch id as streaming.sql.batchId and the rows' schema; the worker's error
// is the epoch's.
func TestForeachWriterTask(t *testing.T) {
	r := &foreachRunner{}
	s := NewSession(WithPythonRunner(r))
	defer s.Close()
	w, err := s.newForeachWriter(&plan.PythonFunction{Command: []byte("writer"), PythonVer: "3.11"})
	if err != nil {
		t.Fatal(err)
	}
	schema := sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(sqltypes.ToArrowSchema(schema, "UTC"), []arrow.Array{col}, 3)
	col.Release()
	defer rec.Release()

	if err := w.Write(context.Background(), 2, 41, schema, []arrow.RecordBatch{rec, rec}); err != nil {
		t.Fatal(err)
	}
	tk := r.task
	if tk.EvalType != pyworker.NonUDF || len(tk.UDFs) != 1 || string(tk.UDFs[0].Command) != "writer" ||
		tk.PartitionIndex != 2 || tk.LocalProperties[pyworker.BatchIDProperty] != "41" || tk.PythonVersion != "3.11" ||
		len(tk.InputSchemas) != 1 || tk.InputSchemas[0].Field(0).Name != "k" {
		t.Fatalf("task %+v", tk)
	}
	if r.rows != 6 || !r.closedSend || !r.done {
		t.Fatalf("rows %d, input closed %t, stream closed %t", r.rows, r.closedSend, r.done)
	}

	boom := errors.New("boom")
	r.fail, r.done = boom, false
	if err := w.Write(context.Background(), 0, 42, schema, nil); !errors.Is(err, boom) || !r.done {
		t.Fatalf("got %v (stream closed %t), want the worker's error", err, r.done)
	}
}
