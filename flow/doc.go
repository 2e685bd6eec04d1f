// Package flow is Weir's dataflow runtime: pipelines of operators over flow-event batches,
// joined by bounded channels, run by a JobRunner.
//
// # Flow events
//
// Every batch moving between operators is an Arrow record whose first two columns are
// `_marker` (binary, nullable) and `_retracted` (boolean), then the user's columns. A batch is
// either a data batch (every `_marker` null; `_retracted` true marks a retraction of a row emitted
// earlier) or a marker batch of exactly one row whose `_marker` encodes a Marker: Barrier{epoch},
// Watermark{ts}, EndOfData. See event.go.
//
// # Operators
//
// An Operator processes one data batch at a time (Process) and emits batches through an Emitter.
// Optional interfaces let it react to control events: InputEnder (one input ended),
// EndOfDataHandler (all inputs ended: blocking operators emit here), WatermarkHandler,
// BarrierHandler, and Closer (release state). The runtime owns the loop, end-of-data counting,
// barrier alignment and watermark merging; operators never see marker batches. Finisher lets an
// operator end early (a satisfied limit): the runtime then stops every upstream task whose
// consumers all need no more input (see stop.go). SenderAware operators learn which producer
// partition sent each batch (the order-preserving gather).
//
// # Batch environment
//
// A data batch's schema metadata is its environment: facts true of every row, such as the file
// a file source read them from (batch_env.go). Sources set it; one-batch-in, one-batch-out
// operators pass it on (EnvSchema), and shuffles and operators that gather many batches drop
// it. Node schemas never carry one.
//
// # State checkpoints
//
// A stateful operator implements Snapshotter (and optionally StateReporter). When a job's
// options carry Checkpointing (JobOptions.Checkpointing) with a StateBackend, the runtime at every
// aligned barrier calls the operator's BarrierHandler, then takes its state for the epoch and
// only then forwards the barrier. A plain Snapshotter's bytes are saved through the backend
// under (node name, partition, epoch) before the barrier goes on. A StateCapturer is
// snapshotted asynchronously: at the barrier it only captures an immutable view of its state
// (the synchronous part); the barrier goes on at once and the instance's saver goroutine (owned
// by the job, one per instance, saves in epoch order, at most one capture queued) encodes the
// view and saves it while the instance processes the next epoch.
//
// "State of epoch N is saved": a job implements StateSaveWaiter. Every save is counted against
// its epoch before the barrier leaves the instance, so once epoch N's barrier reached the job's
// output (every instance forwarded it), WaitSaved(ctx, N) returns nil exactly when every
// instance's state of every epoch ≤ N was handed to StateBackend.Save and Save returned. The
// party that commits epochs (the query driver) calls it before writing commit N; a crash (or a
// failed save, which also fails the job) before that leaves N uncommitted, so recovery restores
// the previous commit's state and re-runs N. With a restore epoch, each Snapshotter instance
// gets RestoreState(snapshot at or before it) before any input. StateReporter metrics are
// taken at each barrier before the BarrierHandler and handed to Checkpointing.OnStateMetrics
// (before the barrier goes on) with CommitTime = how long the barrier waited for the state. See
// state.go and state_saver.go.
//
// # Memory budget
//
// A job started with JobOptions.MemoryBudget counts its memory in a MemoryBudget: the budget is every
// task's Env.Mem (so Arrow buffers are counted) and Env.Budget (Go-side buffers are counted
// with Env.Reserve/Release). An allocation past the budget is refused with Spark's
// UNABLE_TO_ACQUIRE_MEMORY (a panic out of Arrow's allocator interface); the runtime recovers
// it in the task (or state saver) that allocated and fails the job with it, and Close releases
// what the job buffered. Any other panic in a task fails the job as an error naming the node.
//
// # Progress
//
// A job started with JobOptions.Tracker reports its progress while it runs (progress.go): per
// node (a stage) its tasks, the tasks that ended and the Arrow bytes its sources produced. The
// engine passes the tracker an operation carries in its context (WithTracker); Spark Connect
// turns it into ExecutionProgress responses. Untracked jobs count nothing.
//
// # Graphs and runners
//
// A Graph is a DAG of Nodes. A leaf Node runs a Source; an inner Node runs one Operator instance
// per partition (NewOperator). Each input edge has an Exchange: Forward (partition i → i),
// Partition (a Partitioner splits each batch across the consumer's partitions, e.g. by hash),
// Broadcast (every batch to every partition) or Gather (everything to partition 0). The graph's
// Output node's batches are what a Job yields.
//
// A JobRunner starts a Graph with the job's settings — one JobOptions value: Checkpointing,
// WatermarkPolicy, MemoryBudget; plain values, not context values, so that a runner placing
// partitions in other processes can honour them too — and returns a Job. Runner-wide settings
// (the allocator, channel capacity) are LocalRunner's RunnerOptions. LocalRunner runs each (node, partition) in its own
// goroutine. Ownership: the runner owns every goroutine it starts and stops them all when the job
// ends, fails or is closed; every channel is written by its senders and never closed (receivers
// count EndOfData markers instead), so no send can panic on a closed channel. A batch passed to
// Process is released by the runtime after Process returns (Retain it to keep it); a batch given
// to Emit belongs to the runtime from then on.
package flow
