// Package barrier is the pure decision logic of Chandy-Lamport aligned barriers: no goroutines,
// no channels, no I/O. A runtime feeds it facts (a barrier, end of data or a watermark arrived
// from a sender) and gets back decisions (the barrier is aligned: snapshot and forward it; this
// sender is blocked: hold its data; the watermark advanced).
//
// Aligner tracks one operator instance's senders. A sender that delivered barrier N is blocked
// until every live sender delivered N; a sender that ended counts as having delivered every
// barrier.
//
// Watermarks follow Spark's global watermark: only inputs that carry one count. An input's
// watermark is the minimum over its live senders (the partitions of one stream); the inputs'
// watermarks combine by the Policy (spark.sql.streaming.multipleWatermarkPolicy: min, the
// default, or max). An input carries a watermark once any of its senders delivered one: every
// watermark operator sends one before its first barrier (0 while it has seen no event time,
// Spark's value for such an operator), so once a barrier aligned, an input that sent none
// carries none and is ignored (a stream-stream join with a watermark on one side only, a union
// with a static or unwatermarked stream). Before that first alignment the min policy waits for
// every input. The merged watermark never moves backwards.
package barrier
