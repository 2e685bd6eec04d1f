package planner

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// checkLeaks waits briefly, at cleanup, for the goroutine count to come back.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("goroutines leaked: %d before, %d after", before, n)
		}
	})
}

type env struct {
	t   *testing.T
	mem *memory.CheckedAllocator
}

func newEnv(t *testing.T) *env {
	checkLeaks(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return &env{t: t, mem: mem}
}

// run plans and runs root and returns its rows as "v1, v2" strings in output order.
func (e *env) run(root logical.Node, partitions, capacity int) ([]string, error) {
	return e.runWith(root, Options{Mem: e.mem, Partitions: partitions, Expr: &expr.Context{ANSI: true}}, capacity)
}

// runWith is run with options; retracted rows print with a "- " prefix and barriers as
// "barrier N" lines.
func (e *env) runWith(root logical.Node, opts Options, capacity int) ([]string, error) {
	g, err := Build(root, opts)
	if err != nil {
		return nil, err
	}
	job, err := flow.NewLocalRunner(flow.WithAllocator(e.mem), flow.WithChannelCapacity(capacity)).Start(context.Background(), g, flow.JobOptions{})
	if err != nil {
		return nil, err
	}
	defer job.Close()
	types := make([]sqltypes.DataType, 0)
	for _, f := range root.Schema() {
		types = append(types, f.Type)
	}
	var rows []string
	for {
		rec, err := job.Next(context.Background())
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		if m, ok, _ := flow.MarkerOf(rec); ok && m.Kind == flow.MarkerBarrier {
			rows = append(rows, fmt.Sprintf("barrier %d", m.Epoch))
		} else if !ok {
			if !rec.Schema().Equal(g.Output.Schema) {
				e.t.Errorf("batch schema %s, node schema %s", rec.Schema(), g.Output.Schema)
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				vals := make([]string, len(types))
				for c, t := range types {
					v := expr.ValueAt(rec.Column(c+flow.UserOffset), i, t)
					if v == nil {
						vals[c] = "null"
					} else {
						vals[c] = fmt.Sprint(v)
					}
				}
				row := strings.Join(vals, ", ")
				if flow.Retracted(rec).Value(i) {
					row = "- " + row
				}
				rows = append(rows, row)
			}
		}
		rec.Release()
	}
}

func (e *env) mustRun(root logical.Node, partitions int) []string {
	e.t.Helper()
	rows, err := e.run(root, partitions, 4)
	if err != nil {
		e.t.Fatal(err)
	}
	return rows
}

// local builds a LocalData node from rows of Go values; the test releases it.
func (e *env) local(schema sqltypes.Schema, rows ...[]any) *logical.LocalData {
	cols := make([]arrow.Array, len(schema))
	for c, f := range schema {
		vals := make([]any, len(rows))
		for r, row := range rows {
			vals[r] = row[c]
		}
		cols[c] = expr.BuildArray(e.mem, f.Type, "UTC", vals)
	}
	rec := arrowRecord(sqltypes.ToArrowSchema(schema, "UTC"), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	e.t.Cleanup(rec.Release)
	return &logical.LocalData{Out: schema, Records: []arrow.RecordBatch{rec}}
}

func col(n logical.Node, i int) *expr.Column {
	f := n.Schema()[i]
	return &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
}

func bind(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.Bind(name, args, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func agg(t *testing.T, name string, args ...expr.Expr) expr.AggFunc {
	t.Helper()
	f, err := expr.BindAggregate(name, args, false, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func lit(v int64) expr.Expr { return expr.NewLiteral(v, sqltypes.LongType) }

func ids(lo, hi, step int64) []string {
	var out []string
	for i := lo; (step > 0 && i < hi) || (step < 0 && i > hi); i += step {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

func expect(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestRangeKeepsPartitionOrder(t *testing.T) {
	e := newEnv(t)
	for _, par := range []int{1, 3, 4} {
		expect(t, e.mustRun(&logical.Range{Start: 0, End: 10, Step: 1, Partitions: par}, 2), ids(0, 10, 1))
	}
	expect(t, e.mustRun(&logical.Range{Start: 10, End: -7, Step: -3}, 3), ids(10, -7, -3))
	expect(t, e.mustRun(&logical.Range{Start: 0, End: 20000, Step: 1}, 3), ids(0, 20000, 1))
	expect(t, e.mustRun(&logical.Range{Start: 5, End: 5, Step: 1}, 3), nil)
	_, err := e.run(&logical.Range{Start: 0, End: 5, Step: 0}, 2, 4)
	if err == nil {
		t.Fatal("step 0 ran")
	}
}

func TestHugeRangeLimitStopsEarly(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	r := &logical.Range{Start: 0, End: 1_000_000_000_000, Step: 1, Partitions: 2}
	expect(t, e.mustRun(&logical.Limit{Input: r, N: 5}, 2), ids(0, 5, 1))
	expect(t, e.mustRun(&logical.Limit{Input: &logical.Range{Start: 0, End: 1_000_000_000_000, Step: 1, Partitions: 1}, N: 3, Offset: 2}, 2), ids(2, 5, 1))
	// A limit below a projection and filter still stops the range.
	f := &logical.Filter{Input: r, Cond: bind(t, ">", col(r, 0), lit(100))}
	p := &logical.Project{Input: f, Exprs: []expr.Expr{bind(t, "+", col(f, 0), lit(1))}}
	expect(t, e.mustRun(&logical.Limit{Input: p, N: 2}, 2), []string{"102", "103"})
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestLimitOffsetTailOverPartitions(t *testing.T) {
	e := newEnv(t)
	r := &logical.Range{Start: 0, End: 100, Step: 1, Partitions: 4}
	expect(t, e.mustRun(&logical.Limit{Input: r, N: 5, Offset: 3}, 2), ids(3, 8, 1))
	expect(t, e.mustRun(&logical.Limit{Input: r, N: 30, Offset: 20}, 2), ids(20, 50, 1))
	expect(t, e.mustRun(&logical.Limit{Input: r, N: -1, Offset: 97}, 2), ids(97, 100, 1))
	expect(t, e.mustRun(&logical.Limit{Input: r, N: 0}, 2), nil)
	expect(t, e.mustRun(&logical.Tail{Input: r, N: 4}, 2), ids(96, 100, 1))
}

func TestFilterProjectSort(t *testing.T) {
	e := newEnv(t)
	r := &logical.Range{Start: 0, End: 20, Step: 1, Partitions: 3}
	f := &logical.Filter{Input: r, Cond: bind(t, "<", bind(t, "%", col(r, 0), lit(3)), lit(1))}
	p := &logical.Project{Input: f, Exprs: []expr.Expr{col(f, 0), bind(t, "-", lit(0), col(f, 0))}}
	s := &logical.Sort{Input: p, Keys: []logical.SortKey{{Expr: col(p, 1), Descending: false}}, Global: true}
	expect(t, e.mustRun(s, 2), []string{"18, -18", "15, -15", "12, -12", "9, -9", "6, -6", "3, -3", "0, 0"})
	s2 := &logical.Sort{Input: p, Keys: []logical.SortKey{{Expr: col(p, 0), Descending: true}}, Global: true}
	expect(t, e.mustRun(s2, 2), []string{"18, -18", "15, -15", "12, -12", "9, -9", "6, -6", "3, -3", "0, 0"})
}

var kv = sqltypes.Schema{{Name: "k", Type: sqltypes.StringType, Nullable: true}, {Name: "v", Type: sqltypes.LongType, Nullable: true}}

func TestAggregate(t *testing.T) {
	e := newEnv(t)
	in := e.local(kv, []any{"a", int64(1)}, []any{"b", int64(2)}, []any{"a", int64(3)}, []any{nil, int64(4)}, []any{"b", nil})
	a := &logical.Aggregate{Input: in, Groups: []expr.Expr{col(in, 0)},
		Aggs: []expr.AggFunc{agg(t, "sum", col(in, 1)), agg(t, "count", lit(1))}, Names: []string{"s", "n"}}
	s := &logical.Sort{Input: a, Keys: []logical.SortKey{{Expr: col(a, 0), NullsFirst: true}}, Global: true}
	for _, par := range []int{1, 2, 4} {
		expect(t, e.mustRun(s, par), []string{"null, 4, 1", "a, 4, 2", "b, 2, 2"})
	}
	// Grouping by an expression: projected into a column before the exchange.
	r := &logical.Range{Start: 0, End: 10, Step: 1, Partitions: 3}
	a2 := &logical.Aggregate{Input: r, Groups: []expr.Expr{bind(t, "%", col(r, 0), lit(3))},
		Aggs: []expr.AggFunc{agg(t, "sum", col(r, 0))}, Names: []string{"s"}}
	s2 := &logical.Sort{Input: a2, Keys: []logical.SortKey{{Expr: col(a2, 0)}}, Global: true}
	expect(t, e.mustRun(s2, 2), []string{"0, 18", "1, 12", "2, 15"})
	// Global aggregate over nothing: one row.
	empty := &logical.Filter{Input: r, Cond: bind(t, ">", col(r, 0), lit(100))}
	g := &logical.Aggregate{Input: empty, Aggs: []expr.AggFunc{agg(t, "count", lit(1)), agg(t, "sum", col(r, 0))}, Names: []string{"n", "s"}}
	expect(t, e.mustRun(g, 3), []string{"0, null"})
}

func TestJoins(t *testing.T) {
	e := newEnv(t)
	l := e.local(kv, []any{"a", int64(1)}, []any{"b", int64(2)}, []any{nil, int64(3)}, []any{"c", int64(4)})
	r := e.local(kv, []any{"a", int64(10)}, []any{"a", int64(11)}, []any{nil, int64(12)}, []any{"d", int64(13)})
	both := append(append(sqltypes.Schema{}, kv...), kv...)
	run := func(typ plan.JoinType, residual expr.Expr) []string {
		out := both
		if typ == plan.LeftSemiJoin || typ == plan.LeftAntiJoin {
			out = kv
		}
		j := &logical.Join{Left: l, Right: r, Type: typ, LeftKeys: []expr.Expr{col(l, 0)}, RightKeys: []expr.Expr{col(r, 0)},
			Residual: residual, Out: out}
		rows := e.mustRun(j, 3)
		slices.Sort(rows)
		return rows
	}
	expect(t, run(plan.InnerJoin, nil), []string{"a, 1, a, 10", "a, 1, a, 11"})
	expect(t, run(plan.LeftOuterJoin, nil), []string{"a, 1, a, 10", "a, 1, a, 11", "b, 2, null, null", "c, 4, null, null", "null, 3, null, null"})
	expect(t, run(plan.RightOuterJoin, nil), []string{"a, 1, a, 10", "a, 1, a, 11", "null, null, d, 13", "null, null, null, 12"})
	expect(t, run(plan.FullOuterJoin, nil), []string{"a, 1, a, 10", "a, 1, a, 11", "b, 2, null, null", "c, 4, null, null",
		"null, 3, null, null", "null, null, d, 13", "null, null, null, 12"})
	expect(t, run(plan.LeftSemiJoin, nil), []string{"a, 1"})
	expect(t, run(plan.LeftAntiJoin, nil), []string{"b, 2", "c, 4", "null, 3"})
	res := bind(t, ">", &expr.Column{Index: 3, Name: "v", T: sqltypes.LongType, Null: true}, lit(10))
	expect(t, run(plan.InnerJoin, res), []string{"a, 1, a, 11"})

	// Without keys: broadcast nested loop, and a gathered one for full outer.
	lt := &expr.Column{Index: 1, Name: "v", T: sqltypes.LongType}
	rt := &expr.Column{Index: 3, Name: "v", T: sqltypes.LongType}
	rr := &logical.Range{Start: 0, End: 3, Step: 1, Partitions: 2}
	cross := &logical.Join{Left: rr, Right: rr, Type: plan.CrossJoin, Out: append(rr.Schema(), rr.Schema()...)}
	expect(t, e.mustRun(cross, 2), []string{"0, 0", "0, 1", "0, 2", "1, 0", "1, 1", "1, 2", "2, 0", "2, 1", "2, 2"})
	full := &logical.Join{Left: l, Right: r, Type: plan.FullOuterJoin, Residual: bind(t, "=", bind(t, "+", lt, lit(10)), rt), Out: both}
	rows := e.mustRun(full, 2)
	slices.Sort(rows)
	expect(t, rows, []string{"a, 1, a, 11", "b, 2, null, 12", "c, 4, null, null", "null, 3, d, 13", "null, null, a, 10"})
}

// TestBroadcastHintPlansBroadcastHashJoin: a join whose right side is hinted for broadcast
// keeps the left's partitions, broadcasts the right and gives the rows of the hash join; a
// right outer join, whose unmatched right rows need one place, is not broadcast.
func TestBroadcastHintPlansBroadcastHashJoin(t *testing.T) {
	e := newEnv(t)
	l := &logical.Range{Start: 0, End: 40, Step: 1, Partitions: 3}
	r := &logical.Range{Start: 0, End: 20, Step: 2, Partitions: 2}
	lk := bind(t, "%", col(l, 0), lit(13))
	for _, typ := range []plan.JoinType{plan.InnerJoin, plan.LeftOuterJoin, plan.LeftSemiJoin, plan.LeftAntiJoin, plan.RightOuterJoin} {
		out := append(l.Schema(), r.Schema()...)
		if typ == plan.LeftSemiJoin || typ == plan.LeftAntiJoin {
			out = l.Schema()
		}
		plain := &logical.Join{Left: l, Right: r, Type: typ, LeftKeys: []expr.Expr{lk}, RightKeys: []expr.Expr{col(r, 0)}, Out: out}
		hinted := *plain
		hinted.RightHint = "broadcast"
		g, err := Build(&hinted, Options{Partitions: 2})
		if err != nil {
			t.Fatal(err)
		}
		join := g.Output.Inputs[0].From
		broadcast := typ != plan.RightOuterJoin
		if got := strings.HasPrefix(join.Name, "BroadcastHashJoin"); got != broadcast ||
			broadcast && (join.Parallelism != 3 || join.Inputs[1].Exchange != flow.Broadcast) {
			t.Fatalf("%v: planned %s (parallelism %d), broadcast %v", typ, join.Name, join.Parallelism, broadcast)
		}
		want := e.mustRun(plain, 2)
		got := e.mustRun(&hinted, 2)
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%v: broadcast join gave %v, want %v", typ, got, want)
		}
	}
}

func TestUnionDistinctSetOps(t *testing.T) {
	e := newEnv(t)
	a := &logical.Range{Start: 0, End: 3, Step: 1, Partitions: 2}
	b := &logical.Range{Start: 3, End: 6, Step: 1, Partitions: 3}
	u := &logical.Union{Inputs: []logical.Node{a, b, a}, Out: a.Schema()}
	expect(t, e.mustRun(u, 2), []string{"0", "1", "2", "3", "4", "5", "0", "1", "2"})
	d := &logical.Distinct{Input: u}
	rows := e.mustRun(d, 3)
	slices.Sort(rows)
	expect(t, rows, ids(0, 6, 1))

	l := e.local(kv, []any{"a", int64(1)}, []any{"a", int64(1)}, []any{"b", int64(2)}, []any{nil, nil})
	r := e.local(kv, []any{"a", int64(1)}, []any{nil, nil}, []any{"c", int64(3)})
	set := func(typ plan.SetOpType, all bool) []string {
		rows := e.mustRun(&logical.SetOp{Left: l, Right: r, Type: typ, All: all}, 2)
		slices.Sort(rows)
		return rows
	}
	expect(t, set(plan.Intersect, false), []string{"a, 1", "null, null"})
	expect(t, set(plan.Intersect, true), []string{"a, 1", "null, null"})
	expect(t, set(plan.Except, false), []string{"b, 2"})
	expect(t, set(plan.Except, true), []string{"a, 1", "b, 2"})
	dk := &logical.Distinct{Input: l, Keys: []int{0}}
	expect(t, e.mustRun(dk, 1), []string{"a, 1", "b, 2", "null, null"})
}

func TestSampleRepartition(t *testing.T) {
	e := newEnv(t)
	r := &logical.Range{Start: 0, End: 10000, Step: 1, Partitions: 3}
	s := &logical.Sample{Input: r, Lower: 0, Upper: 0.25, Seed: 11}
	first := e.mustRun(s, 2)
	if len(first) < 2000 || len(first) > 3000 {
		t.Fatalf("sampled %d of 10000 at 0.25", len(first))
	}
	expect(t, e.mustRun(s, 2), first)
	for _, keys := range [][]expr.Expr{nil, {col(r, 0)}} {
		rp := &logical.Repartition{Input: r, Partitions: 5, Keys: keys}
		rows := e.mustRun(&logical.Aggregate{Input: rp, Aggs: []expr.AggFunc{agg(t, "count", lit(1)), agg(t, "sum", col(r, 0))}, Names: []string{"n", "s"}}, 2)
		expect(t, rows, []string{"10000, 49995000"})
	}
}

func TestSourceScanNeedsRegistry(t *testing.T) {
	_, err := Build(&logical.SourceScan{Format: "rate", Streaming: true, Out: sqltypes.Schema{{Name: "value", Type: sqltypes.LongType}}}, Options{Partitions: 2})
	se, ok := sparkerr.As(err)
	if !ok || !strings.Contains(se.Message, "streaming sources arrive with the streaming issue") {
		t.Fatalf("got %v", err)
	}
}

func TestStatelessOperatorsFuse(t *testing.T) {
	e := newEnv(t)
	r := &logical.Range{Start: 0, End: 10, Step: 1, Partitions: 2}
	f := &logical.Filter{Input: r, Cond: bind(t, ">", col(r, 0), lit(2))}
	p := &logical.Project{Input: f, Exprs: []expr.Expr{bind(t, "+", col(f, 0), lit(1))}}
	s := &logical.Sample{Input: p, Lower: 0, Upper: 1, Seed: 1}
	g, err := Build(s, Options{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Concat ← one fused node ← Range.
	fused := g.Output.Inputs[0].From
	if len(fused.Inputs) != 1 || fused.Inputs[0].From.Source == nil || fused.Parallelism != 2 ||
		!strings.Contains(fused.Name, "Filter") || !strings.Contains(fused.Name, "Sample") {
		t.Fatalf("not fused: %s ← %s", g.Output.Name, fused.Name)
	}
	expect(t, e.mustRun(s, 2), ids(4, 11, 1))
}

// TestSortLimitPlansTopN: LIMIT over a global sort plans a per-partition top-N, the ordered
// gather, and a final top-N applying the offset, with the answers of the sort and limit.
func TestSortLimitPlansTopN(t *testing.T) {
	e := newEnv(t)
	r := &logical.Range{Start: 0, End: 100, Step: 1, Partitions: 3}
	p := &logical.Project{Input: r, Exprs: []expr.Expr{col(r, 0), bind(t, "%", col(r, 0), lit(7))}}
	s := &logical.Sort{Input: p, Keys: []logical.SortKey{{Expr: col(p, 1), Descending: true}}, Global: true}
	l := &logical.Limit{Input: s, N: 4, Offset: 2}
	g, err := Build(l, Options{Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	final := g.Output
	if !strings.HasPrefix(final.Name, "TopN") || final.Parallelism != 1 ||
		!strings.HasPrefix(final.Inputs[0].From.Name, "Concat") ||
		!strings.HasPrefix(final.Inputs[0].From.Inputs[0].From.Name, "LocalTopN") {
		t.Fatalf("not a top-N plan: %s ← %s", final.Name, final.Inputs[0].From.Name)
	}
	// Rows with id % 7 = 6 in id order (the stable sort keeps range order among ties).
	expect(t, e.mustRun(l, 2), []string{"20, 6", "27, 6", "34, 6", "41, 6"})
	expect(t, e.mustRun(&logical.Limit{Input: s, N: 0}, 2), nil)
}
