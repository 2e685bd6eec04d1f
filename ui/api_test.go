package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weirhq/weir/query"
)

// fakeBackend serves fixed sessions; token "alice" is principal "A", "bob" "B".
type fakeBackend struct {
	sessions    map[Principal][]Session
	interrupted []string // "principal/session/user/op"
	stopped     []string
}

func (f *fakeBackend) Authorize(bearer string) (Principal, bool) {
	switch bearer {
	case "alice":
		return "A", true
	case "bob":
		return "B", true
	}
	return "", false
}

func (f *fakeBackend) Sessions(p Principal) []Session { return f.sessions[p] }

func (f *fakeBackend) Plan(_ context.Context, p Principal, sessionID, userID, queryID string) (string, error) {
	return fmt.Sprintf("== Physical Plan ==\nplan of %s", queryID), nil
}

func (f *fakeBackend) Interrupt(_ context.Context, p Principal, sessionID, userID, opID string) ([]string, error) {
	if sessionID != "s1" {
		return nil, errors.New("[INVALID_HANDLE.SESSION_NOT_FOUND] no such session")
	}
	f.interrupted = append(f.interrupted, fmt.Sprintf("%s/%s/%s/%s", p, sessionID, userID, opID))
	return []string{opID}, nil
}

func (f *fakeBackend) StopQuery(_ context.Context, p Principal, sessionID, userID, queryID string) error {
	f.stopped = append(f.stopped, fmt.Sprintf("%s/%s/%s/%s", p, sessionID, userID, queryID))
	return nil
}

// progressEvent is a QueryProgressEvent's JSON as query/progress.go writes it.
func progressEvent(runID string, batch int64, watermark string, state bool) string {
	ops := `[]`
	if state {
		ops = `[{"operatorName":"stateStoreSave","numRowsTotal":10,"numRowsUpdated":2,"memoryUsedBytes":300,"numRowsDroppedByWatermark":1},` +
			`{"operatorName":"dedupe","numRowsTotal":5,"numRowsUpdated":1,"memoryUsedBytes":100,"numRowsDroppedByWatermark":0}]`
	}
	return fmt.Sprintf(`{"progress":{"id":"q1","runId":%q,"name":"counts","timestamp":"2025-01-02T03:04:%02d.500Z",`+
		`"batchId":%d,"batchDuration":40,"numInputRows":100,"inputRowsPerSecond":50.0,"processedRowsPerSecond":2500.0,`+
		`"durationMs":{"addBatch":30,"commitOffsets":2,"getBatch":0,"latestOffset":1,"queryPlanning":0,"triggerExecution":40,"walCommit":3},`+
		`"eventTime":{"watermark":%q},"stateOperators":%s,"sources":[],"sink":{"description":"noop","numOutputRows":3}}}`,
		runID, batch%60, batch, watermark, ops)
}

func feed(h *History, o Origin, evs ...query.Event) {
	l := h.Listener(o)
	for _, ev := range evs {
		l.OnEvent(ev)
	}
}

func TestParseProgress(t *testing.T) {
	p, ok := parseProgress(progressEvent("r1", 7, "2025-01-02T03:04:02.000Z", true))
	if !ok {
		t.Fatal("not parsed")
	}
	if p.id != "q1" || p.runID != "r1" || p.name != "counts" || p.BatchID != 7 || p.InputRows != 100 ||
		p.InputRate != 50 || p.ProcessRate != 2500 || p.BatchMs != 40 {
		t.Errorf("fields: %+v", p)
	}
	if want := time.Date(2025, 1, 2, 3, 4, 7, 500e6, time.UTC).UnixMilli(); p.TimeMs != want {
		t.Errorf("time %d, want %d", p.TimeMs, want)
	}
	if _, ok := p.Ops["triggerExecution"]; ok || p.Ops["addBatch"] != 30 || p.Ops["walCommit"] != 3 || len(p.Ops) != 6 {
		t.Errorf("ops %v: want durationMs without triggerExecution", p.Ops)
	}
	if p.WatermarkGapS == nil || *p.WatermarkGapS != 5.5 {
		t.Errorf("watermark gap %v, want 5.5s (batch 03:04:07.5 − watermark 03:04:02)", p.WatermarkGapS)
	}
	if want := (StatePoint{Rows: 15, Updated: 3, MemoryBytes: 400, Dropped: 1}); p.State == nil || *p.State != want {
		t.Errorf("state %+v, want %+v", p.State, want)
	}
	// Spark's UI draws no gap while the watermark is still the epoch, and no state charts
	// for a stateless query.
	p, _ = parseProgress(progressEvent("r1", 0, "1970-01-01T00:00:00.000Z", false))
	if p.WatermarkGapS != nil || p.State != nil {
		t.Errorf("gap %v state %v, want none", p.WatermarkGapS, p.State)
	}
	if _, ok := parseProgress(`{"progress":`); ok {
		t.Error("broken JSON parsed")
	}
}

