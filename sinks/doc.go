// Package sinks holds the contracts of Weir's sinks and the toolkit the connectors share; the
// sinks themselves live in connectors/<system> (package connectors).
//
// A sink (Sink) is the last operator of a streaming query's flow graph: it receives flow-event
// batches (inserts and retractions) and, at each Barrier{epoch}, commits the epoch according to
// the query's output mode, then the runtime forwards the barrier so the query learns the epoch
// is done (Job.Next yields the barrier marker). Sinks are idempotent per epoch: committing an
// epoch that was already committed (a replay after recovery) changes nothing. Env is what a
// sink is built with (output mode, schema, partitionBy, the file-access policy, the session's
// TableRegistry for the memory sink's MemoryTable, …).
//
// Output modes over the changelog a sink receives:
//   - append: every received row is an insert (the planner rejects plans that could retract);
//     the epoch's rows are written.
//   - update: the epoch's rows that are inserts are written (a retraction is always followed by
//     the new version of its row in the same epoch, so the inserts are exactly the changed rows).
//   - complete: the sink keeps the whole result table by applying the changelog (a retraction
//     removes one equal row, an insert adds one) and writes the whole table each epoch.
//
// Batch writes (df.write, batch.go): a BatchSink takes the whole write as epoch 0, committed
// when its operators' input ends, and Finish completes it; BatchAdapter turns a streaming sink
// into one. SaveMode is DataFrameWriter.mode.
//
// Python sinks (the functions run on the session's Python workers, behind interfaces the engine
// implements): ForeachBatch (foreach_batch.go, one call per epoch with its whole output) and
// Foreach (foreach.go, writeStream.foreach: one writer task per sink partition and epoch). Unlike
// the other sinks they are not idempotent per epoch: a replayed epoch runs the function again
// with the same ids, as in Spark.
//
// Toolkit: Changelog (changelog.go: an epoch's output per output mode, Inserts, the complete
// mode's compacting result table), RowCounter (numOutputRows), Options (Spark's
// CaseInsensitiveStringMap parsing).
//
// Imports: flow, fileaccess, expr, sqltypes, sparkerr and libraries; never a connector
// (checked by connectors/imports_test.go).
package sinks
