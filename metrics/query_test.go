package metrics

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/weirhq/weir/query"
)

// progressEvent is a QueryProgressEvent's JSON in query/progress.go's shape.
func progressEvent(id, name string, batch, rows, durMs int64, watermark string, stateRows, dropped int64) query.Event {
	n := "null"
	if name != "" {
		n = `"` + name + `"`
	}
	et := `{}`
	if watermark != "" {
		et = `{"watermark":"` + watermark + `"}`
	}
	return query.Event{Type: query.ProgressEvent, JSON: fmt.Sprintf(`{"progress":{"id":%q,"runId":"r","name":%s,`+
		`"timestamp":"2026-01-01T00:00:10.000Z","batchId":%d,"batchDuration":%d,"numInputRows":%d,`+
		`"inputRowsPerSecond":10.0,"processedRowsPerSecond":250.0,`+
		`"durationMs":{"addBatch":1,"commitOffsets":3,"getBatch":0,"latestOffset":0,"queryPlanning":0,"triggerExecution":%d,"walCommit":4},`+
		`"eventTime":%s,"stateOperators":[{"operatorName":"stateStoreSave","numRowsTotal":%d,"memoryUsedBytes":2048,`+
		`"numRowsDroppedByWatermark":%d}],"sources":[],"sink":{"description":"MemorySink","numOutputRows":%d}}}`,
		id, n, batch, durMs, rows, durMs, et, stateRows, dropped, rows)}
}

func scrape(t *testing.T, h http.Handler, token string) (int, string) {
	t.Helper()
	req := httptest.NewRequest("GET", "/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Body)
	return w.Code, string(b)
}

func TestQuerySeriesFollowProgress(t *testing.T) {
	now := time.Unix(1000, 0)
	r := New("test", "4.1.0", WithClock(func() time.Time { return now }), WithRetention(time.Minute))
	l := r.QueryListener()
	l.OnEvent(progressEvent("q1", "rates", 0, 0, 5, "", 0, 0))
	l.OnEvent(progressEvent("q1", "rates", 1, 40, 120, "2026-01-01T00:00:04.000Z", 7, 2))
	l.OnEvent(progressEvent("q1", "rates", 2, 60, 8, "2026-01-01T00:00:06.500Z", 9, 1))
	l.OnEvent(query.Event{Type: query.IdleEvent, JSON: `{"id":"q1"}`}) // ignored

	for name, want := range map[string]string{
		"weir_query_batches_total":               "3",
		"weir_query_input_rows_total":            "100",
		"weir_query_output_rows_total":           "100",
		"weir_query_last_batch_id":               "2",
		"weir_query_active":                      "1",
		"weir_query_input_rows_per_second":       "10",
		"weir_query_processed_rows_per_second":   "250",
		"weir_query_late_rows_dropped_total":     "3",
		"weir_query_watermark_lag_seconds":       "3.5",
		"weir_query_watermark_timestamp_seconds": "1.7672256065e+09",
	} {
		want := fmt.Sprintf("%s{id=\"q1\",name=\"rates\"} %s\n", name, want)
		if err := testutil.GatherAndCompare(r.Gatherer(), strings.NewReader(header(t, r, name)+want), name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, body := scrape(t, r.Handler(nil), "")
	for _, line := range []string{
		`weir_query_state_rows{id="q1",index="0",name="rates",operator="stateStoreSave"} 9`,
		`weir_query_state_memory_bytes{id="q1",index="0",name="rates",operator="stateStoreSave"} 2048`,
		`weir_query_batch_duration_seconds_count{id="q1",name="rates"} 3`,
		`weir_query_batch_duration_seconds_sum{id="q1",name="rates"} 0.133`,
		`weir_query_checkpoint_duration_seconds_sum{id="q1",name="rates"} 0.021`,
		`weir_build_info{spark_version="4.1.0",version="test"} 1`,
		`go_goroutines `, `process_cpu_seconds_total `,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("scrape lacks %q", line)
		}
	}

	// Terminated: active 0, a failure counted by class; the series stay for the retention.
	l.OnEvent(query.Event{Type: query.TerminatedEvent,
		JSON: `{"id":"q1","runId":"r","exception":"boom","errorClassOnException":"STREAM_FAILED"}`})
	_, body = scrape(t, r.Handler(nil), "")
	if !strings.Contains(body, `weir_query_active{id="q1",name="rates"} 0`) ||
		!strings.Contains(body, `weir_query_failures_total{class="STREAM_FAILED"} 1`) {
		t.Fatalf("after termination:\n%s", body)
	}
	now = now.Add(2 * time.Minute)
	_, body = scrape(t, r.Handler(nil), "")
	if strings.Contains(body, `id="q1"`) {
		t.Fatalf("series of a query terminated past the retention remain:\n%s", body)
	}
	// A restart of the same id starts its series again.
	l.OnEvent(progressEvent("q1", "rates", 3, 5, 5, "", 0, 0))
	if got := testutil.ToFloat64(r.queries.inputRows.WithLabelValues("rates", "q1")); got != 5 {
		t.Fatalf("input rows after restart = %v", got)
	}
	// A restart under another name drops the old name's series.
	l.OnEvent(progressEvent("q1", "renamed", 4, 1, 5, "", 0, 0))
	_, body = scrape(t, r.Handler(nil), "")
	if strings.Contains(body, `name="rates"`) || !strings.Contains(body, `weir_query_batches_total{id="q1",name="renamed"} 1`) {
		t.Fatalf("after a rename:\n%s", body)
	}
}

// header is the HELP and TYPE lines of metric name as the registry describes it.
func header(t *testing.T, r *Registry, name string) string {
	t.Helper()
	mfs, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return fmt.Sprintf("# HELP %s %s\n# TYPE %s %s\n", name, mf.GetHelp(), name, strings.ToLower(mf.GetType().String()))
		}
	}
	t.Fatalf("no metric %s", name)
	return ""
}