func TestHistoryKeepsRecentPointsAndEnds(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	h := NewHistory(WithPoints(3), WithClock(func() time.Time { return now }))
	o := Origin{Principal: "A", SessionID: "s1", UserID: "u"}
	for b := int64(0); b < 5; b++ {
		feed(h, o, query.Event{Type: query.ProgressEvent, JSON: progressEvent("r1", b, "", false)})
	}
	d, ok := h.detail("A", "r1", -1)
	if !ok {
		t.Fatal("run not found")
	}
	if d.FirstSeq != 2 || len(d.Points) != 3 || d.Points[0].BatchID != 2 || d.Batches != 5 || *d.LastBatchID != 4 {
		t.Fatalf("detail: first %d, %d points, batches %d", d.FirstSeq, len(d.Points), d.Batches)
	}
	d, _ = h.detail("A", "r1", 3)
	if d.FirstSeq != 4 || len(d.Points) != 1 || d.Points[0].BatchID != 4 {
		t.Errorf("after 3: first %d, points %+v", d.FirstSeq, d.Points)
	}
	d, _ = h.detail("A", "r1", 4)
	if d.FirstSeq != 5 || len(d.Points) != 0 {
		t.Errorf("after 4: first %d, %d points", d.FirstSeq, len(d.Points))
	}
	if _, ok := h.detail("B", "r1", -1); ok {
		t.Error("another principal sees the run")
	}
	feed(h, o, query.Event{Type: query.TerminatedEvent,
		JSON: `{"id":"q1","runId":"r1","exception":"org.apache.spark.SparkArithmeticException: [DIVIDE_BY_ZERO] Division by zero.","errorClassOnException":"DIVIDE_BY_ZERO"}`})
	s := h.summaries("A")
	if len(s) != 1 || s[0].Active || s[0].Error == nil || s[0].Error.Class != "DIVIDE_BY_ZERO" || s[0].EndedMs == nil {
		t.Fatalf("after termination: %+v", s)
	}
	now = now.Add(DefaultRetention + time.Second)
	if s := h.summaries("A"); len(s) != 0 {
		t.Errorf("terminated run kept past the retention: %+v", s)
	}
}

func TestHistoryBoundsTerminatedRuns(t *testing.T) {
	h := NewHistory()
	o := Origin{Principal: "A"}
	for i := range DefaultTerminated + 5 {
		feed(h, o, query.Event{Type: query.TerminatedEvent, JSON: fmt.Sprintf(`{"id":"q","runId":"r%d"}`, i)})
	}
	if n := len(h.summaries("A")); n != DefaultTerminated {
		t.Errorf("%d terminated runs kept, want %d", n, DefaultTerminated)
	}
}

func newTestServer(t *testing.T, loopbackOnly bool) (*httptest.Server, *fakeBackend, *History) {
	t.Helper()
	b := &fakeBackend{sessions: map[Principal][]Session{
		"A": {{ID: "s1", UserID: "u", LastUsedMs: 1, Operations: []Operation{{ID: "op1", Tags: []string{}, State: "running"}},
			Queries: []QueryRef{{ID: "q1", RunID: "r1", Name: "counts"}, {ID: "q2", RunID: "r2"}}}},
	}}
	h := NewHistory()
	srv := httptest.NewServer(Handler(Config{Backend: b, History: h, LoopbackOnly: loopbackOnly}))
	t.Cleanup(srv.Close)
	return srv, b, h
}

