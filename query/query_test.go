package query

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/weirhq/weir/sql/plan"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Driver tests run inside a synctest bubble: the wall clock is fake (time advances when every
// goroutine of the bubble is blocked) and the bubble fails if any goroutine outlives the test,
// which is the goroutine-leak check.

func newTestManager(mem memory.Allocator) *Manager {
	return NewManager(Env{Mem: mem, Clock: clock.New(), Runner: flow.NewLocalRunner(flow.WithAllocator(mem)),
		Partitions: 2, ExprContext: func() (*expr.Context, error) { return &expr.Context{ANSI: true}, nil }})
}

// bubble runs f in a synctest bubble with a checked allocator that must end empty.
func bubble(t *testing.T, f func(t *testing.T, m *Manager, mem *memory.CheckedAllocator)) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		m := newTestManager(mem)
		defer m.StopAll() // also when f fails, so the bubble ends
		f(t, m, mem)
		m.StopAll()
		mem.AssertSize(t, 0)
	})
}

func testSpec(t *testing.T, p logical.Node, mode flow.OutputMode, trig Trigger) Spec {
	return Spec{Plan: p, Format: "querytestsink", Options: map[string]string{"id": t.Name()}, OutputMode: mode, Trigger: trig}
}

func start(t *testing.T, m *Manager, spec Spec) *Query {
	t.Helper()
	q, err := m.Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return q
}

func values(from, to int64) []int64 {
	var out []int64
	for v := from; v < to; v++ {
		out = append(out, v)
	}
	return out
}

func sorted(v []int64) []int64 {
	v = append([]int64(nil), v...)
	slices.Sort(v)
	return v
}

// progressOf decodes a progress JSON.
func progressOf(t *testing.T, p string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(p), &m); err != nil {
		t.Fatalf("progress %s: %v", p, err)
	}
	return m
}

func TestDefaultTriggerRunsEpochsAsDataArrives(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, s := newTestStream(t, 2)
		q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{}))
		time.Sleep(time.Second)
		synctest.Wait()
		if st := q.Status(); !st.Active || st.Message != "Waiting for data to arrive" || st.DataAvailable {
			t.Fatalf("idle status %+v", st)
		}
		if n := len(q.RecentProgress()); n != 0 {
			t.Fatalf("progress without data: %d", n)
		}
		s.set(5)
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		s.set(8)
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		rows := testSinkByID(t.Name()).rows()
		if !slices.Equal(sorted(rows[0]), values(0, 5)) || !slices.Equal(sorted(rows[1]), values(5, 8)) || len(rows) != 2 {
			t.Fatalf("sink rows %v", rows)
		}
		ps := q.RecentProgress()
		if len(ps) != 2 {
			t.Fatalf("progress %d", len(ps))
		}
		for i, want := range []float64{5, 3} {
			p := progressOf(t, ps[i])
			if p["batchId"] != float64(i) || p["numInputRows"] != want || p["sink"].(map[string]any)["numOutputRows"] != want {
				t.Fatalf("progress %d: %s", i, ps[i])
			}
		}
		last, ok := q.LastProgress()
		if !ok || last != ps[1] {
			t.Fatalf("last progress %q", last)
		}
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := q.Status(); st.Active || st.Message != "Stopped" {
			t.Fatalf("stopped status %+v", st)
		}
		if q.Exception() != nil {
			t.Fatalf("exception after stop: %+v", q.Exception())
		}
		if s.opened != 1 || s.closed != 1 {
			t.Fatalf("source opened %d closed %d", s.opened, s.closed)
		}
	})
}

