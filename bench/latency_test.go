package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// The "latency-probe" sink, registered only in this test package: each partition records, for
// every row when it reaches the sink (Process), the wall-clock time elapsed since the row's
// `timestamp` column into the package's latency histogram.

func init() {
	connectors.Register(connectors.Format{Name: "latency-probe", Sink: newLatencyProbe,
		OutputModes: []flow.OutputMode{flow.OutputAppend, flow.OutputUpdate}})
}

// latencies is the histogram the latency probe records into.
var latencies = newLatencyHistogram()

// latencyBucket is the histogram's resolution; latencyBuckets·latencyBucket the largest latency
// it tells apart (larger ones count in the last bucket).
const (
	latencyBucket  = 10 * time.Microsecond
	latencyBuckets = 100_000
)

// latencyHistogram counts latencies in latencyBucket-wide buckets.
type latencyHistogram struct {
	mu     sync.Mutex
	counts []int64
	total  atomic.Int64
}

func newLatencyHistogram() *latencyHistogram {
	return &latencyHistogram{counts: make([]int64, latencyBuckets)}
}

func (h *latencyHistogram) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.counts)
	h.total.Store(0)
}

// add records one batch of latencies (µs).
func (h *latencyHistogram) add(us []int64) {
	h.mu.Lock()
	for _, u := range us {
		i := max(0, min(u/latencyBucket.Microseconds(), latencyBuckets-1))
		h.counts[i]++
	}
	h.mu.Unlock()
	h.total.Add(int64(len(us)))
}

// quantile is the upper edge of the bucket holding quantile q of the recorded latencies.
func (h *latencyHistogram) quantile(q float64) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	var n int64
	for _, c := range h.counts {
		n += c
	}
	rank := int64(q * float64(n))
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen > rank {
			return time.Duration(i+1) * latencyBucket
		}
	}
	return time.Duration(latencyBuckets) * latencyBucket
}

// latencyProbe is the sink.
type latencyProbe struct {
	tsColumn int
	written  atomic.Int64
}

func newLatencyProbe(env sinks.Env, _ map[string]string) (sinks.Sink, error) {
	for i, f := range env.Schema {
		if f.Name == "timestamp" {
			return &latencyProbe{tsColumn: i}, nil
		}
	}
	return nil, sparkerr.IllegalArgument("the latency probe needs a `timestamp` column")
}

func (p *latencyProbe) Description() string          { return "LatencyProbe" }
func (p *latencyProbe) Parallelism(upstream int) int { return upstream }
func (p *latencyProbe) OutputRows() int64            { return p.written.Swap(0) }

func (p *latencyProbe) NewOperator(flow.Env) (flow.Operator, error) {
	return &latencyProbeOperator{sink: p}, nil
}

type latencyProbeOperator struct {
	sink *latencyProbe
	buf  []int64
}

// Process implements flow.Operator: now − timestamp for every row.
func (o *latencyProbeOperator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	now := time.Now().UnixMicro()
	ts := rec.Column(flow.UserOffset + o.sink.tsColumn).(*array.Timestamp)
	o.buf = o.buf[:0]
	for i, t := range ts.TimestampValues() {
		if ts.IsValid(i) {
			o.buf = append(o.buf, now-int64(t))
		}
	}
	latencies.add(o.buf)
	o.sink.written.Add(rec.NumRows())
	return nil
}

// Barrier implements flow.BarrierHandler (nothing to commit).
func (o *latencyProbeOperator) Barrier(context.Context, int64, flow.Emitter) error { return nil }

const (
	// latencyRate is the rate source's rowsPerSecond in BenchmarkStreamLatency.
	latencyRate = 100_000
	// latencyRowsPerOp is how many rows (after the filter keeps a third) one iteration waits
	// for: 100 ms of input.
	latencyRowsPerOp = latencyRate / 10 / 3
)

// BenchmarkStreamLatency: rate (100K rows/s) → filter/select → latency probe with the default
// trigger; reports the source-to-sink latency (sink arrival − row timestamp) p50/p99 in ms.
//
// It runs once with Weir's default polling delay (1ms) and once with Spark's (10ms): the idle
// poll of the default trigger is the floor of the latency.
func BenchmarkStreamLatency(b *testing.B) {
	for _, poll := range []string{"1ms", "10ms"} {
		b.Run("pollingDelay="+poll, func(b *testing.B) { benchLatency(b, poll) })
	}
}

func benchLatency(b *testing.B, poll string) {
	s := engine.NewSession()
	defer s.Close()
	if err := s.Conf().Set("spark.sql.streaming.pollingDelay", poll); err != nil {
		b.Fatal(err)
	}
	src := &plan.DataSource{Format: "rate", IsStreaming: true, Options: map[string]string{
		"rowsPerSecond": "100000", "numPartitions": "2"}}
	ctx := context.Background()
	q, err := s.StartStream(ctx, &plan.WriteStream{Input: statelessQuery(src), Format: "latency-probe", OutputMode: "append"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := q.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}()
	waitRows := func(n int64) {
		deadline := time.Now().Add(time.Minute)
		for latencies.total.Load() < n {
			if exc := q.Exception(); exc != nil {
				b.Fatal(exc.Message)
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d rows reached the sink in a minute", latencies.total.Load(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	// Warm up for half a second (the first micro-batch holds the rows since the query's start).
	waitRows(latencyRowsPerOp * 5)
	latencies.reset()
	for b.Loop() {
		waitRows(latencies.total.Load() + latencyRowsPerOp)
	}
	b.ReportMetric(float64(latencies.quantile(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies.quantile(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(latencies.total.Load())/b.Elapsed().Seconds(), "rows/s")
}
