package sinks

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// ForeachBatchFunc is writeStream.foreachBatch's function: it is called once per epoch with the
// epoch's output, and the epoch commits only after it returns without error.
type ForeachBatchFunc interface {
	// Call runs the function on one epoch's output (batchID is the epoch id; recs are rows of
	// schema, owned by the caller, possibly none). It blocks until the function returns; ctx
	// ends it (the query stops).
	Call(ctx context.Context, batchID int64, schema sqltypes.Schema, recs []arrow.RecordBatch) error
	// Close stops the function's worker. The sink's owner calls it once, when the query ends.
	Close() error
}

// ForeachBatch is the foreachBatch sink (Spark's ForeachBatchSink): one partition gathers each
// epoch's output by output mode (inserts in append and update mode, the whole result in
// complete mode) and calls the function at the epoch's barrier. Unlike the other sinks it is not
// idempotent per epoch: an epoch replayed after a crash calls the function again, with the same
// batch id and the same rows, so the function can make its writes idempotent (Spark's contract).
type ForeachBatch struct {
	mode   flow.OutputMode
	schema sqltypes.Schema
	fn     ForeachBatchFunc
	once   sync.Once
	err    error
}

// NewForeachBatch builds the sink; it owns fn from now on (Close closes it).
func NewForeachBatch(env Env, fn ForeachBatchFunc) *ForeachBatch {
	return &ForeachBatch{mode: env.Mode, schema: env.Schema, fn: fn}
}

// Description implements Sink.
func (s *ForeachBatch) Description() string { return "ForeachBatchSink" }

// Parallelism implements Sink: the function sees each epoch's output as one DataFrame.
func (s *ForeachBatch) Parallelism(int) int { return 1 }

// OutputRows implements Sink: -1, as Spark reports for ForeachBatchSink (a V1 sink that does
// not count what the function writes).
func (s *ForeachBatch) OutputRows() int64 { return -1 }

// Close closes the function (once).
func (s *ForeachBatch) Close() error {
	s.once.Do(func() { s.err = s.fn.Close() })
	return s.err
}

// NewOperator implements Sink.
func (s *ForeachBatch) NewOperator(env flow.Env) (flow.Operator, error) {
	return &foreachBatchOperator{sink: s, log: NewChangelog(s.mode, env.Mem)}, nil
}

type foreachBatchOperator struct {
	sink *ForeachBatch
	log  *Changelog
}

// Process implements flow.Operator.
func (o *foreachBatchOperator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	o.log.Add(rec)
	return nil
}

// Barrier implements flow.BarrierHandler: the epoch's output goes to the function, and the
// barrier (so the commit) moves on only once it returned.
func (o *foreachBatchOperator) Barrier(ctx context.Context, epoch int64, _ flow.Emitter) error {
	recs, err := o.log.Commit()
	if err != nil {
		return err
	}
	defer ReleaseRecords(recs)
	if err := o.sink.fn.Call(ctx, epoch, o.sink.schema, recs); err != nil {
		if ctx.Err() != nil {
			return err // the query stops: not the function's failure
		}
		return userFunctionError(err)
	}
	return nil
}

// EndOfData implements flow.EndOfDataHandler: rows after the last barrier belong to no epoch.
func (o *foreachBatchOperator) EndOfData(context.Context, flow.Emitter) error {
	o.log.Release()
	return nil
}

// Close implements flow.Closer.
func (o *foreachBatchOperator) Close() { o.log.Release() }

// userFunctionError is Spark's ForeachBatchUserFuncException around the function's failure.
func userFunctionError(err error) error {
	return sparkerr.Newf(sparkerr.SparkException, "FOREACH_BATCH_USER_FUNCTION_ERROR", "39000",
		"An error occurred in the user provided function in foreach batch sink. Reason: %v", err).
		WithParams("reason", err.Error()).Wrap(err)
}
