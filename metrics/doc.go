// Package metrics exposes Weir's Prometheus metrics: per streaming query, per server, and Go's
// runtime and process collectors, on an HTTP handler (cmd/weir serves it on --metrics-listen).
//
// Contract:
//   - New builds a Registry of its own (never prometheus.DefaultRegisterer): two servers in one
//     process keep apart. Handler serves the text exposition format on /metrics; with tokens
//     it requires "Authorization: Bearer <t>" for one of them (compared in constant time), the
//     same tokens the Spark Connect port takes.
//   - Query metrics (query.go) come from the progress reports the query publishes, the ones
//     query.lastProgress returns: QueryListener is a query.Listener added to each session's
//     query.Manager, and each ProgressEvent updates the query's series once per epoch. Nothing
//     on an operator's row path is instrumented and nothing it runs takes a lock for metrics:
//     counters, gauges and histograms are client_golang's atomic ones, held per query, and
//     the registry reads them at scrape. The batch count and row counters therefore agree with
//     recentProgress: weir_query_batches_total is the number of progress reports,
//     weir_query_input_rows_total the sum of their numInputRows. The series beyond Spark's
//     progress fields come from the maps where the query puts them: end-to-end latency and
//     checkpoint size from the sink progress' metrics map, spill bytes from a state operator's
//     customMetrics.spillBytes, Kafka lag per partition and files outstanding from a
//     source's metrics (offsetsBehindLatest, numFilesOutstanding).
//   - Series are labelled {name, id}: the query name ("" for none) and its persistent id. A
//     query's series stay while it runs and for Retention after it terminates
//     (weir_query_active 0), then are dropped at the next scrape; a restart of the same id
//     continues its counters.
//   - Server metrics (server.go): sessions and operations (read at scrape through the function
//     SetServerStats gives), RPCs by method, errors by method and Spark error class, bytes
//     received and sent, query failures by error class; go_* and process_* collectors.
//
// Names follow Prometheus conventions: a weir_ prefix, base units in the name (_seconds,
// _bytes), _total on counters. docs/grafana-dashboard.json is a dashboard over them.
package metrics