func do(t *testing.T, srv *httptest.Server, method, path, token, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAPIOverview(t *testing.T) {
	srv, _, h := newTestServer(t, false)
	feed(h, Origin{Principal: "A", SessionID: "s1", UserID: "u"},
		query.Event{Type: query.ProgressEvent, JSON: progressEvent("r1", 0, "", false)},
		query.Event{Type: query.ProgressEvent, JSON: progressEvent("r1", 1, "", false)})
	feed(h, Origin{Principal: "B", SessionID: "s9", UserID: "v"},
		query.Event{Type: query.ProgressEvent, JSON: progressEvent("r9", 0, "", false)})

	if code, _ := do(t, srv, "GET", "/api/overview", "", "", nil); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _ := do(t, srv, "GET", "/api/overview", "mallory", "", nil); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", code)
	}
	code, body := do(t, srv, "GET", "/api/overview", "alice", "", nil)
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	var o Overview
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	// r1 from the history (2 reports), r2 from its session (no report yet); bob's r9 not.
	// Active runs come first, by name (r2 has none).
	if len(o.Queries) != 2 || o.Queries[1].RunID != "r1" || o.Queries[1].Batches != 2 || !o.Queries[1].Active ||
		o.Queries[0].RunID != "r2" || o.Queries[0].Batches != 0 || o.Queries[0].SessionID != "s1" {
		t.Errorf("queries: %s", body)
	}
	if len(o.Sessions) != 1 || o.Sessions[0].ID != "s1" || len(o.Sessions[0].Operations) != 1 {
		t.Errorf("sessions: %s", body)
	}
	code, body = do(t, srv, "GET", "/api/overview", "bob", "", nil)
	if code != http.StatusOK || !strings.Contains(body, `"runId":"r9"`) || strings.Contains(body, `"r1"`) ||
		!strings.Contains(body, `"sessions":[]`) {
		t.Errorf("bob: %d %s", code, body)
	}
}

func TestAPIQueryDetail(t *testing.T) {
	srv, _, h := newTestServer(t, false)
	o := Origin{Principal: "A", SessionID: "s1", UserID: "u"}
	for b := int64(0); b < 3; b++ {
		feed(h, o, query.Event{Type: query.ProgressEvent, JSON: progressEvent("r1", b, "2025-01-02T03:04:00.000Z", true)})
	}
	code, body := do(t, srv, "GET", "/api/queries/r1?plan=1", "alice", "", nil)
	var d QueryDetail
	if err := json.Unmarshal([]byte(body), &d); code != http.StatusOK || err != nil {
		t.Fatalf("%d %s %v", code, body, err)
	}
	if len(d.Points) != 3 || d.FirstSeq != 0 || d.Plan != "== Physical Plan ==\nplan of q1" || d.Points[2].State == nil ||
		d.Points[2].WatermarkGapS == nil {
		t.Errorf("detail: %s", body)
	}
	code, body = do(t, srv, "GET", "/api/queries/r1?after=1", "alice", "", nil)
	if err := json.Unmarshal([]byte(body), &d); code != http.StatusOK || err != nil || len(d.Points) != 1 ||
		d.FirstSeq != 2 || d.Points[0].BatchID != 2 || d.Plan == "" {
		t.Errorf("after=1 (plan remembered): %d %s", code, body)
	}
	// An active query without reports yet has an empty detail; unknown and others' runs are 404.
	code, body = do(t, srv, "GET", "/api/queries/r2", "alice", "", nil)
	if code != http.StatusOK || !strings.Contains(body, `"points":[]`) || !strings.Contains(body, `"active":true`) {
		t.Errorf("r2: %d %s", code, body)
	}
	if code, _ := do(t, srv, "GET", "/api/queries/r1", "bob", "", nil); code != http.StatusNotFound {
		t.Errorf("bob reads alice's run: %d, want 404", code)
	}
	if code, _ := do(t, srv, "GET", "/api/queries/r1?after=x", "alice", "", nil); code != http.StatusBadRequest {
		t.Errorf("after=x: %d, want 400", code)
	}
}

