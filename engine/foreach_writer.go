package engine

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// foreachWriter runs writeStream.foreach's writer (the client's pickled (func, None, ser, ser))
// as NON_UDF tasks on the session's Python workers, the way PythonForeachWriter runs it: one task
// per partition and epoch, the epoch id in the task's local property streaming.sql.batchId.
type foreachWriter struct {
	fn   plan.PythonFunction
	spec operators.PythonSpec
	tz   string
}

// newForeachWriter is the writer of fn on the session's runner; it fails when the session has
// no Python workers.
func (s *Session) newForeachWriter(fn *plan.PythonFunction) (sinks.ForeachWriter, error) {
	spec := s.pythonSpec()
	if spec == nil {
		return nil, sparkerr.Unsupported("writeStream.foreach needs Python workers: start the server with --python")
	}
	return &foreachWriter{fn: *fn, spec: *spec, tz: s.timeZone()}, nil
}

// Write implements sinks.ForeachWriter.
func (w *foreachWriter) Write(ctx context.Context, partition int, epoch int64, schema sqltypes.Schema, recs []arrow.RecordBatch) error {
	st, err := w.spec.Runner.Open(ctx, pyworker.Task{
		EvalType:        pyworker.NonUDF,
		UDFs:            []pyworker.UDF{{Command: w.fn.Command}},
		PartitionIndex:  partition,
		LocalProperties: map[string]string{pyworker.BatchIDProperty: strconv.FormatInt(epoch, 10)},
		PythonVersion:   w.fn.PythonVer,
		Conf:            w.spec.Conf,
		InputSchemas:    []*arrow.Schema{sqltypes.ToArrowSchema(schema, w.tz)},
	})
	if err != nil {
		return err
	}
	defer st.Close()
	if len(recs) > 0 {
		if err := st.Send(ctx, pyworker.Group{Batches: [][]arrow.RecordBatch{recs}}); err != nil {
			return err
		}
	}
	if err := st.CloseSend(ctx); err != nil {
		return err
	}
	for {
		rec, err := st.Recv(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rec.Release()
	}
}
