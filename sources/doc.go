// Package sources holds Weir's flow sources: leaves of a flow graph that produce flow-event
// batches for one partition each (flow.Source). This issue brings the batch sources, Range
// (spark.range) and LocalData (inline rows); each partition's position is a plain row offset,
// the shape checkpoints will record once streaming sources (rate, socket, files, kafka) arrive
// with the streaming issue.
package sources
