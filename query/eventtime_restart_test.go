package query

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/checkpoints"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// A restarted windowed append query continues with the watermark it had: the offsets log
// records each epoch's watermark, an epoch that runs again starts from its logged one, and
// across restarts every window comes out once, none missing.

// windowSinks record, per epoch, the (window start µs, count) rows they received.
var windowSinks = registerEpochSink("eventtimetestsink", func(rec arrow.RecordBatch, i int) ([2]int64, error) {
	w, ok := rec.Column(flow.UserOffset).(*array.Struct)
	if !ok {
		return [2]int64{}, fmt.Errorf("window sink: first column is %s", rec.Column(flow.UserOffset).DataType())
	}
	start := w.Field(0).(*array.Timestamp)
	count := rec.Column(flow.UserOffset + 1).(*array.Int64)
	return [2]int64{int64(start.Value(i)), count.Value(i)}, nil
})

// windowedRateCount is rate-micro-batch (4 rows a batch, batch k stamped k seconds) →
// withWatermark(timestamp, 2 s) → groupBy(window(timestamp, 3 s)).count().
func windowedRateCount(t *testing.T) logical.Node {
	scan := steppedRateScan(t)
	schema := scan.Out
	ti := -1
	for i, f := range schema {
		if f.Name == "timestamp" {
			ti = i
		}
	}
	wm := &logical.Watermark{Input: scan, Column: ti, Delay: 2e6, DelayText: "2 seconds"}
	ts := &expr.Column{Index: ti, Name: "timestamp", T: schema[ti].Type, Null: schema[ti].Nullable}
	w, err := expr.Bind("window", []expr.Expr{ts, expr.NewLiteral("3 seconds", sqltypes.StringType)},
		expr.Options{ANSI: true, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	count := bindAgg(t, "count", expr.NewLiteral(int64(1), sqltypes.LongType))
	return &logical.Aggregate{Input: wm, Groups: []expr.Expr{w}, Aggs: []expr.AggFunc{count}, Names: []string{"count"}}
}

// watermarkMs reads a progress' eventTime.watermark in milliseconds.
func watermarkMs(t *testing.T, p map[string]any) int64 {
	t.Helper()
	et, _ := p["eventTime"].(map[string]any)
	s, ok := et["watermark"].(string)
	if !ok {
		t.Fatalf("progress without eventTime.watermark: %v", p)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		t.Fatal(err)
	}
	return at.UnixMilli()
}

func loggedRecords(t *testing.T, dir string) map[int64]epochRecord {
	t.Helper()
	store, err := checkpoints.Open(filepath.Join(dir, pebbleDir))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	out := map[int64]epochRecord{}
	last, ok, err := store.LastOffsets(storeKey)
	if err != nil || !ok {
		t.Fatalf("no offsets logged: %v", err)
	}
	for e := int64(0); e <= last; e++ {
		b, ok, err := store.Offsets(storeKey, e)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		r, err := decodeRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		out[e] = r
	}
	return out
}

func TestRestartedWindowedAppendKeepsItsWatermark(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	m := newTestManager(mem)
	defer m.StopAll()
	dir := filepath.Join(t.TempDir(), "cp")
	id := t.Name()
	spec := Spec{Plan: windowedRateCount(t), Format: "eventtimetestsink", OutputMode: flow.OutputAppend,
		Options: map[string]string{"checkpointLocation": dir, "id": id}}

	run := func(n int) []map[string]any { return runProgress(t, m, spec, n) }
	batch := func(p map[string]any) int64 { return int64(p["batchId"].(float64)) }

	first := run(8)
	// Every epoch's log entry holds the watermark its progress reports, and the policy.
	logged := loggedRecords(t, dir)
	for _, p := range first {
		r, ok := logged[batch(p)]
		if !ok || r.Meta == nil {
			t.Fatalf("epoch %d logged without metadata: %+v", batch(p), r)
		}
		if r.Meta.BatchWatermarkMs != watermarkMs(t, p) {
			t.Fatalf("epoch %d: logged watermark %d ms, progress %d ms", batch(p), r.Meta.BatchWatermarkMs, watermarkMs(t, p))
		}
		if r.Meta.Conf["spark.sql.streaming.multipleWatermarkPolicy"] != "min" || r.Meta.BatchTimestampMs <= 0 {
			t.Fatalf("epoch %d metadata %+v", batch(p), r.Meta)
		}
	}
	last := first[len(first)-1]
	lastBatch := batch(last)
	// Batch k is stamped k seconds: after it the watermark is k - 2 s.
	if got := watermarkMs(t, last); got != (lastBatch-3)*1000 {
		t.Fatalf("batch %d judged against %d ms", lastBatch, got)
	}

	// A crash after logging epoch last+1 and before its commit: it runs again with its logged
	// offsets and watermark.
	prev := logged[lastBatch]
	wmUs := (lastBatch - 2) * 1e6
	logEpoch(t, dir, epochRecord{Epoch: lastBatch + 1, Start: prev.End, End: []sources.Offset{rateOffsetPlus(t, prev.End[0], 4, 1000)},
		Meta: &offsetMeta{BatchWatermarkMs: wmUs / 1000, BatchTimestampMs: 1,
			Conf: map[string]string{"spark.sql.streaming.multipleWatermarkPolicy": "min"}, WatermarksUs: []*int64{&wmUs}}})
	second := run(6)
	if batch(second[0]) != lastBatch+1 || watermarkMs(t, second[0]) != wmUs/1000 {
		t.Fatalf("the replayed epoch is batch %d judged against %d ms; want batch %d at %d ms",
			batch(second[0]), watermarkMs(t, second[0]), lastBatch+1, wmUs/1000)
	}
	// A restart after a clean stop: the first epoch is judged against the watermark the last
	// one reached (restored state), not against none.
	lastBatch = batch(second[len(second)-1])
	third := run(6)
	if batch(third[0]) != lastBatch+1 || watermarkMs(t, third[0]) != (lastBatch-2)*1000 {
		t.Fatalf("after a restart batch %d is judged against %d ms; want batch %d at %d ms",
			batch(third[0]), watermarkMs(t, third[0]), lastBatch+1, (lastBatch-2)*1000)
	}
	// Every window [3j, 3j+3) s the final watermark closed, once, with its 3 batches of 4 rows.
	// The sink may hold one epoch past the last progress (Stop after its barrier, before the
	// commit): the watermark after the last epoch it got, in seconds.
	sink := windowSinks.get(id)
	final := sink.lastEpoch() - 2
	if final < batch(third[len(third)-1])-2 {
		t.Fatalf("the sink's last epoch %d is before the last progress", sink.lastEpoch())
	}
	got := sink.all()
	closed := final / 3
	if int64(len(got)) != closed {
		t.Fatalf("%d windows written, want %d (watermark %d s): %v", len(got), closed, final, got)
	}
	for j, w := range got {
		if w != [2]int64{int64(j) * 3e6, 12} {
			t.Fatalf("window %d is %v, want start %d s count 12: %v", j, w, 3*j, got)
		}
	}
	mem.AssertSize(t, 0)
}

// The watermark policy a checkpoint was started with stays across restarts (Spark restores it
// from the offsets log), whatever the session says later; an unknown policy fails the start.
func TestWatermarkPolicyComesFromTheCheckpoint(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	m := newTestManager(mem)
	defer m.StopAll()
	policy := "MAX"
	m.env.Conf = func(key string) (string, bool) {
		if key == "spark.sql.streaming.multipleWatermarkPolicy" {
			return policy, true
		}
		return "", false
	}
	dir := filepath.Join(t.TempDir(), "cp")
	spec := Spec{Plan: windowedRateCount(t), Format: "eventtimetestsink", OutputMode: flow.OutputAppend,
		Options: map[string]string{"checkpointLocation": dir, "id": t.Name()}}
	for run := range 2 {
		q := start(t, m, spec)
		waitProgress(t, q, 3)
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		policy = "min"
		for e, r := range loggedRecords(t, dir) {
			if r.Meta == nil || r.Meta.Conf["spark.sql.streaming.multipleWatermarkPolicy"] != "max" {
				t.Fatalf("run %d: epoch %d logged with %+v, want the max policy", run, e, r.Meta)
			}
		}
	}
	policy = "avg"
	other := spec
	other.Options = map[string]string{"checkpointLocation": filepath.Join(t.TempDir(), "other"), "id": t.Name() + "/other"}
	if _, err := m.Start(context.Background(), other); err == nil || err.Error() == "" ||
		!strings.Contains(err.Error(), "Could not recognize watermark policy 'avg'") {
		t.Fatalf("start with policy avg: %v", err)
	}
	mem.AssertSize(t, 0)
}
