package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
)

// Kafka benchmarks: Kafka → from_json → filter → to_json → Kafka through a real broker, in
// process (engine.Session.StartStream). They need a broker and are skipped without
// KAFKA_BOOTSTRAP; bench/kafka-bench.sh starts a private broker, measures the broker's own
// ceiling with its perf tools and runs them.
//
// Environment:
//   KAFKA_BOOTSTRAP          the broker (host:port)
//   KAFKA_BENCH_INPUT        an existing input topic to read (e.g. the one the producer perf
//                            tool filled); without it the benchmark fills its own
//   KAFKA_BENCH_RECORDS      records the throughput benchmark writes to its own input (1 000 000)
//   KAFKA_BENCH_PARTITIONS   partitions of the topics it creates (2)
//   KAFKA_BENCH_SECONDS      how long the latency benchmark produces (10)
//   KAFKA_BENCH_RATE         the latency benchmark's records/s (10 000)

// kafkaSchemaDDL is the JSON records' schema as from_json reads it.
const kafkaSchemaDDL = "id BIGINT, ts BIGINT, user STRING, kind STRING, amount DOUBLE, note STRING"

// kafkaRecord is record i's ~100-byte JSON value; ts is its produce time (µs since the epoch).
// Every other record is a "click", the rows the pipeline's filter keeps.
func kafkaRecord(buf []byte, i int64, ts int64) []byte {
	kind := "click"
	if i%2 == 1 {
		kind = "view"
	}
	return fmt.Appendf(buf[:0], `{"id":%d,"ts":%d,"user":"user-%05d","kind":"%s","amount":%d.%02d,"note":"note-%08d"}`,
		i, ts, i%100000, kind, i%1000, i%100, i*7919%100000000)
}

func kafkaEnv(b *testing.B) string {
	addr := os.Getenv("KAFKA_BOOTSTRAP")
	if addr == "" {
		b.Skip("KAFKA_BOOTSTRAP is not set (bench/kafka-bench.sh starts a broker and sets it)")
	}
	return addr
}

func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}

// kafkaClient is a plain client of the broker with extra options.
func kafkaClient(b *testing.B, addr string, opts ...kgo.Opt) *kgo.Client {
	b.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	return cl
}

// createTopics creates fresh topics with KAFKA_BENCH_PARTITIONS partitions.
func createTopics(b *testing.B, addr string, names ...string) {
	b.Helper()
	cl := kafkaClient(b, addr)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := kadm.NewClient(cl).CreateTopics(ctx, int32(envInt("KAFKA_BENCH_PARTITIONS", 2)), 1, nil, names...)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		b.Fatal(err)
	}
}

