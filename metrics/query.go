package metrics

import (
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/weirhq/weir/query"
)

// queryLabels label every per-query series: the query name ("" for none) and its id.
var queryLabels = []string{"name", "id"}

// queryMetrics are the per-query series, fed by progress and terminated events.
type queryMetrics struct {
	now func() time.Time

	active, lastBatch, inputRate, processedRate, watermark, watermarkLag *prometheus.GaugeVec
	batches, inputRows, outputRows, lateRows                             *prometheus.CounterVec
	batchDuration, checkpointDuration, checkpointSize                    *prometheus.HistogramVec
	latency                                                              *prometheus.HistogramVec
	stateRows, stateMemory, stateSpill                                   *prometheus.GaugeVec
	kafkaLag, filesOutstanding                                           *prometheus.GaugeVec

	// failures is the server's query failures by class.
	failures *prometheus.CounterVec
	byID     sync.Map // query id → *queryState
}

func newQueryMetrics(reg *prometheus.Registry, now func() time.Time, failures *prometheus.CounterVec) *queryMetrics {
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, append(queryLabels[:2:2], labels...))
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, queryLabels)
	}
	hist := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets},
			append(queryLabels[:2:2], labels...))
	}
	m := &queryMetrics{
		now:      now,
		failures: failures,
		active:   gauge("weir_query_active", "1 while the streaming query runs, 0 once it terminated (its series go after the retention)."),
		lastBatch: gauge("weir_query_last_batch_id",
			"batchId of the query's latest progress report."),
		inputRate: gauge("weir_query_input_rows_per_second",
			"inputRowsPerSecond of the latest progress: rows read by the epoch over the time since the previous trigger."),
		processedRate: gauge("weir_query_processed_rows_per_second",
			"processedRowsPerSecond of the latest progress: rows read by the epoch over its duration."),
		watermark: gauge("weir_query_watermark_timestamp_seconds",
			"The query's event-time watermark (eventTime.watermark of the latest progress), as a Unix time."),
		watermarkLag: gauge("weir_query_watermark_lag_seconds",
			"The latest epoch's trigger time minus its watermark (the Spark UI's watermark gap)."),
		batches: counter("weir_query_batches_total", "Epochs (micro-batches) completed: one progress report each."),
		inputRows: counter("weir_query_input_rows_total",
			"Rows the query's sources produced: the sum of its progress reports' numInputRows."),
		outputRows: counter("weir_query_output_rows_total",
			"Rows the query's sink wrote: the sum of sink.numOutputRows (not counted for foreachBatch sinks)."),
		lateRows: counter("weir_query_late_rows_dropped_total",
			"Rows stateful operators dropped as later than the watermark (sum of numRowsDroppedByWatermark)."),
		batchDuration: hist("weir_query_batch_duration_seconds",
			"Epoch durations (batchDuration: from the trigger to the commit).", prometheus.ExponentialBuckets(0.001, 2, 18)),
		checkpointDuration: hist("weir_query_checkpoint_duration_seconds",
			"Time each epoch spent writing its checkpoint (durationMs walCommit + commitOffsets; 0 without a checkpoint).",
			prometheus.ExponentialBuckets(0.001, 2, 14)),
		checkpointSize: hist("weir_query_checkpoint_size_bytes",
			"Bytes each epoch wrote to its checkpoint (sink.metrics.checkpointBytesWritten: offsets record and state snapshots; queries with a checkpoint only).",
			prometheus.ExponentialBuckets(256, 4, 12)),
		latency: hist("weir_query_end_to_end_latency_seconds",
			"Per epoch that read rows, from its oldest row to its commit (sink.metrics.endToEndLatencyMs): from=event_time from the oldest event time (queries with a watermark), from=arrival from the earliest time a row it read could have arrived.",
			prometheus.ExponentialBuckets(0.001, 2, 22), "from"),
		stateSpill: gauge("weir_query_state_spill_bytes",
			"Size of the state a stateful operator spilled out of memory (customMetrics.spillBytes), by operator and its index in the plan.",
			"operator", "index"),
		kafkaLag: gauge("weir_query_kafka_offsets_behind_latest",
			"Kafka consumer lag after the latest epoch: the partition's end offset last listed minus the offset the query read up to (the source's metrics.offsetsBehindLatest), by source index, topic and partition.",
			"source", "topic", "partition"),
		filesOutstanding: gauge("weir_query_source_files_outstanding",
			"Files a file source found and has not read yet after the latest epoch (the source's metrics.numFilesOutstanding), by source index.",
			"source"),
		stateRows: gauge("weir_query_state_rows", "Rows a stateful operator holds (numRowsTotal), by operator and its index in the plan.",
			"operator", "index"),
		stateMemory: gauge("weir_query_state_memory_bytes",
			"Memory a stateful operator's state uses (memoryUsedBytes), by operator and its index in the plan.", "operator", "index"),
	}
	reg.MustRegister(m.active, m.lastBatch, m.inputRate, m.processedRate, m.watermark, m.watermarkLag,
		m.batches, m.inputRows, m.outputRows, m.lateRows, m.batchDuration, m.checkpointDuration, m.checkpointSize,
		m.latency, m.stateRows, m.stateMemory, m.stateSpill, m.kafkaLag, m.filesOutstanding)
	return m
}

