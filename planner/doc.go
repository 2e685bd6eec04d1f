// Package planner turns a resolved logical plan (package logical) into a flow graph (package
// flow) of operators (package operators) and sources (package sources).
//
// Every node's output is in flow-event form: flow.EventSchema of the logical node's schema in
// Arrow types (timestamps in the session time zone). Partitioning: Range splits its ids into
// contiguous slices over its partitions (its own count, else Options.Partitions); local data is
// one partition; Project, Filter, Sample and per-partition Sort keep their input's partitions
// (Forward edges), and consecutive Project, Filter and Sample fuse into one node
// (operators.Chain); a Filter under a Project copies only the columns the Project reads
// (operators.FilterKeeping). Generate (explode and the other generators) is stateless too and fuses the
// same way; on a stream its rows carry their input row's retraction flag. Aggregate, Distinct,
// SetOp and equi-joins hash-partition their inputs on the keys into Options.Partitions
// partitions (grouping expressions that are not plain columns are projected into columns
// before the exchange); a global aggregate gathers to one partition. A batch aggregate of
// count, sum, min, max and avg (non-decimal) aggregates each input partition first and
// exchanges one row per group and partition (aggregate_partial.go). Joins without keys
// broadcast the right side (right and full outer ones gather both sides to one partition); a
// batch equi-join whose right side is hinted for broadcast (Join.RightHint, from df.hint or
// /*+ BROADCAST */; the optimizer makes the hinted side the right one) or that the optimizer
// found small enough (Join.BroadcastRight) keeps the left's partitions and broadcasts the
// right, unless it is a right or full outer join.
// A Window hash-partitions its input on its partition keys (gathers it to one partition when
// it has none) and runs operators.Window, which spills past the operator memory budget
// (state.BudgetFromConf); window functions on a stream are refused with Spark's
// NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING (CheckStreamingOperators and the planner).
// Union lays its inputs' partitions side by side. Global Sort, Limit and Tail first gather
// through the order-preserving Concat; Limit and Tail keep a per-partition limit or tail below
// it, and Limit stops its upstream once satisfied. A batch Limit over a global Sort (ORDER BY …
// LIMIT n) plans as TopN: a heap per partition, then one over their ordered gather.
//
// Python functions (Options.Python: the session's runner and runner conf; without it a plan
// calling Python fails asking for --python): PythonEval (ArrowEvalPython / BatchEvalPython),
// PythonUDTF (BatchEvalPythonUDTF / ArrowEvalPythonUDTF) and MapInPython are their own nodes on forward edges, keeping their input's partitions (one worker
// task per partition, running in parallel), batch and streaming; GroupMapInPython,
// CoGroupMapInPython and AggregateInPython (AggregateInPandas: grouped-aggregate functions)
// hash-partition their inputs on the grouping keys into Options.Partitions partitions (a
// global AggregateInPython gathers one) and are refused on streams, as Spark's
// UnsupportedOperationChecker does. Each partition of a Python node holds one worker while it
// runs; the planner gives a runner that is an operators.PythonWorkerReserver the number of
// tasks the plan must be able to run at once (python_workers.go: every Python partition, or at
// most PythonSpec.MaxWorkers when a batch plan's only Python node takes its workers at end of
// data or has partitions fed independently from the sources), which the runner reserves for the
// plan at once, alone when it exceeds MaxWorkers (spark.weir.python.maxWorkers): no plan waits
// forever for a worker and none is refused.
//
// Event time: a logical.Watermark becomes an EventTimeWatermark node (its own node, on a
// forward edge). An aggregate grouping by a sliding window gets an ExpandWindows node below its
// exchange; one grouping by session_window becomes a SessionAggregate. A streaming aggregate
// with a grouping key on the watermarked event time (logical.EventTimeKey) follows the
// watermark as Options.OutputMode says (append: closed groups once; update: changes, closed
// groups evicted; complete: everything kept). Options.Observers collects the watermark stats
// and the aggregates' late-row counters for a query's progress, and the shared state of each
// df.observe node (CollectMetrics: an Observe node on a forward edge, keeping its input's
// partitions), whose metrics a batch result and a stream's progress report.
//
// Streaming state (Options.Streaming): a Distinct over a stream becomes a StreamDedup
// (hash-partitioned on its keys); a join of two streams becomes a StreamJoin, both sides
// hash-partitioned on the join keys, its state bounded as Spark's join helper derives it (a
// watermarked event time or window among the equi-join keys, or range conditions such as
// lt BETWEEN rt AND rt + INTERVAL 1 HOUR against the other side's watermarked time).
// Stream-static joins keep the batch hash join with the static side built. The StreamDedup's
// keys, the StreamJoin's rows and the streaming aggregate's groups spill past the memory budget
// Options.Conf gives (state.MemoryBudgetConf).
// CheckStreamingOperators applies Spark's unsupported-operation rules for these operators.
//
// Order: the output node has parallelism 1. When the plan's last node has more partitions, a
// Concat gathers them in partition order, so a plan without exchanges returns rows in the
// order Spark would (spark.range(10) is 0..9); after an exchange the order is the partitions'.
// A batch repartition(1) is a Concat too (Spark's shuffle read takes map outputs in map order),
// and a batch aggregate (builtin or AggregateInPython) emits its groups in the order of their
// first rows read sender by sender (operators/aggregate_order.go), not in arrival order.
// Streaming plans (Options.Streaming) gather without ordering wherever one partition is needed,
// since unbounded partitions never end.
package planner
