package operators

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sparkerr"
)

// PythonRunner starts evaluations on Python workers: the session's pyworker.Pool behind a
// small adapter, or a fake in tests.
type PythonRunner interface {
	Open(ctx context.Context, t pyworker.Task) (PythonStream, error)
}

// PythonWorkerReserver is a PythonRunner made for one plan whose tasks share one reservation of
// workers (pyworker.Reservation): the planner sets how many of the plan's tasks may run at once.
type PythonWorkerReserver interface {
	SetNeed(n int)
}

// PythonStream is one task running on a worker (pyworker.Stream): Send feeds input groups,
// Recv returns result batches (io.EOF after CloseSend once every result was read), Ready
// reports whether a result can be received without blocking, Close ends the task.
type PythonStream interface {
	Send(ctx context.Context, g pyworker.Group) error
	CloseSend(ctx context.Context) error
	Recv(ctx context.Context) (arrow.RecordBatch, error)
	Ready() bool
	Close() error
}

// PythonSpec is what every Python operator needs besides its functions.
type PythonSpec struct {
	Runner PythonRunner
	// Conf is the runner conf the worker reads (session time zone, maxRecordsPerBatch, …).
	Conf map[string]string
	// MaxRecordsPerBatch bounds the rows of one batch sent to a worker
	// (spark.sql.execution.arrow.maxRecordsPerBatch; ≤ 0 means no bound).
	MaxRecordsPerBatch int
	// MaxWorkers is how many workers Runner runs at once for plans that fit (≤ 0: no bound); a
	// Runner that is a PythonWorkerReserver is given the plan's need by the planner, which may
	// exceed it (the plan then runs alone, see planner/python_workers.go).
	MaxWorkers int
}

// task builds a worker task for one partition.
func (s PythonSpec) task(env flow.Env, evalType int32, pyVer string, udfs []pyworker.UDF) pyworker.Task {
	return pyworker.Task{EvalType: pyworker.EvalType(evalType), UDFs: udfs, PartitionIndex: env.Partition,
		PythonVersion: pyVer, Conf: s.Conf, Alloc: env.Mem}
}

// chunks splits n rows into runs of at most max rows (one run when max ≤ 0).
func chunks(n int64, max int) [][2]int64 {
	if n == 0 {
		return nil
	}
	if max <= 0 || int64(max) >= n {
		return [][2]int64{{0, n}}
	}
	var out [][2]int64
	for lo := int64(0); lo < n; lo += int64(max) {
		out = append(out, [2]int64{lo, min(n, lo+int64(max))})
	}
	return out
}

// argSchema names a worker batch's columns: names[i] when given (the map and grouped kinds send
// their input's column names, which become the pandas DataFrame's or Arrow table's), else _i as
// Spark's ArrowEvalPython names a scalar function's arguments.
func argSchema(cols []arrow.Array, names []string) *arrow.Schema {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		name := fmt.Sprintf("_%d", i)
		if i < len(names) {
			name = names[i]
		}
		fs[i] = arrow.Field{Name: name, Type: c.DataType(), Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}

// conform returns a as type want (retained): unchanged when it already is, else cast (a
// worker's timestamps may carry another zone name, its integers another width).
func conform(ctx context.Context, mem memory.Allocator, a arrow.Array, want arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(a.DataType(), want) {
		a.Retain()
		return a, nil
	}
	if a.DataType().ID() == arrow.NULL {
		return array.MakeArrayOfNull(mem, want, a.Len()), nil
	}
	out, err := compute.CastArray(compute.WithAllocator(ctx, mem), a, compute.SafeCastOptions(want))
	if err != nil {
		return nil, sparkerr.Newf(sparkerr.SparkException, "", "",
			"a Python function returned %s where %s was declared: %v", a.DataType(), want, err).Wrap(err)
	}
	return out, nil
}

// resultColumns are the columns of a map or grouped-map function's result batch (retained):
// pyworker.Stream already took them out of the struct worker.py wraps them in, so a single struct
// column is a struct field of the result, not the wrapping.
func resultColumns(rec arrow.RecordBatch) []arrow.Array {
	out := make([]arrow.Array, rec.NumCols())
	for i := range out {
		out[i] = rec.Column(i)
		out[i].Retain()
	}
	return out
}

// sendArgs sends the argument columns cols of rec's rows to stream in batches of at most maxRows
// rows, handing each batch's input rows (a slice of rec, owned by the callee) to pending before it
// is sent, and receives every result that is ready after each send (recv), so the worker's output
// never waits on the input.
func sendArgs(ctx context.Context, stream PythonStream, rec arrow.RecordBatch, cols []arrow.Array, maxRows int,
	pending func(arrow.RecordBatch), recv func() error) error {
	schema := argSchema(cols, nil)
	for _, c := range chunks(rec.NumRows(), maxRows) {
		part := make([]arrow.Array, len(cols))
		for i, col := range cols {
			part[i] = array.NewSlice(col, c[0], c[1])
		}
		batch := array.NewRecordBatch(schema, part, c[1]-c[0])
		releaseAll(part)
		pending(rec.NewSlice(c[0], c[1]))
		err := stream.Send(ctx, pyworker.Group{Batches: [][]arrow.RecordBatch{{batch}}})
		batch.Release()
		if err != nil {
			return err
		}
		for stream.Ready() {
			if err := recv(); err != nil {
				return err
			}
		}
	}
	return nil
}

// closeAndDrain ends stream's input and receives (recv) every result left, up to its io.EOF.
func closeAndDrain(ctx context.Context, stream PythonStream, recv func() error) error {
	if err := stream.CloseSend(ctx); err != nil {
		return err
	}
	for {
		err := recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
