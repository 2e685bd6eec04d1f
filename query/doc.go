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