func TestProcessingTimeSpacing(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, s := newTestStream(t, 1)
		s.set(3)
		q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{Kind: plan.TriggerProcessingTime, Interval: time.Second}))
		for i := int64(1); i <= 3; i++ {
			time.Sleep(time.Second / 2)
			s.set(3 + i)
			time.Sleep(time.Second / 2)
		}
		// Nothing new: no epoch at the next trigger.
		time.Sleep(3 * time.Second)
		synctest.Wait()
		ps := q.RecentProgress()
		if len(ps) != 4 {
			t.Fatalf("progress %d: %q", len(ps), ps)
		}
		var prev time.Time
		for i, p := range ps {
			ts, err := time.Parse("2006-01-02T15:04:05.000Z", progressOf(t, p)["timestamp"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && ts.Sub(prev) != time.Second {
				t.Fatalf("epoch %d started %v after the previous one", i, ts.Sub(prev))
			}
			prev = ts
		}
		if st := q.Status(); st.DataAvailable || st.Message != "Waiting for data to arrive" {
			t.Fatalf("status %+v", st)
		}
	})
}

func TestOneShotTriggersStopThemselves(t *testing.T) {
	for _, kind := range []plan.TriggerKind{plan.TriggerOnce, plan.TriggerAvailableNow} {
		t.Run([]string{plan.TriggerOnce: "once", plan.TriggerAvailableNow: "availableNow"}[kind], func(t *testing.T) {
			bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
				id, s := newTestStream(t, 2)
				s.set(6)
				q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{Kind: kind}))
				ended, err := q.AwaitTermination(context.Background(), nil)
				if !ended || err != nil {
					t.Fatalf("await: %t %v", ended, err)
				}
				if st := q.Status(); st.Active {
					t.Fatalf("status %+v", st)
				}
				rows := testSinkByID(t.Name()).rows()
				if len(rows) != 1 || !slices.Equal(sorted(rows[0]), values(0, 6)) {
					t.Fatalf("rows %v", rows)
				}
				if len(q.RecentProgress()) != 1 || len(m.Active()) != 0 {
					t.Fatalf("progress %d, active %d", len(q.RecentProgress()), len(m.Active()))
				}
				if got, ok := m.Get(q.ID()); !ok || got != q {
					t.Fatal("a finished query stays in Get")
				}
				if s.closed != 1 {
					t.Fatalf("source closed %d times", s.closed)
				}
			})
		})
	}
}

func TestProcessAllAvailable(t *testing.T) {
	// ProcessingTime(0) runs as fast as possible, like the default trigger.
	for _, trig := range []Trigger{{}, {Kind: plan.TriggerProcessingTime, Interval: 5 * time.Second}, {Kind: plan.TriggerProcessingTime}} {
		t.Run(map[plan.TriggerKind]string{plan.TriggerUnset: "default", plan.TriggerProcessingTime: "processingTime"}[trig.Kind], func(t *testing.T) {
			bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
				id, s := newTestStream(t, 2)
				q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, trig))
				if err := q.ProcessAllAvailable(context.Background()); err != nil {
					t.Fatal(err)
				}
				for _, n := range []int64{5, 12} {
					s.set(n)
					if err := q.ProcessAllAvailable(context.Background()); err != nil {
						t.Fatal(err)
					}
					var all []int64
					for _, r := range testSinkByID(t.Name()).rows() {
						all = append(all, r...)
					}
					if !slices.Equal(sorted(all), values(0, n)) {
						t.Fatalf("after %d: %v", n, sorted(all))
					}
				}
			})
		})
	}
}

