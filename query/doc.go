// Package query runs streaming queries: the lifecycle of one query (start, epochs cut by
// triggers, progress, status, stop, failure) and the per-session manager (spark.streams).
//
// A Query owns one coordinator goroutine and one flow job. The coordinator is pure decision
// logic (coordinator.go: Step(event) []action) driven by a thin loop that does the I/O: asking
// sources for their latest offsets, handing epochs to the sources, reading epoch completions
// (barrier markers that the sink forwards after committing) from the job, and publishing
// progress. The trigger decides when the next epoch starts.
//
// Ownership: Manager.Start starts a query; Query.Stop (or the query's own end: once/availableNow,
// failure) stops its coordinator and job and waits for them. Manager.StopAll stops every query of
// a session (ReleaseSession, session expiry). Stopped queries stay inspectable for at least an
// hour.
//
// # Checkpoints and exactly-once
//
// A query's checkpoint location is the "checkpointLocation" option, else
// spark.sql.streaming.checkpointLocation plus "/" and the query name (or a new UUID); without
// one, memory, console and noop sinks run without durable state and file sinks refuse to start.
// With one, the query opens a checkpoints.Store in <location>/weir-pebble for as long as it
// runs (checkpoint.go). The location (and the store directory in it) is checked for writing
// by Env.Files (package fileaccess) before anything is created, as is the spill directory
// conf; sources and sinks get the same policy. One run per location: starting a query on a location an active query
// of the same session holds stops that run first (Spark's default); another session's (or
// another process's) run makes Start fail with CONCURRENT_QUERY. Sessions know of each other's
// runs through Env.Locations, one value per server (connect passes it to every session); there
// is no process-global state, so two servers in one process are as apart as two processes
// (the store's lock).
//
// The first start records the query metadata: its persistent id, the state partition count and
// the stateful operators' key and value schemas (stateful.go). A restart reuses the id (with a
// new run id) and the partition count; a changed source list or stateful operator is an
// AnalysisException at start (STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE and friends) and leaves the
// checkpoint as it was.
//
// The coordinator logs each epoch's offset ranges (synced) before the sources get the epoch,
// and commits the epoch (synced) once every sink partition forwarded its barrier, i.e. after
// the sink committed and every stateful operator saved its state for the epoch (flow.Snapshotter
// through flow.Checkpointing). On start, recovery (recovery.go, pure) reads the last commit C:
// operators restore their state of C, the sources resume at C's end, epoch ids continue at
// C+1, and if offsets of C+1 were logged without a commit, epoch C+1 runs first with exactly
// those offsets (idempotent sinks, like the file sink, skip an epoch they already committed).
// Operator state is stored under state ids that survive stateless plan changes (the node kind
// and its rank among nodes of that kind, not the planner's build-order number). Sources keep
// metadata (the rate source's creation time) in the store by source index. Every ten commits,
// offsets and commits older than 100 epochs and state snapshots recovery no longer needs are
// purged. Stateful operators' metrics (flow.StateReporter) fill progress' stateOperators.
//
// Each offsets-log entry also carries Spark's OffsetSeqMetadata (eventtime.go): the watermark
// the epoch's rows are judged against (batchWatermarkMs, and Weir's per-withWatermark-node
// values), its batch timestamp, and the settings a restart keeps from the checkpoint
// (spark.sql.streaming.multipleWatermarkPolicy, spark.sql.shuffle.partitions). An epoch that
// runs again starts from its logged watermarks; restored watermark snapshots give a restart the
// watermark it had reached, so its first epoch is judged (and reported) as the next one would
// have been. The policy (min or max) decides how the watermarks of several withWatermark nodes
// combine where their streams meet (flow.JobOptions.WatermarkPolicy, barrier.Aligner). The batch
// timestamp is what current_timestamp() and the other current-time functions return while the
// epoch runs (expr.Context.Batch, set by the driver as each epoch starts; without a checkpoint,
// the epoch's start): an epoch run again after a restart sees the time it was logged with, as
// in Spark. Continuous processing refuses these functions, as Spark does.
//
// # Continuous processing: source polling
//
// Under trigger(continuous=...) rows move as soon as a source has them: every
// spark.weir.streaming.continuous.sourcePollIntervalMs (a positive time, a bare number
// counting milliseconds, default 5ms; read at start) one partition of each source asks it for its latest
// offsets and, when they moved, all partitions read the new range (sources.EpochSource with
// sources.WithPollInterval). The interval bounds the time a new row waits to be noticed, at
// the cost of one offset look-up per interval while the source is idle. Sources that know
// locally what they fetched (sources.LocalLatest: Kafka's open readers) are planned as their
// records arrive, without a broker request per poll, and asked for their full latest offsets
// every 200 ms (an idle continuous Kafka query costs about 3–5% of a core; 13% when every
// 5 ms poll was a ListOffsets request). It is Weir's own setting: Spark's
// spark.sql.streaming.continuous.executorPollIntervalMs (default 100 ms) is how often a
// continuous reader asks the driver whether the epoch advanced, i.e. how soon an epoch marker
// follows the epoch's end; in Weir epoch barriers are handed to the sources directly.
package query

// Start validates the whole write in one place (validate.go: streaming input, the writer's
// settings, the trigger, and the plan against the output mode and trigger the way Spark's
// UnsupportedOperationChecker does), builds the sink (connectors.NewSink) and the flow graph
// (planner.Build with Streaming set; each stream scan opens its source through connectors.OpenStream
// and runs as a sources.EpochSource), puts the sink's node on top and starts the job. A source
// that fails to open does not fail Start: the query starts and fails at once, as Spark's does.
//
// Failures: any error of the job, a source or the sink ends the query with a
// StreamingQueryException of error class STREAM_FAILED ("Query [id = …, runId = …] terminated
// with exception: <cause>"), which Exception, AwaitTermination, ProcessAllAvailable and
// Manager.AwaitAnyTermination report. A query's job runs under its own flow.MemoryBudget of
// Env.MemoryBudget bytes (its sources, operators, state and sink); outgrowing it is such a
// failure (cause UNABLE_TO_ACQUIRE_MEMORY). Progress (progress.go) is one JSON report per completed
// epoch in Spark's json4s shape; listeners get progress, idle and terminated events from the
// query's goroutine, so Listener.OnEvent must not call back into the query synchronously.
