package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
)

// Checkpoint benchmarks (issue [exactly-once]): the cost of checkpointing for the aggregation
// workload, the duration of a checkpoint with 1 M keys of state, and the recovery of 1 M keys.
// Weir checkpoints at every epoch when a query has a checkpoint location, so the queries here
// set the "checkpointLocation" option to a fresh directory under b.TempDir().

// stateKeys is the number of distinct groups of the 1 M keys benchmarks.
const stateKeys = 1_000_000

// checkpointedRun is one query run: its progress JSON strings, oldest first.
type checkpointedRun struct {
	progress []string
}

// startAndWait starts ws, waits until epochs micro-batches completed (progress events), stops
// the query and returns its progress and the time from the start call to the first progress.
func startAndWait(b *testing.B, s *engine.Session, ws *plan.WriteStream, epochs int) (checkpointedRun, time.Duration) {
	b.Helper()
	events := make(progressCounter, 1024)
	remove := s.Streams().AddListener(events)
	defer remove()
	ctx := context.Background()
	began := time.Now()
	q, err := s.StartStream(ctx, ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := q.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}()
	var first time.Duration
	deadline := time.After(5 * time.Minute)
	for n := 0; n < epochs; {
		select {
		case <-events:
			n = len(q.RecentProgress())
			if n > 0 && first == 0 {
				first = time.Since(began)
			}
		case <-deadline:
			b.Fatalf("%d of %d micro-batches completed in 5 minutes", n, epochs)
		}
		if exc := q.Exception(); exc != nil {
			b.Fatal(exc.Message)
		}
	}
	return checkpointedRun{progress: q.RecentProgress()}, first
}

// progressOf is the part of a progress JSON the benchmarks read.
type progressOf struct {
	NumInputRows   int64            `json:"numInputRows"`
	DurationMs     map[string]int64 `json:"durationMs"`
	StateOperators []struct {
		NumRowsTotal int64 `json:"numRowsTotal"`
		CommitTimeMs int64 `json:"commitTimeMs"`
	} `json:"stateOperators"`
}

