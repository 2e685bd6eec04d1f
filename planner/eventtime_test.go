package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var tsSchema = sqltypes.Schema{{Name: "ts", Type: sqltypes.TimestampType, Nullable: true}}

// timeScript emits, per partition, batches of event times (seconds) and barriers (a negative
// number -n is barrier n).
type timeScript [][]int64

func (ss timeScript) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	s := ss[env.Partition]
	var pending []any
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		col := expr.BuildArray(env.Mem, sqltypes.TimestampType, "UTC", pending)
		rec := flow.NewDataBatch(env.Mem, env.OutSchema, []arrow.Array{col}, nil)
		col.Release()
		pending = nil
		return out.Emit(ctx, rec)
	}
	for _, v := range s {
		if v >= 0 {
			pending = append(pending, v*1e6)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if err := out.Emit(ctx, flow.NewMarkerBatch(env.Mem, env.OutSchema, flow.Marker{Kind: flow.MarkerBarrier, Epoch: -v})); err != nil {
			return err
		}
	}
	return flush()
}

func windowCount(t *testing.T, in logical.Node, args ...expr.Expr) *logical.Aggregate {
	w, err := expr.Bind("window", append([]expr.Expr{col(in, 0)}, args...), expr.Options{ANSI: true, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return &logical.Aggregate{Input: in, Groups: []expr.Expr{w}, Aggs: []expr.AggFunc{agg(t, "count", col(in, 0))},
		Names: []string{"count"}}
}

func strLit(s string) expr.Expr { return expr.NewLiteral(s, sqltypes.StringType) }

// runEventTime runs a streaming plan over the script and renders windows in seconds.
func runEventTime(t *testing.T, e *env, root logical.Node, script timeScript, mode flow.OutputMode, obs *Observers) []string {
	t.Helper()
	got, err := e.runWith(root, Options{Mem: e.mem, Partitions: 2, Streaming: true, OutputMode: mode, Observers: obs,
		Sources: func(*logical.SourceScan) (flow.Source, int, error) { return script, len(script), nil }}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Rows in seconds, sorted within each epoch (partitions interleave).
	var out, epoch []string
	for _, row := range got {
		if strings.HasPrefix(row, "barrier") {
			slices.Sort(epoch)
			out = append(append(out, epoch...), row)
			epoch = nil
			continue
		}
		sign, body := "", row
		if strings.HasPrefix(row, "- ") {
			sign, body = "- ", row[2:]
		}
		var s, en, c int64
		if _, err := fmt.Sscanf(body, "[%d %d], %d", &s, &en, &c); err == nil {
			row = fmt.Sprintf("%s[%d,%d) %d", sign, s/1e6, en/1e6, c)
		}
		epoch = append(epoch, row)
	}
	slices.Sort(epoch)
	return append(out, epoch...)
}

func TestWatermarkedWindowAppend(t *testing.T) {
	e := newEnv(t)
	scan := &logical.SourceScan{Format: "script", Out: tsSchema, Streaming: true}
	wm := &logical.Watermark{Input: scan, Column: 0, Delay: 5e6, DelayText: "5 seconds"}
	obs := &Observers{}
	got := runEventTime(t, e, windowCount(t, wm, strLit("10 seconds")),
		timeScript{{1, 2, 12, -1, 25, -2, 3, 22, -3, 40, -4}}, flow.OutputAppend, obs)
	// Epoch 2 moves the watermark to 20 and closes two windows; 3 is late in epoch 3; epoch 4
	// closes [20,30).
	want := "barrier 1|[0,10) 2|[10,20) 1|barrier 2|barrier 3|[20,30) 2|barrier 4"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	if len(obs.EventTime) != 1 || len(obs.Aggregates) != 1 || obs.Aggregates[0].Load() != 1 {
		t.Fatalf("observers: %d stats, %d aggregates", len(obs.EventTime), len(obs.Aggregates))
	}
	if w, ok := obs.EventTime[0].Watermark(); !ok || w != 35e6 {
		t.Fatalf("watermark %d %v", w, ok)
	}
}

// A partition without data of its own follows the others' event times: every partition's
// watermark for an epoch is the same.
func TestWatermarkIdlePartition(t *testing.T) {
	e := newEnv(t)
	scan := &logical.SourceScan{Format: "script", Out: tsSchema, Streaming: true}
	wm := &logical.Watermark{Input: scan, Column: 0, Delay: 5e6, DelayText: "5 seconds"}
	obs := &Observers{}
	got := runEventTime(t, e, windowCount(t, wm, strLit("10 seconds")),
		timeScript{{1, 2, 12, -1, 25, -2, 3, 22, -3, 40, -4}, {-1, -2, -3, -4}}, flow.OutputAppend, obs)
	want := "barrier 1|[0,10) 2|[10,20) 1|barrier 2|barrier 3|[20,30) 2|barrier 4"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	if obs.Aggregates[0].Load() != 1 {
		t.Fatalf("dropped %d", obs.Aggregates[0].Load())
	}
}

// Update mode emits changed windows every epoch and evicts closed ones silently; a sliding
// window expands each row into the windows containing it.
func TestWatermarkedSlidingWindowUpdate(t *testing.T) {
	e := newEnv(t)
	scan := &logical.SourceScan{Format: "script", Out: tsSchema, Streaming: true}
	wm := &logical.Watermark{Input: scan, Column: 0, Delay: 0, DelayText: "0 seconds"}
	got := runEventTime(t, e, windowCount(t, wm, strLit("10 seconds"), strLit("5 seconds")),
		timeScript{{7, -1, 12, -2, 8, 14, -3}}, flow.OutputUpdate, nil)
	want := "[0,10) 1|[5,15) 1|barrier 1|" +
		"- [5,15) 1|[10,20) 1|[5,15) 2|barrier 2|" +
		// The watermark is 12: [0,10) is closed, so 8 only counts in [5,15).
		"- [10,20) 1|- [5,15) 2|[10,20) 2|[5,15) 4|barrier 3"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

func sessionCount(t *testing.T, in logical.Node, gap string) *logical.Aggregate {
	w, err := expr.Bind("session_window", []expr.Expr{col(in, 0), strLit(gap)}, expr.Options{ANSI: true, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return &logical.Aggregate{Input: in, Groups: []expr.Expr{w}, Aggs: []expr.AggFunc{agg(t, "count", col(in, 0))},
		Names: []string{"count"}}
}

// Session windows merge rows closer than the gap; in append mode a session is emitted once the
// watermark passes its end, and a row whose own session ended below the watermark is late.
func TestSessionWindowAppend(t *testing.T) {
	e := newEnv(t)
	scan := &logical.SourceScan{Format: "script", Out: tsSchema, Streaming: true}
	wm := &logical.Watermark{Input: scan, Column: 0, Delay: 0, DelayText: "0 seconds"}
	obs := &Observers{}
	got := runEventTime(t, e, sessionCount(t, wm, "5 seconds"),
		timeScript{{1, 3, 10, -1, 12, 2, -2, 30, -3}}, flow.OutputAppend, obs)
	want := "[1,8) 2|barrier 1|barrier 2|[10,17) 2|barrier 3"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	if obs.Aggregates[0].Load() != 1 {
		t.Fatalf("dropped %d", obs.Aggregates[0].Load())
	}
	_, err := e.runWith(sessionCount(t, wm, "5 seconds"), Options{Mem: e.mem, Streaming: true, OutputMode: flow.OutputUpdate,
		Sources: func(*logical.SourceScan) (flow.Source, int, error) { return timeScript{{-1}}, 1, nil }}, 4)
	if err == nil || !strings.Contains(err.Error(), "session_window") {
		t.Fatalf("update mode: %v", err)
	}
}

func TestSessionWindowBatch(t *testing.T) {
	e := newEnv(t)
	rows := []any{int64(1e6), int64(3e6), int64(10e6), nil, int64(20e6)}
	col0 := expr.BuildArray(e.mem, sqltypes.TimestampType, "UTC", rows)
	rec := flow.NewDataBatch(e.mem, flow.EventSchema(sqltypes.ToArrowSchema(tsSchema, "UTC")), []arrow.Array{col0}, nil)
	col0.Release()
	user := flow.UserColumns(rec)
	rec.Release()
	data := &logical.LocalData{Out: tsSchema, Records: []arrow.RecordBatch{user}}
	defer user.Release()
	got, err := e.runWith(sessionCount(t, data, "5 seconds"), Options{Mem: e.mem, Partitions: 2}, 4)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := "[1000000 8000000], 2|[10000000 15000000], 1|[20000000 25000000], 1"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// Partitions whose input ends (the static side of a union) leave the watermark's barrier
// rendezvous instead of holding it up.
func TestWatermarkOverUnionWithStatic(t *testing.T) {
	e := newEnv(t)
	c := expr.BuildArray(e.mem, sqltypes.TimestampType, "UTC", []any{int64(4e6)})
	rec := flow.NewDataBatch(e.mem, flow.EventSchema(sqltypes.ToArrowSchema(tsSchema, "UTC")), []arrow.Array{c}, nil)
	c.Release()
	user := flow.UserColumns(rec)
	rec.Release()
	defer user.Release()
	static := &logical.LocalData{Out: tsSchema, Records: []arrow.RecordBatch{user}}
	scan := &logical.SourceScan{Format: "script", Out: tsSchema, Streaming: true}
	u := &logical.Union{Inputs: []logical.Node{static, scan}, Out: tsSchema}
	wm := &logical.Watermark{Input: u, Column: 0, Delay: 5e6, DelayText: "5 seconds"}
	got := runEventTime(t, e, windowCount(t, wm, strLit("10 seconds")),
		timeScript{{1, 12, -1, 25, -2}}, flow.OutputAppend, nil)
	want := "barrier 1|[0,10) 2|[10,20) 1|barrier 2"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// A sliding window selected as a column repeats the row per window.
func TestSlidingWindowProjection(t *testing.T) {
	e := newEnv(t)
	c := expr.BuildArray(e.mem, sqltypes.TimestampType, "UTC", []any{int64(7e6)})
	rec := flow.NewDataBatch(e.mem, flow.EventSchema(sqltypes.ToArrowSchema(tsSchema, "UTC")), []arrow.Array{c}, nil)
	c.Release()
	user := flow.UserColumns(rec)
	rec.Release()
	defer user.Release()
	data := &logical.LocalData{Out: tsSchema, Records: []arrow.RecordBatch{user}}
	w, err := expr.Bind("window", []expr.Expr{col(data, 0), strLit("10 seconds"), strLit("5 seconds")}, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	p := &logical.Project{Input: data, Exprs: []expr.Expr{&expr.Alias{Child: w, Name: "w"}}}
	got, err := e.run(p, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "[5000000 15000000]|[0 10000000]" {
		t.Fatalf("got %q", got)
	}
}

// Windows a first aggregation closes reach a second stateful operator ahead of the watermark
// that closed them, so they are not late there (Spark's multiple stateful operators in append
// mode).
func TestChainedWindowAggregates(t *testing.T) {
	e := newEnv(t)
	scan := &logical.SourceScan{Format: "script", Out: tsSchema, Streaming: true}
	wm := &logical.Watermark{Input: scan, Column: 0, Delay: 5e6, DelayText: "5 seconds"}
	first := windowCount(t, wm, strLit("10 seconds"))
	second := &logical.Aggregate{Input: first, Groups: []expr.Expr{col(first, 0)},
		Aggs: []expr.AggFunc{agg(t, "sum", col(first, 1))}, Names: []string{"total"}}
	obs := &Observers{}
	got := runEventTime(t, e, second, timeScript{{1, 2, 12, -1, 25, -2, 40, -3}}, flow.OutputAppend, obs)
	want := "barrier 1|[0,10) 2|[10,20) 1|barrier 2|[20,30) 1|barrier 3"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	if len(obs.Aggregates) != 2 || obs.Aggregates[0].Load()+obs.Aggregates[1].Load() != 0 {
		t.Fatalf("late rows counted")
	}
}

// window_time keeps the event time for a coarser window over the first aggregation's windows.
func TestChainedWindowTime(t *testing.T) {
	e := newEnv(t)
	scan := &logical.SourceScan{Format: "script", Out: tsSchema, Streaming: true}
	wm := &logical.Watermark{Input: scan, Column: 0, Delay: 5e6, DelayText: "5 seconds"}
	first := windowCount(t, wm, strLit("10 seconds"))
	wt, err := expr.Bind("window_time", []expr.Expr{col(first, 0)}, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := expr.Bind("window", []expr.Expr{wt, strLit("20 seconds")}, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	second := &logical.Aggregate{Input: first, Groups: []expr.Expr{w},
		Aggs: []expr.AggFunc{agg(t, "sum", col(first, 1))}, Names: []string{"total"}}
	if _, _, ok := logical.EventTimeKey(second); !ok {
		t.Fatal("window over window_time is not an event-time key")
	}
	got := runEventTime(t, e, second, timeScript{{1, 2, 12, -1, 25, -2, 40, -3}}, flow.OutputAppend, nil)
	want := "barrier 1|[0,20) 3|barrier 2|barrier 3"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// Two watermarked streams in a union: the aggregate follows the smaller of their watermarks
// (spark.sql.streaming.multipleWatermarkPolicy=min).
func TestUnionOfWatermarkedStreams(t *testing.T) {
	e := newEnv(t)
	a := &logical.SourceScan{Format: "a", Out: tsSchema, Streaming: true}
	b := &logical.SourceScan{Format: "b", Out: tsSchema, Streaming: true}
	u := &logical.Union{Out: tsSchema, Inputs: []logical.Node{
		&logical.Watermark{Input: a, Column: 0, Delay: 5e6, DelayText: "5 seconds"},
		&logical.Watermark{Input: b, Column: 0, Delay: 5e6, DelayText: "5 seconds"}}}
	scripts := map[string]timeScript{"a": {{1, 30, -1, -2}}, "b": {{2, -1, 16, -2}}}
	got, err := e.runWith(windowCount(t, u, strLit("10 seconds")), Options{Mem: e.mem, Partitions: 2, Streaming: true,
		OutputMode: flow.OutputAppend, Sources: func(s *logical.SourceScan) (flow.Source, int, error) { return scripts[s.Format], 1, nil }}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Epoch 1: watermarks 25 (a) and -3 (b): nothing closes. Epoch 2: b reaches 11: [0,10) closes.
	want := "barrier 1|[0 10000000], 2|barrier 2"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}
