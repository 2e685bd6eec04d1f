// Package operators holds Weir's flow operators: the per-partition building blocks the planner
// wires into flow graphs. Each constructor returns a Factory (flow.Node.NewOperator) that builds
// one instance per partition.
//
// Stateless: Project, Filter, Pass (union, repartition), Sample, Generate (explode, inline,
// stack, json_tuple: input row repeated per generated row, retraction flag included). Order: Concat (the
// order-preserving gather: partition 0's rows, then partition 1's…), Limit (reports
// flow.Finisher Done once it has its rows, so upstream stops), Tail, Sort (stable, at end of
// data), Window (window functions at end of data: rows sorted by partition and order keys,
// each function computed per window partition — ranking and offsets in O(1) a row, aggregates
// with one accumulator sliding over the frames, adding entering rows and retracting leaving
// ones; input past WindowSpec.Budget spills to a scratch store and is computed one window
// partition at a time). Keyed (the planner hash-partitions their inputs first): HashAggregate (dense group
// ids, retractions, streaming emission at barriers; a batch one emits its groups in the order of
// their first rows read sender by sender, aggregate_order.go), HashJoin (every join type; right input
// built, left probed), Distinct, SetOp. Partitioners: HashPartitioner, RoundRobinPartitioner,
// OffsetPartitioner.
//
// Sort compares fixed-width keys as normalized keys (sort_keys.go); TopN is Sort then Limit
// through a heap of offset+n rows (ties to the earlier row). A batch HashAggregate uses
// insert-only accumulators (expr.InsertOnly) and finds the groups of up to four integer-like
// keys by open addressing over the key values (aggregate_keys_fixed.go), of string, binary,
// decimal and boolean keys (with integer ones) over byte-normalized key rows held in an arena
// (aggregate_keys_bytes.go); it may apply the WHERE below it (AggregateSpec.Filter,
// aggregate_filter.go). A partial aggregate (AggregateSpec.SkipPartial, before an exchange)
// whose groups compact too few rows emits its groups and passes the rest of its input through,
// each row as its own partial result (aggregate_skip.go). HashJoin's build side is flat bucket chains (join_table.go).
//
// Observe (df.observe): forwards rows unchanged while every instance feeds them into one shared
// set of global-aggregate accumulators (ObservedMetrics, under a lock); once every instance
// passed the same barrier, or ended, the metrics of that round are computed and recorded by
// epoch (EndOfDataEpoch at end of data) and the next round starts empty.
//
// Event time: EventTimeWatermark (withWatermark: forwards rows, and at each barrier — after
// every partition of the node met there — emits max event time − delay as a Watermark marker
// before the barrier; EventTimeStats is shared by its partitions and read for progress),
// ExpandWindows (one row per sliding window containing a row's time), SessionAggregate
// (session_window: rows kept per key until the watermark closes their merged session). A
// HashAggregate with an AggregateSpec.EventTime key drops late rows (counted:
// RowsDroppedByWatermark), closes groups the watermark passes at the next barrier, emits them
// once in append mode and evicts them in append and update modes.
//
// Streaming state: StreamDedup (dropDuplicates / distinct / dropDuplicatesWithinWatermark on a
// stream: keys kept across epochs, evicted by the watermark when the key holds the event time
// or within watermark) and StreamJoin (the stream-stream symmetric hash join: inner, left,
// right and full outer, left semi; each pair emitted once, by its later row; state evicted by
// StateBound, outer rows emitted with NULLs when evicted unmatched). Both drop late rows
// (RowsDroppedByWatermark) and implement flow.StateReporter and flow.Snapshotter. The dedup's
// keys past its memory budget (StreamDedupSpec.Budget), and a join side's rows past half the
// join's (StreamJoinSpec.Budget), spill oldest first to a scratch Pebble store (state.Spill)
// and stay part of their lookups, matched flags, eviction and snapshots. The streaming
// aggregate (AggregateSpec.Budget) spills its least recently fed groups at a barrier, as
// per-group accumulator states (expr.GroupStateAccumulator), and loads a group back before
// feeding it; spilled groups close with the watermark and are part of snapshots.
//
// Python functions (through a PythonRunner, the session's worker pool): PythonEval (scalar
// functions; results appended to each row), PythonUDTF (@udtf table functions: each input row's
// returned rows follow it), PythonMap (mapInPandas / mapInArrow), and, keyed,
// PythonGroupMap (applyInPandas, cogroup) and PythonAggregate (grouped-aggregate functions: one
// row per group). Each holds one worker task per partition while it runs.
//
// Contract: every batch in and out is in flow-event form; outputs use the node's schema
// (env.OutSchema). Blocking operators emit at end of data in batches of at most BatchRows
// rows. Operators follow flow's ownership rules: they Retain what they keep past Process and
// release it in Close. Rows compare with Spark's grouping semantics: NULL equals NULL for
// grouping, distinct and set operations, never for join keys; NaN equals NaN; integers of any
// width hash alike.
package operators