func divideByZeroPlan(t *testing.T, id string) logical.Node {
	in := scan(id)
	div, err := expr.Bind("div", []expr.Expr{col0(in), expr.NewLiteral(int64(0), sqltypes.LongType)}, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return &logical.Project{Input: in, Exprs: []expr.Expr{&expr.Alias{Child: div, Name: "q"}}}
}

func TestFailureSurfaces(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		l := &recordingListener{}
		m.AddListener(l)
		id, s := newTestStream(t, 2)
		q := start(t, m, testSpec(t, divideByZeroPlan(t, id), flow.OutputAppend, Trigger{}))
		waiting := make(chan error, 1)
		go func() { waiting <- q.ProcessAllAvailable(context.Background()) }()
		s.set(3)
		ended, err := q.AwaitTermination(context.Background(), nil)
		if !ended || err == nil {
			t.Fatalf("await: %t %v", ended, err)
		}
		var se *sparkerr.Error
		if !errors.As(err, &se) || se.JavaClass != sparkerr.StreamingQueryException || se.Class != "STREAM_FAILED" {
			t.Fatalf("error %#v", err)
		}
		want := "[STREAM_FAILED] Query [id = " + q.ID() + ", runId = " + q.RunID() + "] terminated with exception: [DIVIDE_BY_ZERO] Division by zero."
		if !strings.HasPrefix(se.Error(), want) {
			t.Fatalf("message %q", se.Error())
		}
		exc := q.Exception()
		if exc == nil || exc.Class != "STREAM_FAILED" || exc.Message != sparkerr.StreamingQueryException+": "+se.Error() {
			t.Fatalf("exception %+v", exc)
		}
		if cause, ok := sparkerr.As(se.Cause); !ok || cause.Class != "DIVIDE_BY_ZERO" {
			t.Fatalf("cause %v", se.Cause)
		}
		if err := <-waiting; err == nil || err.Error() != se.Error() {
			t.Fatalf("processAllAvailable: %v", err)
		}
		if err := q.ProcessAllAvailable(context.Background()); err == nil {
			t.Fatal("processAllAvailable on a failed query succeeds")
		}
		ended, err = m.AwaitAnyTermination(context.Background(), nil)
		if !ended || err == nil || err.Error() != se.Error() {
			t.Fatalf("awaitAnyTermination: %t %v", ended, err)
		}
		m.ResetTerminated()
		d := time.Second
		if ended, err := m.AwaitAnyTermination(context.Background(), &d); ended || err != nil {
			t.Fatalf("after reset: %t %v", ended, err)
		}
		if err := q.Stop(context.Background()); err != nil {
			t.Fatalf("stop after failure: %v", err)
		}
		evs := l.all()
		last := evs[len(evs)-1]
		var term map[string]any
		if err := json.Unmarshal([]byte(last.JSON), &term); err != nil || last.Type != TerminatedEvent {
			t.Fatalf("terminated event %+v: %v", last, err)
		}
		if term["id"] != q.ID() || term["runId"] != q.RunID() || term["errorClassOnException"] != "DIVIDE_BY_ZERO" ||
			!strings.HasPrefix(term["exception"].(string), "org.apache.spark.SparkArithmeticException: [DIVIDE_BY_ZERO]") &&
				!strings.Contains(term["exception"].(string), "[DIVIDE_BY_ZERO]") {
			t.Fatalf("terminated event %s", last.JSON)
		}
	})
}

func TestSourceFailureAfterStart(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, s := newTestStream(t, 1)
		q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{}))
		s.mu.Lock()
		s.failLatest = sparkerr.New(sparkerr.SparkException, "", "", "connection reset")
		s.mu.Unlock()
		ended, err := q.AwaitTermination(context.Background(), nil)
		if !ended || err == nil || !strings.HasSuffix(err.Error(), "terminated with exception: connection reset SQLSTATE: XXKST") {
			t.Fatalf("await: %t %v", ended, err)
		}
	})
}

func TestSourceOpenErrorFailsStartedQuery(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		p := &logical.SourceScan{Format: "querytest", Options: map[string]string{"open_error": "Connection refused"},
			Out: testSchema, Streaming: true}
		q, err := m.Start(context.Background(), testSpec(t, p, flow.OutputAppend, Trigger{}))
		if err != nil {
			t.Fatalf("start fails: %v", err)
		}
		ended, err := q.AwaitTermination(context.Background(), nil)
		if !ended || err == nil || !strings.Contains(err.Error(), "terminated with exception: Connection refused") {
			t.Fatalf("await: %t %v", ended, err)
		}
		if q.Exception() == nil || q.Status().Active {
			t.Fatal("query did not fail")
		}
	})
}

