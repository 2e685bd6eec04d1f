// Package bench holds Weir's benchmarks (go test -bench ./bench/...). Speed and memory targets are
// checked here, never by timed assertions in tests. Each benchmark reports rows/s as a custom
// metric, and figures are compared as ratios measured in one run: e.g. the engine's batch
// pipeline against a plain Go loop doing the same arithmetic on the same machine.
package bench
