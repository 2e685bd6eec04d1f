// Package sinks holds Weir's streaming sinks (console, memory, noop, and the file formats
// parquet, json and csv in append mode, file_sink.go, with Env.PartitionBy writing Hive-style
// directories col=value without the partition columns in the files, file_partition.go; kafka).
// Non-file sinks refuse partitionBy ("'memory' does not support partitioning."). File sinks
// resolve their path, and the commit log directory under it, through Env.Files (package
// fileaccess: CheckWrite) and write only to the resolved path. A
// sink is the last operator of a streaming query's flow graph: it receives flow-event batches
// (inserts and retractions) and, at each Barrier{epoch}, commits the epoch according to the
// query's output mode, then the runtime forwards the barrier so the query learns the epoch is
// done (Job.Next yields the barrier marker).
//
// Output modes over the changelog a sink receives:
//   - append: every received row is an insert (the planner rejects plans that could retract);
//     the epoch's rows are written.
//   - update: the epoch's rows that are inserts are written (a retraction is always followed by
//     the new version of its row in the same epoch, so the inserts are exactly the changed rows).
//   - complete: the sink keeps the whole result table by applying the changelog (a retraction
//     removes one equal row, an insert adds one) and writes the whole table each epoch.
//
// Sinks are idempotent per epoch: committing an epoch that was already committed (a replay after
// recovery) changes nothing.
//
// The Kafka sink (kafka_sink.go) is exactly-once by default: each epoch's rows commit in Kafka
// transactions together with the epoch's marker, so read_committed readers see an epoch's rows
// at its checkpoint. Under a continuous trigger (Env.Continuous) it defaults to at-least-once
// instead, as Spark's Kafka sink under continuous processing, so rows are visible as they are
// produced rather than at each checkpoint interval; an explicit exactlyOnce option wins either
// way. In append and update output a commit whose outcome a broker restart left unknown is
// settled by sending the commit again at the transaction's producer epoch (kafka_settle.go);
// in complete output it fails the query, whose restart replays the epoch exactly once.
//
// Batch writes (df.write, batch.go): NewBatch builds a format's BatchSink for a SaveMode; its
// operators take the whole write as epoch 0, committed when their input ends, and Finish
// completes it. File formats (parquet, json, csv, text; file_batch.go) write Spark's batch
// layout (part-<partition>-<job>-c000.<ext> files and _SUCCESS, no _spark_metadata) with
// Spark's save modes; kafka writes with a plain idempotent producer (append/errorifexists);
// noop counts rows (append/overwrite).
package sinks
