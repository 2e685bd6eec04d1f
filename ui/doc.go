// Package ui is Weir's web UI (cmd/weir serves it on --ui-listen): active and recent streaming
// queries with the charts of Spark's Structured Streaming tab updating live, each query's plan
// and last error, and the sessions with their running operations, which it can cancel, and
// their queries, which it can stop.
//
// Contract:
//   - Everything is served from the binary: assets/ (index.html, app.js, app.css: plain
//     HTML, CSS and JavaScript, no CDN, no build step) is embedded. The page polls the JSON
//     API (api.go) once a second and draws its charts on <canvas> itself; each chart carries
//     data-points, the number of points it draws.
//   - History (history.go) keeps the chart points per query run, fed by a query.Listener per
//     session (History.Listener, added next to the metrics' listener) from the progress
//     reports lastProgress returns: at most DefaultPoints per run; a terminated run stays
//     DefaultRetention, at most DefaultTerminated of them. A point (point.go) has the series of
//     Spark's StreamingQueryStatisticsPage: input and process rate, input rows, batch
//     duration, operation durations (durationMs without triggerExecution), global watermark
//     gap (batch time − watermark, seconds) and the state operators' rows, updated rows,
//     memory and rows dropped by the watermark, summed.
//   - Authorization is the Spark Connect port's: a request's bearer token maps to a Principal
//     (Backend.Authorize; with no server tokens everyone is the same principal), which sees
//     only the sessions, operations and query runs its token created. Cancel and stop name a
//     session and user id and go through the same path as Spark Connect's Interrupt and
//     StreamingQuery.stop, so they are authorized as those are. The page and its assets hold
//     no data and need no token; the page asks for one when the API answers 401 and sends it
//     as "Authorization: Bearer".
//   - Requests that change something are POSTs refused cross-origin; with LoopbackOnly a Host
//     that is not loopback is refused (DNS rebinding); responses forbid framing and carry a
//     Content-Security-Policy allowing only the UI's own assets.
package ui
