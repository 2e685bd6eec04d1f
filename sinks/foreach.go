package sinks

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// ForeachWriter is writeStream.foreach's Python writer: it runs as one task per sink partition
// and epoch, as Spark's ForeachDataWriter and PythonForeachWriter run it.
type ForeachWriter interface {
	// Write runs the writer on one partition's rows of one epoch: open(partition, epoch), then
	// process(row) for each row of recs (rows of schema, owned by the caller, possibly none),
	// then close(error) — or, for a plain function, the function on each row. It returns once
	// the task ended: nil when it ended cleanly, else why (the writer's PythonException). ctx
	// ends it (the query stops), killing the worker.
	Write(ctx context.Context, partition int, epoch int64, schema sqltypes.Schema, recs []arrow.RecordBatch) error
}

// Foreach is the foreach sink (Spark's ForeachWriterTable): each partition gathers an epoch's
// output by output mode (the inserts in append and update mode, its part of the result table in
// complete mode) and, at the epoch's barrier, runs the writer on it; the barrier moves on, and
// so the epoch commits, only once every partition's task ended cleanly. A task's failure fails
// the query with the writer's error. Like foreachBatch it is not idempotent per epoch: an epoch
// replayed after a crash runs the writer again with the same partition and epoch ids, which
// open(partition_id, epoch_id) lets the writer deduplicate (Spark's contract).
type Foreach struct {
	mode    flow.OutputMode
	schema  sqltypes.Schema
	w       ForeachWriter
	written RowCounter
}

// NewForeach builds the sink.
func NewForeach(env Env, w ForeachWriter) *Foreach {
	return &Foreach{mode: env.Mode, schema: env.Schema, w: w}
}

// Description implements Sink: the name of Spark's ForeachWriterTable.
func (s *Foreach) Description() string { return "ForeachSink" }

// Parallelism implements Sink: one writer task per upstream partition.
func (s *Foreach) Parallelism(upstream int) int { return max(1, upstream) }

// OutputRows implements Sink.
func (s *Foreach) OutputRows() int64 { return s.written.Take() }

// NewOperator implements Sink.
func (s *Foreach) NewOperator(env flow.Env) (flow.Operator, error) {
	return &foreachOperator{sink: s, partition: env.Partition, log: NewChangelog(s.mode, env.Mem)}, nil
}

type foreachOperator struct {
	sink      *Foreach
	partition int
	log       *Changelog
}

// Process implements flow.Operator.
func (o *foreachOperator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	o.log.Add(rec)
	return nil
}

// Barrier implements flow.BarrierHandler: the partition's task runs on the epoch's rows and the
// barrier moves on once it ended cleanly.
func (o *foreachOperator) Barrier(ctx context.Context, epoch int64, _ flow.Emitter) error {
	recs, err := o.log.Commit()
	if err != nil {
		return err
	}
	defer ReleaseRecords(recs)
	if err := o.sink.w.Write(ctx, o.partition, epoch, o.sink.schema, recs); err != nil {
		return err
	}
	o.sink.written.Add(CountRows(recs))
	return nil
}

// EndOfData implements flow.EndOfDataHandler: rows after the last barrier belong to no epoch.
func (o *foreachOperator) EndOfData(context.Context, flow.Emitter) error {
	o.log.Release()
	return nil
}

// Close implements flow.Closer.
func (o *foreachOperator) Close() { o.log.Release() }