func TestHandlerTokens(t *testing.T) {
	r := New("test", "4.1.0")
	h := r.Handler([]string{"a", "b"})
	for tok, want := range map[string]int{"": 401, "c": 401, "a": 200, "b": 200} {
		if code, _ := scrape(t, h, tok); code != want {
			t.Errorf("token %q: status %d, want %d", tok, code, want)
		}
	}
	if code, _ := scrape(t, r.Handler(nil), ""); code != 200 {
		t.Errorf("no tokens: status %d", code)
	}
}

func TestServerSeries(t *testing.T) {
	r := New("test", "4.1.0")
	r.SetServerStats(func() ServerStats { return ServerStats{Sessions: 2, Operations: 3} })
	r.RPC("ExecutePlan")
	r.RPC("ExecutePlan")
	r.Error("ExecutePlan", "TABLE_OR_VIEW_NOT_FOUND")
	r.Received(10)
	r.Sent(25)
	_, body := scrape(t, r.Handler(nil), "")
	for _, line := range []string{"weir_sessions 2\n", "weir_operations 3\n", `weir_rpcs_total{method="ExecutePlan"} 2`,
		`weir_errors_total{class="TABLE_OR_VIEW_NOT_FOUND",method="ExecutePlan"} 1`,
		"weir_rpc_received_bytes_total 10\n", "weir_rpc_sent_bytes_total 25\n"} {
		if !strings.Contains(body, line) {
			t.Errorf("scrape lacks %q", line)
		}
	}
}

// BenchmarkQueryListener is the metrics' cost per epoch: one progress event handled (a
// stateful query's report with a watermark).
func BenchmarkQueryListener(b *testing.B) {
	r := New("bench", "4.1.0")
	l := r.QueryListener()
	ev := progressEvent("q1", "rates", 7, 1000, 12, "2026-01-01T00:00:04.000Z", 9, 1)
	for b.Loop() {
		l.OnEvent(ev)
	}
}

// BenchmarkScrape is one scrape of a server with ten queries of one stateful operator each,
// Go and process collectors included.
func BenchmarkScrape(b *testing.B) {
	r := New("bench", "4.1.0")
	l := r.QueryListener()
	for i := range 10 {
		l.OnEvent(progressEvent(fmt.Sprint("q", i), fmt.Sprint("n", i), 1, 1000, 12, "2026-01-01T00:00:04.000Z", 9, 1))
	}
	h := r.Handler(nil)
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	}
}