// topicRecords is the number of offsets in a topic (the sum of its partitions' end offsets).
func topicRecords(b *testing.B, addr, topic string, committed bool) int64 {
	b.Helper()
	cl := kafkaClient(b, addr)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	list := adm.ListEndOffsets
	if committed {
		list = adm.ListCommittedOffsets
	}
	listed, err := list(ctx, topic)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	listed.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

// fillTopic produces n records to topic as fast as the client goes; it returns the rate.
func fillTopic(b *testing.B, addr, topic string, n int64) float64 {
	b.Helper()
	cl := kafkaClient(b, addr, kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(1<<17))
	defer cl.Close()
	ctx := context.Background()
	var failed atomic.Pointer[error]
	began := time.Now()
	now := began.UnixMicro()
	for i := range n {
		cl.Produce(ctx, &kgo.Record{Topic: topic, Value: kafkaRecord(nil, i, now)}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.CompareAndSwap(nil, &err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	return float64(n) / time.Since(began).Seconds()
}

// The pipeline's filters, each keeping half the records: on the string field (the pipeline's
// own), and, for issue 17's typed variants, on the BIGINT id and the DOUBLE amount
// (i % 1000 + (i % 100) / 100).
const (
	keepClicks     = "j.kind = 'click'"
	keepEvenIDs    = "j.id % 2 = 0"
	keepLowAmounts = "j.amount < 500.0"
)

// kafkaPipeline is readStream kafka(in) → from_json(CAST(value AS STRING)) → filter keep
// (keepClicks: kind = 'click') → to_json → writeStream kafka(out).
func kafkaPipeline(b *testing.B, addr, in, out, checkpoint, keep string, exactlyOnce bool, source map[string]string) *plan.WriteStream {
	b.Helper()
	parse := func(text string) plan.Expr {
		e, err := parser.ParseExpression(text)
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	srcOpts := map[string]string{"kafka.bootstrap.servers": addr, "subscribe": in, "startingOffsets": "earliest"}
	for k, v := range source {
		srcOpts[k] = v
	}
	src := &plan.DataSource{Format: "kafka", IsStreaming: true, Options: srcOpts}
	parsed := &plan.Project{Input: src, Exprs: []plan.Expr{parse("from_json(CAST(value AS STRING), '" + kafkaSchemaDDL + "') AS j")}}
	kept := &plan.Filter{Input: parsed, Condition: parse(keep)}
	rel := &plan.Project{Input: kept, Exprs: []plan.Expr{parse("to_json(j) AS value")}}
	return &plan.WriteStream{Input: rel, Format: "kafka", OutputMode: "append", Options: map[string]string{
		"kafka.bootstrap.servers": addr, "topic": out, "checkpointLocation": checkpoint,
		"exactlyOnce": strconv.FormatBool(exactlyOnce)}}
}

// progressTotals sums the progress events of a session's queries.
type progressTotals struct {
	mu                     sync.Mutex
	epochs                 int64
	inputRows, outputRows  int64
	latestMs, walMs, addMs int64
	commitMs, triggerMs    int64
	maxLatest, maxWal      int64
	maxAdd, maxCommit      int64
	maxTrigger             int64
	changed                chan struct{}
}

func newProgressTotals() *progressTotals { return &progressTotals{changed: make(chan struct{}, 1)} }

func (p *progressTotals) OnEvent(ev query.Event) {
	if ev.Type != query.ProgressEvent {
		return
	}
	var e struct {
		Progress struct {
			NumInputRows int64 `json:"numInputRows"`
			DurationMs   struct {
				AddBatch         int64 `json:"addBatch"`
				LatestOffset     int64 `json:"latestOffset"`
				TriggerExecution int64 `json:"triggerExecution"`
				WalCommit        int64 `json:"walCommit"`
				CommitOffsets    int64 `json:"commitOffsets"`
			} `json:"durationMs"`
			Sink struct {
				NumOutputRows int64 `json:"numOutputRows"`
			} `json:"sink"`
		} `json:"progress"`
	}
	if err := json.Unmarshal([]byte(ev.JSON), &e); err != nil {
		return
	}
	p.mu.Lock()
	pr := e.Progress
	if pr.NumInputRows > 0 {
		p.epochs++
		p.inputRows += pr.NumInputRows
		p.outputRows += pr.Sink.NumOutputRows
		p.latestMs += pr.DurationMs.LatestOffset
		p.walMs += pr.DurationMs.WalCommit
		p.addMs += pr.DurationMs.AddBatch
		p.commitMs += pr.DurationMs.CommitOffsets
		p.triggerMs += pr.DurationMs.TriggerExecution
		p.maxLatest = max(p.maxLatest, pr.DurationMs.LatestOffset)
		p.maxWal = max(p.maxWal, pr.DurationMs.WalCommit)
		p.maxAdd = max(p.maxAdd, pr.DurationMs.AddBatch)
		p.maxCommit = max(p.maxCommit, pr.DurationMs.CommitOffsets)
		p.maxTrigger = max(p.maxTrigger, pr.DurationMs.TriggerExecution)
	}
	p.mu.Unlock()
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *progressTotals) input() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inputRows
}

// report adds the mean per-epoch durations from the progress events.
func (p *progressTotals) report(b *testing.B) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.epochs == 0 {
		return
	}
	n := float64(p.epochs)
	b.ReportMetric(n, "epochs")
	b.ReportMetric(float64(p.latestMs)/n, "latestOffset-ms/epoch")
	b.ReportMetric(float64(p.walMs)/n, "walCommit-ms/epoch")
	b.ReportMetric(float64(p.addMs)/n, "addBatch-ms/epoch")
	b.ReportMetric(float64(p.commitMs)/n, "commitOffsets-ms/epoch")
	b.ReportMetric(float64(p.triggerMs)/n, "trigger-ms/epoch")
	b.ReportMetric(float64(p.maxLatest), "max-latestOffset-ms")
	b.ReportMetric(float64(p.maxWal), "max-walCommit-ms")
	b.ReportMetric(float64(p.maxAdd), "max-addBatch-ms")
	b.ReportMetric(float64(p.maxCommit), "max-commitOffsets-ms")
	b.ReportMetric(float64(p.maxTrigger), "max-trigger-ms")
}

// startPipeline starts the pipeline in s and fails the benchmark if it does not start.
func startPipeline(b *testing.B, s *engine.Session, ws *plan.WriteStream) *query.Query {
	b.Helper()
	q, err := s.StartStream(context.Background(), ws, nil)
	if err != nil {
		b.Fatal(err)
	}
	return q
}

func stopQuery(b *testing.B, q *query.Query) {
	if err := q.Stop(context.Background()); err != nil {
		b.Error(err)
	}
}

var topicSeq atomic.Int64

func benchTopic(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e9, topicSeq.Add(1))
}

// BenchmarkKafkaPipelineThroughput: the pipeline reads a full input topic from the earliest
// offsets (default trigger, no maxOffsetsPerTrigger: Spark's defaults) and writes the kept
// half to a fresh topic. rec/s is input records over the time from StartStream until the
// progress events account for every input record (the sink has then acknowledged its
// writes). Sub-benchmarks: the exactly-once sink (Weir's default) and at-least-once (Spark's
// only mode); maxOffsetsPerTrigger=100000 splits the read into epochs; filter=long, double and
// string are the exactly-once pipeline filtering on a BIGINT, a DOUBLE and a STRING field.
func BenchmarkKafkaPipelineThroughput(b *testing.B) {
	addr := kafkaEnv(b)
	in, n := benchInput(b, addr)
	for _, c := range []struct {
		name        string
		exactlyOnce bool
		source      map[string]string
		keep        string
	}{
		{"exactlyOnce", true, nil, keepClicks},
		{"atLeastOnce", false, nil, keepClicks},
		{"exactlyOnce/maxOffsetsPerTrigger=100000", true, map[string]string{"maxOffsetsPerTrigger": "100000"}, keepClicks},
		// Issue 17's typed variants, to run beside each other: the filter on each field type.
		{"exactlyOnce/filter=long", true, nil, keepEvenIDs},
		{"exactlyOnce/filter=double", true, nil, keepLowAmounts},
		{"exactlyOnce/filter=string", true, nil, keepClicks},
	} {
		b.Run(c.name, func(b *testing.B) {
			var records int64
			var elapsed time.Duration
			var totals *progressTotals
			for b.Loop() {
				out := benchTopic("weir-bench-out")
				createTopics(b, addr, out)
				s := engine.NewSession()
				totals = newProgressTotals()
				remove := s.Streams().AddListener(totals)
				began := time.Now()
				q := startPipeline(b, s, kafkaPipeline(b, addr, in, out, b.TempDir(), c.keep, c.exactlyOnce, c.source))
				deadline := time.After(10 * time.Minute)
				for totals.input() < n {
					select {
					case <-totals.changed:
					case <-time.After(100 * time.Millisecond):
					case <-deadline:
						b.Fatalf("%d of %d records read in 10 minutes", totals.input(), n)
					}
					if exc := q.Exception(); exc != nil {
						b.Fatal(exc.Message)
					}
				}
				elapsed += time.Since(began)
				records += n
				stopQuery(b, q)
				remove()
				s.Close()
				// The transaction markers land after EndTxn answers: wait for the stable offsets.
				for wait := time.Now(); ; time.Sleep(50 * time.Millisecond) {
					got, want := topicRecords(b, addr, out, true), totals.outputRows
					if got >= want {
						break
					}
					if time.Since(wait) > 30*time.Second {
						b.Fatalf("the output topic holds %d committed offsets, the sink reported %d rows", got, want)
					}
				}
			}
			b.ReportMetric(float64(records)/elapsed.Seconds(), "rec/s")
			totals.report(b)
		})
	}
}

// benchInput is the throughput benchmarks' input topic and its record count: KAFKA_BENCH_INPUT,
// or a fresh topic filled with KAFKA_BENCH_RECORDS records (once per process).
func benchInput(b *testing.B, addr string) (string, int64) {
	inputOnce.Do(func() {
		inputTopic = os.Getenv("KAFKA_BENCH_INPUT")
		if inputTopic == "" {
			inputTopic = benchTopic("weir-bench-in")
			createTopics(b, addr, inputTopic)
			n := envInt("KAFKA_BENCH_RECORDS", 1_000_000)
			rate := fillTopic(b, addr, inputTopic, n)
			b.Logf("filled %s with %d records at %.0f rec/s (franz-go producer)", inputTopic, n, rate)
		}
	})
	return inputTopic, topicRecords(b, addr, inputTopic, false)
}

var (
	inputOnce  sync.Once
	inputTopic string
)

// BenchmarkKafkaCopy is the pipeline's I/O without Weir: one franz-go consumer reads the whole
// input topic (direct partitions, from the start) and one idempotent producer writes every
// other record to a fresh topic, flushed at the end; rec/s is input records over the time.
func BenchmarkKafkaCopy(b *testing.B) {
	addr := kafkaEnv(b)
	in, n := benchInput(b, addr)
	var records int64
	var elapsed time.Duration
	for b.Loop() {
		out := benchTopic("weir-copy-out")
		createTopics(b, addr, out)
		parts := map[int32]kgo.Offset{}
		for p := range int32(envInt("KAFKA_BENCH_PARTITIONS", 2)) {
			parts[p] = kgo.NewOffset().AtStart()
		}
		ctx := context.Background()
		began := time.Now()
		consumer := kafkaClient(b, addr, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{in: parts}))
		producer := kafkaClient(b, addr)
		var failed atomic.Pointer[error]
		var read int64
		for read < n {
			fetches := consumer.PollFetches(ctx)
			if err := fetches.Err(); err != nil {
				b.Fatal(err)
			}
			fetches.EachRecord(func(r *kgo.Record) {
				if read%2 == 0 {
					producer.Produce(ctx, &kgo.Record{Topic: out, Value: r.Value}, func(_ *kgo.Record, err error) {
						if err != nil {
							failed.CompareAndSwap(nil, &err)
						}
					})
				}
				read++
			})
		}
		if err := producer.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(began)
		records += read
		consumer.Close()
		producer.Close()
		if err := failed.Load(); err != nil {
			b.Fatal(*err)
		}
	}
	b.ReportMetric(float64(records)/elapsed.Seconds(), "rec/s")
}

// BenchmarkKafkaLatency: a Go producer paces KAFKA_BENCH_RATE records/s (each carrying its
// produce time, µs, in its JSON "ts") into the input topic while the pipeline runs; a consumer
// of the output topic (read_committed for the exactly-once sink) records, for every record, its
// arrival time minus its ts: the latency from the producer's send call to the record being
// visible to a consumer of the output. A second figure, sink-p50/p99, is the output record's
// Kafka timestamp (set when the sink hands it to its producer, ms resolution) minus ts: produce
// → sink write. The first second is warm-up. Cases: the default trigger (micro-batches, with
// spark.sql.streaming.pollingDelay 1ms) with the at-least-once and the exactly-once sink, and
// continuous processing (trigger(continuous="1 second"), at-least-once as in Spark). The
// case franzGoCopy replaces Weir by a franz-go consumer that produces every "click" record to
// the output as soon as it is fetched (linger 0): the floor the broker, the clients and the
// machine set under the same load.
func BenchmarkKafkaLatency(b *testing.B) {
	addr := kafkaEnv(b)
	for _, c := range []struct {
		name string
		mode latencyMode
	}{{"exactlyOnce", latencyExactlyOnce}, {"atLeastOnce", latencyAtLeastOnce},
		{"continuous", latencyContinuous}, {"franzGoCopy", latencyCopy}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				benchKafkaLatency(b, addr, c.mode)
			}
		})
	}
}

