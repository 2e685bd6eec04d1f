package sinks

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
)

// SaveMode is a batch write's DataFrameWriter.mode.
type SaveMode string

// Save modes.
const (
	SaveAppend        SaveMode = "append"
	SaveOverwrite     SaveMode = "overwrite"
	SaveErrorIfExists SaveMode = "errorifexists"
	SaveIgnore        SaveMode = "ignore"
)

// BatchSink is the target of a batch write (df.write…save()). Its operators take the rows of
// the whole write as one epoch and write them when their input ends (EndOfData); the engine
// calls Finish once, after every partition wrote its rows (the file formats then write
// Spark's _SUCCESS marker). Description, Parallelism and OutputRows are as for Sink.
type BatchSink interface {
	Sink
	// Finish completes the write after all its operators succeeded; ctx bounds what it does
	// (an overwrite's removal of the old output stops when ctx ends).
	Finish(ctx context.Context) error
	// Abort abandons a write whose operators failed or that was never run; the target stays
	// as it was (an overwrite's staged output is removed).
	Abort()
}

// BatchFactory validates options for a save mode and builds a batch sink. A nil sink with a
// nil error means there is nothing to write (mode ignore and the target exists).
type BatchFactory func(ctx context.Context, env Env, mode SaveMode, options map[string]string) (BatchSink, error)

// BatchAdapter adapts a streaming sink to a batch write: each operator commits epoch 0 at its
// EndOfData, OnFinish (optional) completes the write and OnAbort (optional) abandons it.
type BatchAdapter struct {
	Sink
	OnFinish func(context.Context) error
	OnAbort  func()
}

// Finish implements BatchSink.
func (b BatchAdapter) Finish(ctx context.Context) error {
	if b.OnFinish == nil {
		return nil
	}
	return b.OnFinish(ctx)
}

// Abort implements BatchSink.
func (b BatchAdapter) Abort() {
	if b.OnAbort != nil {
		b.OnAbort()
	}
}

// NewOperator implements Sink: the streaming operator, committing at the end of its input.
func (b BatchAdapter) NewOperator(env flow.Env) (flow.Operator, error) {
	op, err := b.Sink.NewOperator(env)
	if err != nil {
		return nil, err
	}
	return &endOfDataCommit{op: op}, nil
}

// endOfDataCommit hands the rows of a bounded input to a sink operator and commits them as
// epoch 0 when the input ends.
type endOfDataCommit struct{ op flow.Operator }

// Unwrap returns the sink's own operator.
func (e *endOfDataCommit) Unwrap() flow.Operator { return e.op }

// Process implements flow.Operator.
func (e *endOfDataCommit) Process(ctx context.Context, in int, rec arrow.RecordBatch, out flow.Emitter) error {
	return e.op.Process(ctx, in, rec, out)
}

// EndOfData implements flow.EndOfDataHandler.
func (e *endOfDataCommit) EndOfData(ctx context.Context, out flow.Emitter) error {
	if b, ok := e.op.(flow.BarrierHandler); ok {
		if err := b.Barrier(ctx, 0, out); err != nil {
			return err
		}
	}
	if h, ok := e.op.(flow.EndOfDataHandler); ok {
		return h.EndOfData(ctx, out)
	}
	return nil
}

// Close implements flow.Closer.
func (e *endOfDataCommit) Close() {
	if c, ok := e.op.(flow.Closer); ok {
		c.Close()
	}
}