// queryState holds one query's series. Its children are updated with atomic operations; mu
// only orders an epoch's update against the eviction of the same query (once per epoch and
// per scrape, never on a row's path).
type queryState struct {
	name, id string

	active, lastBatch, inputRate, processedRate prometheus.Gauge
	batches, inputRows, outputRows, lateRows    prometheus.Counter
	batchDuration, checkpointDuration           prometheus.Observer

	// endedAt is when the query terminated (Unix ns; 0 while it runs).
	endedAt atomic.Int64

	mu      sync.Mutex
	evicted bool
	// watermark and lag exist once a progress reported a watermark; ops once one reported
	// stateful operators.
	watermark, lag prometheus.Gauge
	ops            []opSeries
}

type opSeries struct{ rows, memory, spill prometheus.Gauge }

func (m *queryMetrics) newState(name, id string) *queryState {
	return &queryState{name: name, id: id,
		active: m.active.WithLabelValues(name, id), lastBatch: m.lastBatch.WithLabelValues(name, id),
		inputRate: m.inputRate.WithLabelValues(name, id), processedRate: m.processedRate.WithLabelValues(name, id),
		batches: m.batches.WithLabelValues(name, id), inputRows: m.inputRows.WithLabelValues(name, id),
		outputRows: m.outputRows.WithLabelValues(name, id), lateRows: m.lateRows.WithLabelValues(name, id),
		batchDuration:      m.batchDuration.WithLabelValues(name, id),
		checkpointDuration: m.checkpointDuration.WithLabelValues(name, id)}
}

// state returns the live series of query (name, id), creating them on the query's first
// report (and again after an eviction, or when a restart renamed the query).
func (m *queryMetrics) state(name, id string) *queryState {
	for {
		v, ok := m.byID.Load(id)
		if !ok {
			v, _ = m.byID.LoadOrStore(id, m.newState(name, id))
		}
		s := v.(*queryState)
		s.mu.Lock()
		if !s.evicted && s.name == name {
			return s // locked
		}
		if !s.evicted { // renamed by a restart: the old name's series go now
			m.dropLocked(s)
		}
		s.mu.Unlock()
		m.byID.CompareAndDelete(id, s)
	}
}

// dropLocked deletes s's series (s.mu held).
func (m *queryMetrics) dropLocked(s *queryState) {
	s.evicted = true
	l := prometheus.Labels{"name": s.name, "id": s.id}
	for _, v := range []interface {
		DeletePartialMatch(prometheus.Labels) int
	}{m.active, m.lastBatch, m.inputRate, m.processedRate, m.watermark, m.watermarkLag, m.batches, m.inputRows,
		m.outputRows, m.lateRows, m.batchDuration, m.checkpointDuration, m.checkpointSize, m.latency, m.stateRows,
		m.stateMemory, m.stateSpill, m.kafkaLag, m.filesOutstanding} {
		v.DeletePartialMatch(l)
	}
}