func (r checkpointedRun) parsed(b *testing.B) []progressOf {
	b.Helper()
	out := make([]progressOf, len(r.progress))
	for i, p := range r.progress {
		if err := json.Unmarshal([]byte(p), &out[i]); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// benchAggregation runs the aggregation workload of BenchmarkStreamAggregationThroughput,
// with a checkpoint location under b.TempDir() (a fresh one per iteration) when checkpoint is
// set, and reports input rows/s over the whole iteration (start, epochs, stop).
func benchAggregation(b *testing.B, checkpoint bool) {
	s := engine.NewSession()
	defer s.Close()
	var rows float64
	for b.Loop() {
		r := runAggregation(b, s, checkpoint)
		rows += r.rowsPerSec * r.took.Seconds()
	}
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
}

// aggregationRun is one run of the aggregation workload: its input rows per second, the
// process CPU time per input row, and the share of the micro-batches' time spent writing the
// offsets log and the commit (durationMs walCommit + commitOffsets — the latter includes the
// wait for the state saves — over triggerExecution).
type aggregationRun struct {
	rowsPerSec, cpuPerRow, logShare float64
	took                            time.Duration
}

// runAggregation runs the aggregation workload once (start, streamEpochs micro-batches, stop).
func runAggregation(b *testing.B, s *engine.Session, checkpoint bool) aggregationRun {
	ws := &plan.WriteStream{Input: groupCountQuery(rateMicroBatch(streamBatchRows)), Format: "noop", OutputMode: "update"}
	if checkpoint {
		ws.Options = map[string]string{"checkpointLocation": b.TempDir()}
	}
	cpu0 := processCPU(b)
	began := time.Now()
	run, _ := startAndWait(b, s, ws, streamEpochs)
	took := time.Since(began)
	cpu := processCPU(b) - cpu0
	var n, logMs, triggerMs int64
	for _, p := range run.parsed(b) {
		n += p.NumInputRows
		logMs += p.DurationMs["walCommit"] + p.DurationMs["commitOffsets"]
		triggerMs += p.DurationMs["triggerExecution"]
	}
	if n < streamEpochs*streamBatchRows {
		b.Fatalf("%d input rows, want at least %d", n, streamEpochs*streamBatchRows)
	}
	return aggregationRun{took: took, rowsPerSec: float64(n) / took.Seconds(), cpuPerRow: float64(cpu.Nanoseconds()) / float64(n),
		logShare: float64(logMs) / float64(max(triggerMs, 1))}
}

// processCPU is the CPU time (user + system) this process used so far.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkCheckpointOverhead measures the cost of checkpointing on the aggregation workload
// in ways that hold on a shared machine: each iteration runs the workload without and then
// with a checkpoint location, back to back, rounds times. It reports each variant's best
// rows/s and the loss of the best and of the medians (other processes only ever slow a run
// down, so the best runs are the closest to the cost of the work itself, but with 2 cores
// shared by several busy processes even they vary by ±20 %), the CPU time per row of each
// variant (median) and its increase — the work checkpointing adds, which is what costs
// throughput when the cores are the bottleneck — and the share of the checkpointed
// micro-batches' time spent on the offsets log and the commit, during which the query waits.
func BenchmarkCheckpointOverhead(b *testing.B) {
	s := engine.NewSession()
	defer s.Close()
	const rounds = 5
	var plain, checkpointed []aggregationRun
	for b.Loop() {
		for range rounds {
			plain = append(plain, runAggregation(b, s, false))
			checkpointed = append(checkpointed, runAggregation(b, s, true))
		}
	}
	best := func(rs []aggregationRun) float64 {
		return slices.MaxFunc(rs, func(x, y aggregationRun) int { return cmp.Compare(x.rowsPerSec, y.rowsPerSec) }).rowsPerSec
	}
	median := func(rs []aggregationRun, f func(aggregationRun) float64) float64 {
		xs := make([]float64, len(rs))
		for i, r := range rs {
			xs[i] = f(r)
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	speed := func(r aggregationRun) float64 { return r.rowsPerSec }
	cpu := func(r aggregationRun) float64 { return r.cpuPerRow }
	b.ReportMetric(best(plain), "best-rows/s")
	b.ReportMetric(best(checkpointed), "best-checkpointed-rows/s")
	b.ReportMetric(100*(1-best(checkpointed)/best(plain)), "best-loss-%")
	b.ReportMetric(100*(1-median(checkpointed, speed)/median(plain, speed)), "median-loss-%")
	b.ReportMetric(median(plain, cpu), "cpu-ns/row")
	b.ReportMetric(median(checkpointed, cpu), "checkpointed-cpu-ns/row")
	b.ReportMetric(100*(median(checkpointed, cpu)/median(plain, cpu)-1), "cpu-increase-%")
	b.ReportMetric(100*median(checkpointed, func(r aggregationRun) float64 { return r.logShare }), "log-commit-%")
}

// BenchmarkStreamAggregationNoCheckpoint is BenchmarkStreamAggregationThroughput measured with
// this file's runner (the baseline of BenchmarkStreamAggregationCheckpointed).
func BenchmarkStreamAggregationNoCheckpoint(b *testing.B) { benchAggregation(b, false) }

// BenchmarkStreamAggregationCheckpointed: the same query with a checkpoint location, so the
// offsets, commits and the aggregate's state (10 000 groups) are checkpointed at every epoch.
func BenchmarkStreamAggregationCheckpointed(b *testing.B) { benchAggregation(b, true) }

// keysQuery is src.groupBy(value % keys).count(): with keys rows per micro-batch every epoch
// updates every one of the keys groups.
func keysQuery(src plan.Relation, keys int64) plan.Relation {
	key := plan.Fn("%", plan.Col("value"), long(keys))
	return &plan.Aggregate{
		Input:    src,
		Type:     plan.GroupBy,
		Grouping: []plan.Expr{key},
		Aggs:     []plan.Expr{key, plan.Alias{Child: plan.Fn("count", long(1)), Names: []string{"count"}}},
	}
}

// stateWrite is a checkpointed query of groupBy(value % 1M).count() over rowsPerBatch rows per
// micro-batch, into the noop sink in update mode.
func stateWrite(location string, rowsPerBatch int64) *plan.WriteStream {
	return &plan.WriteStream{
		Input:      keysQuery(rateMicroBatch(rowsPerBatch), stateKeys),
		Format:     "noop",
		OutputMode: "update",
		Options:    map[string]string{"checkpointLocation": location},
	}
}

// BenchmarkCheckpoint1MKeys: epochs of 1 M rows, each updating all 1 M groups (two shuffle
// partitions of 500 K groups each). It reports the stateOperators commitTimeMs of the epochs
// (the slower partition's synchronous part: the capture of its state, during which the barrier
// waits; the encoding and the write run in the background) once the state holds 1 M keys: mean
// and max.
func BenchmarkCheckpoint1MKeys(b *testing.B) {
	s := engine.NewSession()
	defer s.Close()
	const epochs = 5
	var sum, worst, count int64
	for b.Loop() {
		run, _ := startAndWait(b, s, stateWrite(b.TempDir(), stateKeys), epochs)
		for _, p := range run.parsed(b) {
			if len(p.StateOperators) != 1 {
				b.Fatalf("%d state operators, want 1", len(p.StateOperators))
			}
			op := p.StateOperators[0]
			if op.NumRowsTotal != stateKeys {
				b.Fatalf("%d state rows, want %d", op.NumRowsTotal, stateKeys)
			}
			sum += op.CommitTimeMs
			worst = max(worst, op.CommitTimeMs)
			count++
		}
	}
	b.ReportMetric(float64(sum)/float64(count), "commit-ms")
	b.ReportMetric(float64(worst), "max-commit-ms")
}

// BenchmarkRecovery1MKeys: a checkpoint holding 1 M keys of state (two epochs of 1 M rows),
// then per iteration the query restarts on it with 1-row micro-batches; it reports the time
// from the start call to the restarted query's first completed micro-batch (restore of the
// state included), and, for comparison, the same for a query started on an empty checkpoint.
func BenchmarkRecovery1MKeys(b *testing.B) {
	s := engine.NewSession()
	defer s.Close()
	location := b.TempDir()
	startAndWait(b, s, stateWrite(location, stateKeys), 2)
	var restart, fresh time.Duration
	for b.Loop() {
		run, first := startAndWait(b, s, stateWrite(location, 1), 1)
		if p := run.parsed(b)[0]; len(p.StateOperators) != 1 || p.StateOperators[0].NumRowsTotal != stateKeys {
			b.Fatalf("restarted query's first progress: %+v", p)
		}
		restart += first
		_, first = startAndWait(b, s, stateWrite(b.TempDir(), 1), 1)
		fresh += first
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64((restart/n).Microseconds())/1000, "recovery-ms")
	b.ReportMetric(float64((fresh/n).Microseconds())/1000, "fresh-start-ms")
}