type latencyMode int

const (
	latencyExactlyOnce latencyMode = iota
	latencyAtLeastOnce
	latencyContinuous
	latencyCopy
)

func benchKafkaLatency(b *testing.B, addr string, mode latencyMode) {
	rate := envInt("KAFKA_BENCH_RATE", 10_000)
	seconds := envInt("KAFKA_BENCH_SECONDS", 10)
	in, out := benchTopic("weir-lat-in"), benchTopic("weir-lat-out")
	createTopics(b, addr, in, out)
	exactlyOnce := mode == latencyExactlyOnce

	s := engine.NewSession()
	defer s.Close()
	if err := s.Conf().Set("spark.sql.streaming.pollingDelay", "1ms"); err != nil {
		b.Fatal(err)
	}
	totals := newProgressTotals()
	defer s.Streams().AddListener(totals)()
	if mode == latencyCopy {
		stop := copyClicks(b, addr, in, out)
		defer stop()
	} else {
		ws := kafkaPipeline(b, addr, in, out, b.TempDir(), keepClicks, exactlyOnce, nil)
		if mode == latencyContinuous {
			ws.Trigger, ws.TriggerInterval = plan.TriggerContinuous, "1 second"
		}
		q := startPipeline(b, s, ws)
		defer stopQuery(b, q)
		defer func() {
			if exc := q.Exception(); exc != nil {
				b.Fatal(exc.Message)
			}
		}()
	}

	consumerOpts := []kgo.Opt{kgo.ConsumeTopics(out), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100 * time.Millisecond)}
	if exactlyOnce {
		consumerOpts = append(consumerOpts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	consumer := kafkaClient(b, addr, consumerOpts...)
	defer consumer.Close()
	visible, sink := newLatencyHistogram(), newLatencyHistogram()
	warmup := time.Now().Add(time.Second).UnixMicro()
	want := rate * seconds / 2 // the filter keeps every other record
	var seen atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		var vis, snk []int64
		for seen.Load() < want && ctx.Err() == nil {
			fetches := consumer.PollFetches(ctx)
			now := time.Now().UnixMicro()
			vis, snk = vis[:0], snk[:0]
			fetches.EachRecord(func(r *kgo.Record) {
				ts := jsonTS(r.Value)
				seen.Add(1)
				if ts < warmup {
					return
				}
				vis = append(vis, now-ts)
				snk = append(snk, r.Timestamp.UnixMicro()-ts)
			})
			visible.add(vis)
			sink.add(snk)
		}
	}()

	producer := kafkaClient(b, addr, kgo.ProducerLinger(0))
	defer producer.Close()
	began := time.Now()
	var sent int64
	var failed atomic.Pointer[error]
	buf := make([]byte, 0, 128)
	for sent < rate*seconds {
		due := int64(time.Since(began).Seconds() * float64(rate))
		for ; sent < min(due, rate*seconds); sent++ {
			rec := &kgo.Record{Topic: in, Value: append([]byte(nil), kafkaRecord(buf, sent, time.Now().UnixMicro())...)}
			producer.Produce(ctx, rec, func(_ *kgo.Record, err error) {
				if err != nil {
					failed.CompareAndSwap(nil, &err)
				}
			})
		}
		time.Sleep(200 * time.Microsecond)
	}
	if err := producer.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	select {
	case <-consumed:
	case <-time.After(time.Minute):
		b.Fatalf("%d of %d output records seen a minute after the last produce", seen.Load(), want)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(visible.quantile(0.50)), "p50-ms")
	b.ReportMetric(ms(visible.quantile(0.99)), "p99-ms")
	b.ReportMetric(ms(visible.quantile(0.999)), "p99.9-ms")
	b.ReportMetric(ms(sink.quantile(0.50)), "sink-p50-ms")
	b.ReportMetric(ms(sink.quantile(0.99)), "sink-p99-ms")
	b.ReportMetric(float64(sent)/time.Since(began).Seconds(), "produced-rec/s")
	totals.report(b)
}

