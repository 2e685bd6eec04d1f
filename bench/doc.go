// Package bench holds Weir's benchmarks (go test -bench ./bench/...). Speed and memory targets are
// checked here, never by timed assertions in tests. Each benchmark reports rows/s as a custom
// metric, and figures are compared as ratios measured in one run: e.g. the engine's batch
// pipeline against a plain Go loop doing the same arithmetic on the same machine.
//
// The streaming benchmarks run real queries through engine.Session.StartStream: rate sources
// into the noop sink (throughput), and into the "latency-probe" sink registered by this
// package's tests, which records for every row the wall-clock time since its `timestamp`
// column and reports p50/p99 in ms. Measured figures and the command to reproduce them are in
// RESULTS.md.
//
// The Kafka benchmarks (kafka_test.go) need a real broker and are skipped unless
// KAFKA_BOOTSTRAP is set; bench/kafka-bench.sh starts a private broker, measures the broker's
// own ceiling with Kafka's perf tools and runs them next to it.
package bench