func TestStopIsSynchronousAndIdempotent(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, s := newTestStream(t, 3)
		s.set(100)
		q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{Kind: plan.TriggerProcessingTime, Interval: time.Second}))
		time.Sleep(1500 * time.Millisecond)
		s.set(200)
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		// Everything the query ran has ended when Stop returns: the source is closed and the
		// allocator holds nothing.
		if s.closed != 1 {
			t.Fatalf("source closed %d times", s.closed)
		}
		mem.AssertSize(t, 0)
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if ended, err := q.AwaitTermination(context.Background(), nil); !ended || err != nil {
			t.Fatalf("await: %t %v", ended, err)
		}
		if len(m.Active()) != 0 {
			t.Fatal("stopped query is active")
		}
	})
}

func TestAwaitTerminationTimeout(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, _ := newTestStream(t, 1)
		q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{}))
		d := 2 * time.Second
		before := time.Now()
		if ended, err := q.AwaitTermination(context.Background(), &d); ended || err != nil {
			t.Fatalf("await: %t %v", ended, err)
		}
		if waited := time.Since(before); waited != d {
			t.Fatalf("waited %v", waited)
		}
		if ended, err := m.AwaitAnyTermination(context.Background(), &d); ended || err != nil {
			t.Fatalf("await any: %t %v", ended, err)
		}
		go func() {
			time.Sleep(time.Second)
			_ = q.Stop(context.Background())
		}()
		if ended, err := m.AwaitAnyTermination(context.Background(), nil); !ended || err != nil {
			t.Fatalf("await any: %t %v", ended, err)
		}
	})
}

// requiredProgressKeys are the keys PySpark 4's StreamingQueryProgress.fromJson and the
// reference's full json4s shape need.
var (
	requiredProgressKeys = []string{"id", "runId", "name", "timestamp", "batchId", "batchDuration", "numInputRows",
		"inputRowsPerSecond", "processedRowsPerSecond", "durationMs", "eventTime", "stateOperators", "sources", "sink",
		"observedMetrics"}
	requiredDurations = []string{"addBatch", "getBatch", "latestOffset", "queryPlanning", "triggerExecution",
		"walCommit", "commitOffsets"}
	requiredStateKeys = []string{"operatorName", "numRowsTotal", "numRowsUpdated", "numRowsRemoved", "allUpdatesTimeMs",
		"allRemovalsTimeMs", "commitTimeMs", "memoryUsedBytes", "numRowsDroppedByWatermark", "numShufflePartitions",
		"numStateStoreInstances"}
	requiredSourceKeys = []string{"description", "startOffset", "endOffset", "latestOffset", "numInputRows",
		"inputRowsPerSecond", "processedRowsPerSecond"}
)

func hasKeys(t *testing.T, what string, m map[string]any, keys []string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Fatalf("%s lacks %q: %v", what, k, m)
		}
	}
}

// checkFinite fails on a number that is not finite anywhere in v.
func checkFinite(t *testing.T, v any) {
	switch v := v.(type) {
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite number %v", v)
		}
	case map[string]any:
		for _, x := range v {
			checkFinite(t, x)
		}
	case []any:
		for _, x := range v {
			checkFinite(t, x)
		}
	}
}