// observe records one progress report.
func (m *queryMetrics) observe(p *progress) {
	s := m.state(p.name(), p.ID)
	defer s.mu.Unlock()
	s.endedAt.Store(0)
	s.active.Set(1)
	s.batches.Inc()
	s.lastBatch.Set(float64(p.BatchID))
	s.inputRows.Add(float64(p.NumInputRows))
	if p.Sink.NumOutputRows > 0 {
		s.outputRows.Add(float64(p.Sink.NumOutputRows))
	}
	s.inputRate.Set(p.InputRowsPerSecond)
	s.processedRate.Set(p.ProcessedRowsPerSecond)
	s.batchDuration.Observe((time.Duration(p.BatchDuration) * time.Millisecond).Seconds())
	s.checkpointDuration.Observe(p.checkpointDuration().Seconds())
	if wm, ok := progressTime(p.EventTime.Watermark); ok {
		if s.watermark == nil {
			s.watermark, s.lag = m.watermark.WithLabelValues(s.name, s.id), m.watermarkLag.WithLabelValues(s.name, s.id)
		}
		s.watermark.Set(float64(wm.UnixMilli()) / 1000)
		if at, ok := progressTime(p.Timestamp); ok {
			s.lag.Set(at.Sub(wm).Seconds())
		}
	}
	var late int64
	for i, op := range p.StateOperators {
		if i >= len(s.ops) {
			idx := strconv.Itoa(i)
			s.ops = append(s.ops, opSeries{rows: m.stateRows.WithLabelValues(s.name, s.id, op.OperatorName, idx),
				memory: m.stateMemory.WithLabelValues(s.name, s.id, op.OperatorName, idx),
				spill:  m.stateSpill.WithLabelValues(s.name, s.id, op.OperatorName, idx)})
		}
		s.ops[i].rows.Set(float64(op.NumRowsTotal))
		s.ops[i].memory.Set(float64(op.MemoryUsedBytes))
		s.ops[i].spill.Set(float64(op.CustomMetrics.SpillBytes))
		late += op.NumRowsDroppedByWatermark
	}
	s.lateRows.Add(float64(late))
	if d, from, ok := p.latency(); ok {
		m.latency.WithLabelValues(s.name, s.id, from).Observe(d.Seconds())
	}
	if n, ok := p.checkpointBytes(); ok {
		m.checkpointSize.WithLabelValues(s.name, s.id).Observe(float64(n))
	}
	m.observeSources(s, p)
}

// observeSources sets the sources' lag series: a Kafka source's lag per partition, a file
// source's files outstanding.
func (m *queryMetrics) observeSources(s *queryState, p *progress) {
	for i, src := range p.Sources {
		idx := strconv.Itoa(i)
		if n, err := strconv.ParseInt(src.Metrics.FilesOutstanding, 10, 64); err == nil {
			m.filesOutstanding.WithLabelValues(s.name, s.id, idx).Set(float64(n))
		}
		if src.Metrics.OffsetsBehindLatest == "" {
			continue
		}
		var lag partitionLag
		if json.Unmarshal([]byte(src.Metrics.OffsetsBehindLatest), &lag) != nil {
			continue
		}
		for topic, parts := range lag {
			for part, n := range parts {
				m.kafkaLag.WithLabelValues(s.name, s.id, idx, topic, part).Set(float64(n))
			}
		}
	}
}

// terminate marks query id terminated at now and counts a failure by its error class.
func (m *queryMetrics) terminate(t *terminated) {
	if t.Exception != nil {
		class := "UNCLASSIFIED"
		if t.ErrorClassOnException != nil && *t.ErrorClassOnException != "" {
			class = *t.ErrorClassOnException
		}
		m.failures.WithLabelValues(class).Inc()
	}
	v, ok := m.byID.Load(t.ID)
	if !ok {
		return
	}
	s := v.(*queryState)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.evicted {
		s.active.Set(0)
		s.endedAt.Store(m.now().UnixNano())
	}
}

// evict drops the series of queries terminated before cutoff.
func (m *queryMetrics) evict(cutoff time.Time) {
	m.byID.Range(func(id, v any) bool {
		s := v.(*queryState)
		if e := s.endedAt.Load(); e == 0 || e >= cutoff.UnixNano() {
			return true
		}
		s.mu.Lock()
		if !s.evicted && s.endedAt.Load() != 0 {
			m.dropLocked(s)
		}
		evicted := s.evicted
		s.mu.Unlock()
		if evicted {
			m.byID.CompareAndDelete(id, s)
		}
		return true
	})
}

// queryListener feeds a Registry from a session's query events.
type queryListener struct{ m *queryMetrics }

// QueryListener returns the listener to add to every session's query.Manager (the same one
// serves them all).
func (r *Registry) QueryListener() query.Listener { return queryListener{r.queries} }

// OnEvent implements query.Listener. It runs on the query's goroutine once per epoch.
func (l queryListener) OnEvent(ev query.Event) {
	switch ev.Type {
	case query.ProgressEvent:
		if p, err := parseProgress(ev.JSON); err == nil && p.ID != "" {
			l.m.observe(p)
		}
	case query.TerminatedEvent:
		var t terminated
		if err := json.Unmarshal([]byte(ev.JSON), &t); err == nil && t.ID != "" {
			l.m.terminate(&t)
		}
	}
}