// TestConcurrentQueriesAndScrapes: queries report, terminate and restart while scrapes evict
// (run under -race); afterwards every counter holds exactly the reports of its last run.
func TestConcurrentQueriesAndScrapes(t *testing.T) {
	var now atomic.Int64
	r := New("test", "4.1.0", WithClock(func() time.Time { return time.Unix(0, now.Load()) }), WithRetention(time.Nanosecond))
	l, h := r.QueryListener(), r.Handler(nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				now.Add(int64(time.Millisecond))
				scrape(t, h, "")
			}
		}
	}()
	var queries sync.WaitGroup
	for q := range 4 {
		queries.Add(1)
		go func() {
			defer queries.Done()
			id := fmt.Sprint("q", q)
			for run := range 3 {
				for batch := range 20 {
					l.OnEvent(progressEvent(id, "", int64(batch), 1, 1, "", 0, 0))
				}
				if run < 2 {
					l.OnEvent(query.Event{Type: query.TerminatedEvent, JSON: `{"id":"` + id + `"}`})
				}
			}
		}()
	}
	queries.Wait()
	close(stop)
	wg.Wait()
	// The last runs are active: never evicted, so each counts at least its own 20 reports (and
	// those of earlier runs a scrape did not evict in between).
	for q := range 4 {
		if got := testutil.ToFloat64(r.queries.batches.WithLabelValues("", fmt.Sprint("q", q))); got < 20 || got > 60 {
			t.Errorf("q%d: %v batches", q, got)
		}
	}
}

// TestLatencySpillCheckpointAndLagSeries: the series of the progress' metrics maps (sink, sources, customMetrics).
func TestLatencySpillCheckpointAndLagSeries(t *testing.T) {
	r := New("test", "4.1.0")
	l := r.QueryListener()
	l.OnEvent(mapsEvent(1, "1500", "arrival", "300", "7", "2", "4"))
	l.OnEvent(mapsEvent(2, "20", "eventTime", "5000", "0", "1", "0"))
	l.OnEvent(mapsEvent(3, "", "", "100", "0", "0", "0")) // an epoch that read nothing: no latency
	_, body := scrape(t, r.Handler(nil), "")
	for _, line := range []string{
		`weir_query_end_to_end_latency_seconds_count{from="arrival",id="q2",name="lag"} 1`,
		`weir_query_end_to_end_latency_seconds_sum{from="arrival",id="q2",name="lag"} 1.5`,
		`weir_query_end_to_end_latency_seconds_sum{from="event_time",id="q2",name="lag"} 0.02`,
		`weir_query_checkpoint_size_bytes_count{id="q2",name="lag"} 3`,
		`weir_query_checkpoint_size_bytes_sum{id="q2",name="lag"} 5400`,
		`weir_query_state_spill_bytes{id="q2",index="0",name="lag",operator="dedupe"} 3000`,
		`weir_query_kafka_offsets_behind_latest{id="q2",name="lag",partition="0",source="0",topic="t"} 0`,
		`weir_query_kafka_offsets_behind_latest{id="q2",name="lag",partition="1",source="0",topic="t"} 0`,
		`weir_query_source_files_outstanding{id="q2",name="lag",source="1"} 0`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("scrape lacks %q", line)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}

// mapsEvent is a progress event of query q2 with the metrics maps: the progress' (latency
// and checkpoint bytes), a dedupe's customMetrics (spill bytes: 1000*batch), a Kafka and a
// file source's.
func mapsEvent(batch int64, latency, from, written, lag0, lag1, files string) query.Event {
	metrics := `{"checkpointBytesWritten":"` + written + `"`
	if latency != "" {
		metrics += `,"endToEndLatencyMs":"` + latency + `","endToEndLatencyFrom":"` + from + `"`
	}
	metrics += "}"
	return query.Event{Type: query.ProgressEvent, JSON: fmt.Sprintf(`{"progress":{"id":"q2","runId":"r","name":"lag",`+
		`"timestamp":"2026-01-01T00:00:10.000Z","batchId":%d,"batchDuration":10,"numInputRows":5,`+
		`"inputRowsPerSecond":1.0,"processedRowsPerSecond":1.0,"durationMs":{},"eventTime":{},`+
		`"stateOperators":[{"operatorName":"dedupe","numRowsTotal":3,"memoryUsedBytes":10,"customMetrics":{"spillBytes":%d}}],`+
		`"sources":[{"description":"KafkaV2","metrics":{"minOffsetsBehindLatest":"%s","maxOffsetsBehindLatest":"%s",`+
		`"avgOffsetsBehindLatest":"1.0","offsetsBehindLatest":"{\"t\":{\"0\":%s,\"1\":%s}}"}},`+
		`{"description":"FileStreamSource","metrics":{"numFilesOutstanding":"%s"}}],`+
		`"sink":{"description":"MemorySink","numOutputRows":5,"metrics":%s}}}`,
		batch, 1000*batch, lag0, lag1, lag0, lag1, files, metrics)}
}
