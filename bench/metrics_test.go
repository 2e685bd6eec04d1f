package bench

import (
	"syscall"
	"testing"
	"time"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/metrics"
	"github.com/weirhq/weir/sql/plan"
)

// The cost of Prometheus metrics collection (package metrics) on streaming queries: each
// iteration runs the same query twice in one session, without and with the metrics' query
// listener, in alternating order, and reports both rates, their ratio
// (on/off; 1 is free) and the ratio of CPU time per row (cpu-on/off).
// The large-batch cases are the throughput benchmarks' queries; the small-batch ones (10,000
// rows per micro-batch, 100 micro-batches) weigh the per-epoch cost the listener adds.

func benchMetricsCost(b *testing.B, input plan.Relation, mode string, epochs int, wantRows int64) {
	benchListenerCost(b, input, mode, epochs, wantRows, true)
}

// benchListenerCost is benchMetricsCost; without listen, the "on" runs add no listener (an A/A
// comparison: how far two identical halves spread on this machine).
func benchListenerCost(b *testing.B, input plan.Relation, mode string, epochs int, wantRows int64, listen bool) {
	s := engine.NewSession()
	defer s.Close()
	reg := metrics.New("bench", "4.1.0")
	var offRows, onRows int64
	var offTime, onTime, offCPU, onCPU time.Duration
	runOff := func() {
		start, cpu := time.Now(), cpuTime(b)
		offRows += runEpochs(b, s, input, mode, epochs)
		offTime += time.Since(start)
		offCPU += cpuTime(b) - cpu
	}
	runOn := func() {
		remove := func() {}
		if listen {
			remove = s.Streams().AddListener(reg.QueryListener())
		}
		start, cpu := time.Now(), cpuTime(b)
		onRows += runEpochs(b, s, input, mode, epochs)
		onTime += time.Since(start)
		onCPU += cpuTime(b) - cpu
		remove()
		// A scrape (untimed: Prometheus scrapes every 15 s or so, far longer than a run here;
		// metrics.BenchmarkScrape measures one).
		if _, err := reg.Gatherer().Gather(); err != nil {
			b.Fatal(err)
		}
	}
	// Alternate which runs first, so warm-up and GC debt of the previous run fall on both.
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			runOff()
			runOn()
		} else {
			runOn()
			runOff()
		}
	}
	if offRows < wantRows*int64(b.N) || onRows < wantRows*int64(b.N) {
		b.Fatalf("input rows: %d off, %d on; want at least %d each", offRows, onRows, wantRows*int64(b.N))
	}
	off, on := float64(offRows)/offTime.Seconds(), float64(onRows)/onTime.Seconds()
	b.ReportMetric(off, "off-rows/s")
	b.ReportMetric(on, "on-rows/s")
	b.ReportMetric(on/off, "on/off")
	// CPU time per row, on over off (1 is free): steadier than wall time on a shared machine.
	b.ReportMetric((onCPU.Seconds()/float64(onRows))/(offCPU.Seconds()/float64(offRows)), "cpu-on/off")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkMetricsCostStateless(b *testing.B) {
	benchMetricsCost(b, statelessQuery(rateMicroBatch(streamBatchRows)), "append", streamEpochs, streamEpochs*streamBatchRows)
}

func BenchmarkMetricsCostAggregation(b *testing.B) {
	benchMetricsCost(b, groupCountQuery(rateMicroBatch(streamBatchRows)), "update", streamEpochs, streamEpochs*streamBatchRows)
}

func BenchmarkMetricsCostStatelessSmallBatches(b *testing.B) {
	benchMetricsCost(b, statelessQuery(rateMicroBatch(10_000)), "append", 100, 100*10_000)
}

func BenchmarkMetricsCostAggregationSmallBatches(b *testing.B) {
	benchMetricsCost(b, groupCountQuery(rateMicroBatch(10_000)), "update", 100, 100*10_000)
}

// The A/A twins of the large-batch cases: both halves without the listener.
func BenchmarkMetricsCostStatelessAA(b *testing.B) {
	benchListenerCost(b, statelessQuery(rateMicroBatch(streamBatchRows)), "append", streamEpochs, streamEpochs*streamBatchRows, false)
}

func BenchmarkMetricsCostAggregationAA(b *testing.B) {
	benchListenerCost(b, groupCountQuery(rateMicroBatch(streamBatchRows)), "update", streamEpochs, streamEpochs*streamBatchRows, false)
}