// copyClicks consumes in from its start and produces every "click" record to out as soon as it
// is fetched; the returned func stops it.
func copyClicks(b *testing.B, addr, in, out string) func() {
	consumer := kafkaClient(b, addr, kgo.ConsumeTopics(in), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond))
	producer := kafkaClient(b, addr, kgo.ProducerLinger(0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			consumer.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
				if bytes.Contains(r.Value, []byte(`"kind":"click"`)) {
					producer.Produce(ctx, &kgo.Record{Topic: out, Value: r.Value}, nil)
				}
			})
		}
	}()
	return func() {
		cancel()
		<-done
		consumer.Close()
		producer.Close()
	}
}

// jsonTS reads the "ts" field of a benchmark record without a JSON parser.
func jsonTS(v []byte) int64 {
	s := string(v)
	i := strings.Index(s, `"ts":`)
	if i < 0 {
		return 0
	}
	s = s[i+5:]
	j := strings.IndexAny(s, ",}")
	if j < 0 {
		return 0
	}
	n, _ := strconv.ParseInt(s[:j], 10, 64)
	return n
}

// BenchmarkKafkaClientSteps times, against the same broker, the Kafka round trips one epoch
// of the pipeline makes today, each alone (mean ms over the iterations): the source's
// ListOffsets for the latest offsets (kadm, as the source's Latest), a new direct-partition
// consumer fetching one record (the source creates one per partition per epoch), an
// idempotent produce+flush of 5 records (the at-least-once sink at the barrier) and a
// transaction of 5 records (begin, produce, commit: the exactly-once sink at the barrier),
// and a fetch of an already-written record by an already-open consumer (what a long-lived
// reader would pay).
func BenchmarkKafkaClientSteps(b *testing.B) {
	addr := kafkaEnv(b)
	topic := benchTopic("weir-steps")
	createTopics(b, addr, topic)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	seed := kafkaClient(b, addr, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	defer seed.Close()
	for i := range 100 {
		seed.Produce(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: kafkaRecord(nil, int64(i), 0)}, nil)
	}
	if err := seed.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	adm := kadm.NewClient(seed)
	txn := kafkaClient(b, addr, kgo.TransactionalID(benchTopic("weir-steps-txn")), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	defer txn.Close()
	// The same with the CONCURRENT_TRANSACTIONS backoff at 1 ms instead of franz-go's 20 ms.
	txnFast := kafkaClient(b, addr, kgo.TransactionalID(benchTopic("weir-steps-txn")), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ConcurrentTransactionsBackoff(time.Millisecond))
	defer txnFast.Close()
	open := kafkaClient(b, addr, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	defer open.Close()
	var stopTimer, startTimer func()
	steps := []struct {
		name string
		run  func() error
	}{
		{"listEndOffsets", func() error { _, err := adm.ListEndOffsets(ctx, topic); return err }},
		{"newConsumerFetch", func() error {
			cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(50)}}))
			if err != nil {
				return err
			}
			defer cl.Close()
			for n := 0; n == 0; {
				f := cl.PollFetches(ctx)
				if err := f.Err(); err != nil {
					return err
				}
				n = f.NumRecords()
			}
			return nil
		}},
		{"openConsumerFetch", func() error {
			// Only the fetch is timed: the record is in the log before the clock runs.
			stopTimer()
			if err := seed.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("{}")}).FirstErr(); err != nil {
				return err
			}
			startTimer()
			for n := 0; n == 0; {
				f := open.PollFetches(ctx)
				if err := f.Err(); err != nil {
					return err
				}
				n = f.NumRecords()
			}
			return nil
		}},
		{"produceFlush", func() error {
			for i := range 5 {
				seed.Produce(ctx, &kgo.Record{Topic: topic, Partition: 1, Value: kafkaRecord(nil, int64(i), 0)}, nil)
			}
			return seed.Flush(ctx)
		}},
		{"transaction", func() error { return transact(ctx, txn, topic) }},
		{"transaction/txnBackoff=1ms", func() error { return transact(ctx, txnFast, topic) }},
	}
	for _, st := range steps {
		b.Run(st.name, func(b *testing.B) {
			stopTimer, startTimer = b.StopTimer, b.StartTimer
			for b.Loop() {
				if err := st.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}

// transact commits a transaction of 5 records to partition 1 of topic.
func transact(ctx context.Context, txn *kgo.Client, topic string) error {
	if err := txn.BeginTransaction(); err != nil {
		return err
	}
	for i := range 5 {
		txn.Produce(ctx, &kgo.Record{Topic: topic, Partition: 1, Value: kafkaRecord(nil, int64(i), 0)}, nil)
	}
	if err := txn.Flush(ctx); err != nil {
		return err
	}
	return txn.EndTransaction(ctx, kgo.TryCommit)
}