func TestAPICancelAndStop(t *testing.T) {
	srv, b, _ := newTestServer(t, false)
	code, body := do(t, srv, "POST", "/api/operations/cancel", "alice", `{"sessionId":"s1","userId":"u","operationId":"op1"}`, nil)
	if code != http.StatusOK || body != `{"interrupted":["op1"]}`+"\n" || len(b.interrupted) != 1 || b.interrupted[0] != "A/s1/u/op1" {
		t.Errorf("cancel: %d %s %v", code, body, b.interrupted)
	}
	code, body = do(t, srv, "POST", "/api/operations/cancel", "alice", `{"sessionId":"s2","userId":"u","operationId":"op1"}`, nil)
	if code != http.StatusConflict || !strings.Contains(body, "SESSION_NOT_FOUND") {
		t.Errorf("cancel in an unknown session: %d %s", code, body)
	}
	for _, bad := range []string{`{"sessionId":"s1"}`, `{"operationId":"op1"}`, `not json`} {
		if code, _ := do(t, srv, "POST", "/api/operations/cancel", "alice", bad, nil); code != http.StatusBadRequest {
			t.Errorf("cancel %s: %d, want 400", bad, code)
		}
	}
	if code, _ := do(t, srv, "POST", "/api/operations/cancel", "", `{"sessionId":"s1","userId":"u","operationId":"op1"}`, nil); code != http.StatusUnauthorized {
		t.Errorf("cancel without token: %d, want 401", code)
	}
	if code, _ := do(t, srv, "GET", "/api/operations/cancel", "alice", "", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("GET cancel: %d, want 405", code)
	}
	// Another site cannot make the user's browser send it.
	if code, _ := do(t, srv, "POST", "/api/operations/cancel", "alice", `{"sessionId":"s1","userId":"u","operationId":"op1"}`,
		map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}); code != http.StatusForbidden {
		t.Errorf("cross-site cancel: %d, want 403", code)
	}
	if len(b.interrupted) != 1 {
		t.Errorf("interrupts: %v", b.interrupted)
	}
	code, body = do(t, srv, "POST", "/api/queries/stop", "alice", `{"sessionId":"s1","userId":"u","queryId":"q1"}`, nil)
	if code != http.StatusOK || len(b.stopped) != 1 || b.stopped[0] != "A/s1/u/q1" {
		t.Errorf("stop: %d %s %v", code, body, b.stopped)
	}
}

func TestHandlerAssetsAndHosts(t *testing.T) {
	srv, _, _ := newTestServer(t, true)
	for path, want := range map[string]string{"/": "<canvas", "/app.js": "chartDefs", "/app.css": ".chart"} {
		code, body := do(t, srv, "GET", path, "", "", nil)
		if path == "/" {
			want = `<script src="app.js"`
		}
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want %q in the body", path, code, want)
		}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	if code, _ := do(t, srv, "GET", "/nothing", "", "", nil); code != http.StatusNotFound {
		t.Errorf("/nothing: %d", code)
	}
	// DNS rebinding: a loopback UI answers only loopback Host names.
	if code, _ := do(t, srv, "GET", "/api/overview", "alice", "", map[string]string{"Host": "evil.example:80"}); code != http.StatusMisdirectedRequest {
		t.Errorf("Host evil.example: %d, want 421", code)
	}
	for _, host := range []string{"localhost:4040", "127.0.0.1:4040", "[::1]:4040", "localhost"} {
		if code, _ := do(t, srv, "GET", "/api/overview", "alice", "", map[string]string{"Host": host}); code != http.StatusOK {
			t.Errorf("Host %s: %d, want 200", host, code)
		}
	}
}

// TestHistoryConcurrent: queries report while the UI reads (run with -race).
func TestHistoryConcurrent(t *testing.T) {
	h := NewHistory(WithPoints(10))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := Origin{Principal: "A", SessionID: "s"}
			run := fmt.Sprintf("r%d", w)
			for b := int64(0); b < 200; b++ {
				feed(h, o, query.Event{Type: query.ProgressEvent, JSON: progressEvent(run, b, "", b%2 == 0)})
			}
			feed(h, o, query.Event{Type: query.TerminatedEvent, JSON: fmt.Sprintf(`{"id":"q1","runId":%q}`, run)})
		}()
	}
	for range 200 {
		for _, s := range h.summaries("A") {
			// Report n of a run is its batch n: a detail's points are numbered from FirstSeq.
			d, ok := h.detail("A", s.RunID, s.Batches-3)
			for i, p := range d.Points {
				if !ok || p.BatchID != d.FirstSeq+int64(i) {
					t.Fatalf("after %d: point %d is batch %d, first %d", s.Batches-3, i, p.BatchID, d.FirstSeq)
				}
			}
		}
	}
	wg.Wait()
	for _, s := range h.summaries("A") {
		if s.Active || s.Batches != 200 {
			t.Errorf("%+v", s)
		}
	}
}
