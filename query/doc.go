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
package query

// Start validates the plan against the output mode and trigger the way Spark's
// UnsupportedOperationChecker does (validate.go), builds the sink (sinks.New) and the flow graph
// (planner.Build with Streaming set; each stream scan opens its source through sources.OpenStream
// and runs as a sources.EpochSource), puts the sink's node on top and starts the job. A source
// that fails to open does not fail Start: the query starts and fails at once, as Spark's does.
//
// Failures: any error of the job, a source or the sink ends the query with a
// StreamingQueryException of error class STREAM_FAILED ("Query [id = …, runId = …] terminated
// with exception: <cause>"), which Exception, AwaitTermination, ProcessAllAvailable and
// Manager.AwaitAnyTermination report. Progress (progress.go) is one JSON report per completed
// epoch in Spark's json4s shape; listeners get progress, idle and terminated events from the
// query's goroutine, so Listener.OnEvent must not call back into the query synchronously.
