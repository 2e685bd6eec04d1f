package flow

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Emitter passes batches downstream. Emit blocks while downstream is full (backpressure) and
// fails when the job is cancelled. The emitted batch (flow-event form, the node's output schema)
// belongs to the runtime from then on.
type Emitter interface {
	Emit(ctx context.Context, rec arrow.RecordBatch) error
}

// Env is what the runtime gives an operator or source instance.
type Env struct {
	Mem memory.Allocator
	// Partition is this instance's partition index; Partitions the node's parallelism.
	Partition, Partitions int
	// OutSchema is the node's output schema (flow-event form).
	OutSchema *arrow.Schema
	// Budget is the job's memory budget when it has one (then Mem is the budget): Go-side
	// buffers are counted with Env.Reserve and Env.Release.
	Budget *MemoryBudget
}

// Operator processes data batches of one partition of a node. Instances are used by one
// goroutine at a time.
type Operator interface {
	// Process handles one data batch from input `in` (flow-event form, no marker rows). The
	// runtime releases rec after Process returns.
	Process(ctx context.Context, in int, rec arrow.RecordBatch, out Emitter) error
}

// InputEnder is notified when input `in` has delivered all its data (every sender of that input
// sent EndOfData).
type InputEnder interface {
	InputEnded(ctx context.Context, in int, out Emitter) error
}

// EndOfDataHandler is called once, after every input ended and before the runtime forwards
// EndOfData: blocking operators (sort, aggregate) emit their results here.
type EndOfDataHandler interface {
	EndOfData(ctx context.Context, out Emitter) error
}

// WatermarkHandler is called when the node's input watermark advances to ts, before the
// watermark is forwarded. The input watermark merges the inputs that carry one (barrier.Aligner:
// the minimum over an input's senders, then the job's policy over inputs; see
// JobOptions.WatermarkPolicy).
type WatermarkHandler interface {
	Watermark(ctx context.Context, ts int64, out Emitter) error
}

// BarrierHandler is called when barrier `epoch` has arrived from every sender (aligned), before
// it is forwarded: the operator emits what the epoch completes and readies its state.
type BarrierHandler interface {
	Barrier(ctx context.Context, epoch int64, out Emitter) error
}

// Closer releases an operator's resources when its goroutine ends, on success or failure.
type Closer interface {
	Close()
}

// Source produces the batches of one partition of a leaf node.
type Source interface {
	// Run emits data batches (and, for unbounded sources, markers) for one partition and
	// returns when it has no more data (bounded) or ctx ends. After Run returns nil the runtime
	// emits EndOfData.
	Run(ctx context.Context, env Env, out Emitter) error
}

// SourceFunc adapts a function to Source.
type SourceFunc func(ctx context.Context, env Env, out Emitter) error

// Run implements Source.
func (f SourceFunc) Run(ctx context.Context, env Env, out Emitter) error { return f(ctx, env, out) }

// Finisher is an optional Operator extension for operators that can complete before their
// input ends (a limit that has its rows). The runtime asks Done after each Process; once it is
// true the runtime finishes the instance at once (EndOfData handler, then EndOfData downstream),
// discards its further input, and stops every upstream task all of whose consumers need no more
// input (their context is cancelled; they send EndOfData and drain their own inputs).
type Finisher interface {
	Done() bool
}

// SenderAware is an optional Operator extension for operators that need to know which producer
// partition sent each batch (an order-preserving gather). The runtime then calls ProcessFrom
// instead of Process, and SenderEnded when one sender of input `in` delivered EndOfData (before
// InputEnded).
type SenderAware interface {
	ProcessFrom(ctx context.Context, in, sender int, rec arrow.RecordBatch, out Emitter) error
	SenderEnded(ctx context.Context, in, sender int, out Emitter) error
}