func TestProgressJSONHasEveryRequiredKey(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		l := &recordingListener{}
		remove := m.AddListener(l)
		defer remove()
		id, s := newTestStream(t, 2)
		in := scan(id)
		count, err := expr.BindAggregate("count", []expr.Expr{col0(in)}, false, expr.Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		agg := &logical.Aggregate{Input: in, Aggs: []expr.AggFunc{count}, Names: []string{"n"}}
		spec := testSpec(t, agg, flow.OutputComplete, Trigger{Kind: plan.TriggerProcessingTime, Interval: time.Second})
		spec.Name = "counts"
		s.set(4) // seen by the trigger at start
		q := start(t, m, spec)
		var started map[string]any
		if err := json.Unmarshal([]byte(q.StartedEventJSON()), &started); err != nil {
			t.Fatal(err)
		}
		hasKeys(t, "started event", started, []string{"id", "runId", "name", "timestamp"})
		if started["name"] != "counts" {
			t.Fatalf("started event %v", started)
		}
		time.Sleep(500 * time.Millisecond)
		s.set(10)
		time.Sleep(time.Second)
		synctest.Wait()
		ps := q.RecentProgress()
		if len(ps) != 2 {
			t.Fatalf("progress %q", ps)
		}
		for i, raw := range ps {
			p := progressOf(t, raw)
			checkFinite(t, p)
			hasKeys(t, "progress", p, requiredProgressKeys)
			hasKeys(t, "durationMs", p["durationMs"].(map[string]any), requiredDurations)
			ops := p["stateOperators"].([]any)
			if len(ops) != 1 {
				t.Fatalf("state operators %v", ops)
			}
			op := ops[0].(map[string]any)
			hasKeys(t, "state operator", op, requiredStateKeys)
			if op["operatorName"] != "stateStoreSave" || op["numShufflePartitions"] != float64(1) {
				t.Fatalf("state operator %v", op)
			}
			srcs := p["sources"].([]any)
			src := srcs[0].(map[string]any)
			hasKeys(t, "source", src, requiredSourceKeys)
			hasKeys(t, "sink", p["sink"].(map[string]any), []string{"description", "numOutputRows"})
			wantStart, wantEnd := []string{"0", "4"}[i], []string{"4", "10"}[i]
			if src["startOffset"] != wantStart || src["endOffset"] != wantEnd || src["latestOffset"] != wantEnd {
				t.Fatalf("offsets %v", src)
			}
			if p["id"] != q.ID() || p["runId"] != q.RunID() || p["name"] != "counts" || p["batchId"] != float64(i) {
				t.Fatalf("identity %v", p)
			}
			if !strings.HasSuffix(p["timestamp"].(string), "Z") || len(p["timestamp"].(string)) != len("2025-03-10T08:15:30.250Z") {
				t.Fatalf("timestamp %v", p["timestamp"])
			}
		}
		if p := progressOf(t, ps[1]); p["numInputRows"] != float64(6) || p["inputRowsPerSecond"] != float64(6) {
			t.Fatalf("second epoch %v", p)
		}
		// Without event time, the latency runs from the previous epoch's latest-offsets request
		// (the rows arrived after it) to the commit, a trigger interval later on the fake clock;
		// without a checkpoint nothing is written to one; nothing spilled.
		for i, want := range []string{"0", "1000"} {
			p := progressOf(t, ps[i])
			metrics := p["sink"].(map[string]any)["metrics"].(map[string]any)
			if metrics["endToEndLatencyMs"] != want || metrics["endToEndLatencyFrom"] != "arrival" {
				t.Fatalf("epoch %d metrics %v", i, metrics)
			}
			if _, ok := metrics["checkpointBytesWritten"]; ok {
				t.Fatalf("epoch %d checkpoint bytes without a checkpoint: %v", i, metrics)
			}
			op := p["stateOperators"].([]any)[0].(map[string]any)
			if op["customMetrics"].(map[string]any)["spillBytes"] != float64(0) {
				t.Fatalf("epoch %d state operator %v", i, op)
			}
		}
		// Rates are Scala Doubles in Spark's JSON ("6.0"): PySpark reads floats, not ints.
		if !strings.Contains(ps[1], `"inputRowsPerSecond":6.0`) || !strings.Contains(ps[1], `"processedRowsPerSecond":`) {
			t.Fatalf("rates not rendered as doubles: %s", ps[1])
		}
		// Complete mode: the changed count each epoch, retraction of the old one first.
		if rows := testSinkByID(t.Name()).rows(); !slices.Equal(rows[0], []int64{4}) || !slices.Equal(rows[1], []int64{10}) {
			t.Fatalf("counts %v", rows)
		}
		var progressEvents int
		for _, e := range l.all() {
			if e.Type != ProgressEvent {
				continue
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(e.JSON), &ev); err != nil {
				t.Fatal(err)
			}
			hasKeys(t, "progress event", ev["progress"].(map[string]any), requiredProgressKeys)
			progressEvents++
		}
		if progressEvents != 2 {
			t.Fatalf("%d progress events", progressEvents)
		}
	})
}

