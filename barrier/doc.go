// Package barrier is the pure decision logic of Chandy-Lamport aligned barriers: no goroutines,
// no channels, no I/O. A runtime feeds it facts (a barrier, end of data or a watermark arrived
// from a sender) and gets back decisions (the barrier is aligned: snapshot and forward it; this
// sender is blocked: hold its data; the watermark advanced).
//
// Aligner tracks one operator instance's senders. A sender that delivered barrier N is blocked
// until every live sender delivered N; a sender that ended counts as having delivered every
// barrier. Watermarks combine by minimum over live senders.
package barrier