func TestIdleAndTerminatedEvents(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		l := &recordingListener{}
		m.AddListener(l)
		id, _ := newTestStream(t, 1)
		q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{}))
		time.Sleep(15 * time.Second)
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		evs := l.all()
		if len(evs) != 2 || evs[0].Type != IdleEvent || evs[1].Type != TerminatedEvent {
			t.Fatalf("events %+v", evs)
		}
		var idle, term map[string]any
		_ = json.Unmarshal([]byte(evs[0].JSON), &idle)
		_ = json.Unmarshal([]byte(evs[1].JSON), &term)
		hasKeys(t, "idle", idle, []string{"id", "runId", "timestamp"})
		hasKeys(t, "terminated", term, []string{"id", "runId", "exception", "errorClassOnException"})
		if term["exception"] != nil || term["errorClassOnException"] != nil {
			t.Fatalf("terminated %v", term)
		}
	})
}

func TestNameMustBeUniqueAmongActiveQueries(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, _ := newTestStream(t, 1)
		spec := testSpec(t, scan(id), flow.OutputAppend, Trigger{})
		spec.Name = "dup"
		q := start(t, m, spec)
		_, err := m.Start(context.Background(), spec)
		se, ok := sparkerr.As(err)
		if !ok || se.JavaClass != sparkerr.IllegalArgumentException ||
			se.Error() != "Cannot start query with name dup as a query with that name is already active in this SparkSession" {
			t.Fatalf("second start: %v", err)
		}
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		q2 := start(t, m, spec)
		if q2.ID() == q.ID() || q2.RunID() == q.RunID() || len(m.Active()) != 1 {
			t.Fatal("restart by name")
		}
	})
}

func TestStoppedQueriesAreRetainedForAnHour(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, _ := newTestStream(t, 1)
		q := start(t, m, testSpec(t, scan(id), flow.OutputAppend, Trigger{}))
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Minute)
		if _, ok := m.Get(q.ID()); !ok {
			t.Fatal("evicted too early")
		}
		time.Sleep(59 * time.Minute) // the Get above extended the retention
		if _, ok := m.Get(q.ID()); !ok {
			t.Fatal("access did not extend the retention")
		}
		time.Sleep(time.Hour)
		if _, ok := m.Get(q.ID()); ok {
			t.Fatal("not evicted after an hour")
		}
	})
}

func TestIDsAreCanonicalUUIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		u := newUUID()
		if len(u) != 36 || u[8] != '-' || u[13] != '-' || u[18] != '-' || u[23] != '-' || u[14] != '4' ||
			!strings.ContainsRune("89ab", rune(u[19])) || seen[u] {
			t.Fatalf("uuid %q", u)
		}
		seen[u] = true
	}
}

func TestRecentProgressKeepsTheLast100(t *testing.T) {
	q := &Query{}
	for i := range 150 {
		q.addProgress(strconv.Itoa(i))
	}
	ps := q.RecentProgress()
	if len(ps) != numRecentProgress || ps[0] != "50" || ps[99] != "149" {
		t.Fatalf("kept %d: %s … %s", len(ps), ps[0], ps[len(ps)-1])
	}
	if last, ok := q.LastProgress(); !ok || last != "149" {
		t.Fatalf("last %q", last)
	}
}

func TestExplain(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		id, _ := newTestStream(t, 1)
		p := &logical.Filter{Input: scan(id), Cond: expr.NewLiteral(true, sqltypes.BooleanType)}
		q := start(t, m, testSpec(t, p, flow.OutputAppend, Trigger{}))
		want := "== Physical Plan ==\nWriteToDataSourceV2 MicroBatchWrite[epoch: 0, writer: TestSink], append\n" +
			"+- Filter true\n   +- StreamingRelation querytest [value]\n"
		if got := q.Explain(false); got != want {
			t.Fatalf("explain:\n%s\nwant:\n%s", got, want)
		}
		if got := q.Explain(true); !strings.HasPrefix(got, "== Analyzed Logical Plan ==\nFilter true\n+- StreamingRelation") {
			t.Fatalf("extended explain:\n%s", got)
		}
	})
}
