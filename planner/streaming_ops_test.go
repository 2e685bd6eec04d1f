package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// epochSource emits, per partition, steps: [][]any rows of its schema, or int64 barrier epochs.
type epochSource struct {
	schema sqltypes.Schema
	parts  [][]any
}

func (s epochSource) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	for _, step := range s.parts[env.Partition] {
		var rec arrow.RecordBatch
		switch st := step.(type) {
		case int64:
			rec = flow.NewMarkerBatch(env.Mem, env.OutSchema, flow.Marker{Kind: flow.MarkerBarrier, Epoch: st})
		case [][]any:
			cols := make([]arrow.Array, len(s.schema))
			for c, f := range s.schema {
				vals := make([]any, len(st))
				for r, row := range st {
					vals[r] = row[c]
				}
				cols[c] = expr.BuildArray(env.Mem, f.Type, "UTC", vals)
			}
			rec = flow.NewDataBatch(env.Mem, env.OutSchema, cols, nil)
			releaseArrays(cols)
		}
		if err := out.Emit(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

// streams resolves scans by format to sources.
func streams(srcs map[string]epochSource) func(*logical.SourceScan) (flow.Source, int, error) {
	return func(s *logical.SourceScan) (flow.Source, int, error) {
		src := srcs[s.Format]
		return src, len(src.parts), nil
	}
}

// byEpoch splits output rows at "barrier N" lines and sorts each epoch's rows.
func byEpoch(rows []string) [][]string {
	var out [][]string
	cur := []string{}
	for _, r := range rows {
		if strings.HasPrefix(r, "barrier ") {
			slices.Sort(cur)
			out = append(out, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, r)
	}
	slices.Sort(cur)
	return append(out, cur)
}

func TestStreamingDedupKeepsKeysAcrossEpochs(t *testing.T) {
	e := newEnv(t)
	src := epochSource{schema: kv, parts: [][]any{
		{[][]any{{"a", int64(1)}, {"b", int64(2)}, {"a", int64(3)}}, int64(1), [][]any{{"a", int64(4)}, {"c", int64(5)}}, int64(2)},
		{[][]any{{"b", int64(6)}}, int64(1), int64(2), [][]any{{"c", int64(7)}, {"d", int64(8)}, {"d", int64(9)}}},
	}}
	scan := &logical.SourceScan{Format: "s", Out: kv, Streaming: true}
	for _, par := range []int{1, 3} {
		opts := Options{Mem: e.mem, Partitions: par, Streaming: true, Sources: streams(map[string]epochSource{"s": src})}
		got, err := e.runWith(&logical.Distinct{Input: scan, Keys: []int{0}}, opts, 2)
		if err != nil {
			t.Fatal(err)
		}
		epochs := byEpoch(got)
		// Within an epoch, which of two same-key rows of different partitions wins depends on
		// arrival order: compare keys.
		var keys [][]string
		for _, ep := range epochs {
			ks := []string{}
			for _, r := range ep {
				ks = append(ks, strings.Split(r, ", ")[0])
			}
			slices.Sort(ks)
			keys = append(keys, ks)
		}
		want := [][]string{{"a", "b"}, {"c"}, {"d"}}
		if !slices.EqualFunc(keys, want, slices.Equal) {
			t.Fatalf("partitions %d: got %q", par, got)
		}
		// distinct(): whole rows.
		got, err = e.runWith(&logical.Distinct{Input: scan}, opts, 2)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(got) - 2; n != 9 {
			t.Fatalf("partitions %d: distinct() kept %d rows: %q", par, n, got)
		}
	}
}

var (
	lstream = sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}, {Name: "l", Type: sqltypes.StringType, Nullable: true}}
	rstream = sqltypes.Schema{{Name: "j", Type: sqltypes.LongType, Nullable: true}, {Name: "r", Type: sqltypes.StringType, Nullable: true}}
)

func TestStreamStreamInnerJoinEmitsEachPairOnce(t *testing.T) {
	e := newEnv(t)
	left := epochSource{schema: lstream, parts: [][]any{
		{[][]any{{int64(1), "l1"}, {int64(2), "l2"}}, int64(1), [][]any{{int64(3), "l3"}}, int64(2), [][]any{{int64(1), "l1b"}}},
		{int64(1), [][]any{{int64(4), "l4"}, {nil, "ln"}}, int64(2)},
	}}
	right := epochSource{schema: rstream, parts: [][]any{
		{[][]any{{int64(1), "r1"}}, int64(1), [][]any{{int64(2), "r2"}, {int64(4), "r4"}}, int64(2), [][]any{{int64(3), "r3"}, {nil, "rn"}}},
	}}
	ls := &logical.SourceScan{Format: "left", Out: lstream, Streaming: true}
	rs := &logical.SourceScan{Format: "right", Out: rstream, Streaming: true}
	j := &logical.Join{Left: ls, Right: rs, Type: plan.InnerJoin, LeftKeys: []expr.Expr{col(ls, 0)}, RightKeys: []expr.Expr{col(rs, 0)},
		Out: append(append(sqltypes.Schema{}, lstream...), rstream...)}
	for _, par := range []int{1, 3} {
		opts := Options{Mem: e.mem, Partitions: par, Streaming: true,
			Sources: streams(map[string]epochSource{"left": left, "right": right})}
		got, err := e.runWith(j, opts, 2)
		if err != nil {
			t.Fatal(err)
		}
		// A pair comes out in the epoch where its second row arrives (l3 comes in epoch 2, r3
		// in epoch 3); NULL keys never match.
		want := [][]string{{"1, l1, 1, r1"}, {"2, l2, 2, r2", "4, l4, 4, r4"}, {"1, l1b, 1, r1", "3, l3, 3, r3"}}
		if !slices.EqualFunc(byEpoch(got), want, slices.Equal) {
			t.Fatalf("partitions %d: got %q", par, got)
		}
	}
}

func TestStreamStaticJoins(t *testing.T) {
	e := newEnv(t)
	stream := epochSource{schema: lstream, parts: [][]any{
		{[][]any{{int64(1), "l1"}, {int64(2), "l2"}}, int64(1), [][]any{{int64(3), "l3"}, {int64(1), "l1b"}}, int64(2)},
	}}
	static := e.local(rstream, []any{int64(1), "s1"}, []any{int64(3), "s3"}, []any{int64(5), "s5"})
	ls := &logical.SourceScan{Format: "left", Out: lstream, Streaming: true}
	both := append(append(sqltypes.Schema{}, lstream...), rstream...)
	join := func(typ plan.JoinType) *logical.Join {
		return &logical.Join{Left: ls, Right: static, Type: typ, LeftKeys: []expr.Expr{col(ls, 0)},
			RightKeys: []expr.Expr{col(static, 0)}, Out: both}
	}
	opts := Options{Mem: e.mem, Partitions: 2, Streaming: true, Sources: streams(map[string]epochSource{"left": stream})}
	got, err := e.runWith(join(plan.InnerJoin), opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Each epoch's joined rows precede its barrier, even when the static side ends after the
	// stream's first barrier reached the join.
	want := [][]string{{"1, l1, 1, s1"}, {"1, l1b, 1, s1", "3, l3, 3, s3"}, {}}
	if !slices.EqualFunc(byEpoch(got), want, slices.Equal) {
		t.Fatalf("inner: got %q", got)
	}
	got, err = e.runWith(join(plan.LeftOuterJoin), opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	want = [][]string{{"1, l1, 1, s1", "2, l2, null, null"}, {"1, l1b, 1, s1", "3, l3, 3, s3"}, {}}
	if !slices.EqualFunc(byEpoch(got), want, slices.Equal) {
		t.Fatalf("left outer: got %q", got)
	}
	// Right outer with the stream on the left is not in Spark's support matrix.
	_, err = Build(join(plan.RightOuterJoin), opts)
	wantAnalysis(t, err, "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported;\nJoin RightOuter")
}

func wantAnalysis(t *testing.T, err error, prefix string) {
	t.Helper()
	se, ok := sparkerr.As(err)
	if !ok || se.JavaClass != sparkerr.AnalysisException || !strings.HasPrefix(se.Message, prefix) {
		t.Fatalf("got %v, want an AnalysisException starting %q", err, prefix)
	}
}

// Event-time inputs: left (k, lt) and right (j, rt), each with withWatermark on its time.
var (
	ltime = sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}, {Name: "lt", Type: sqltypes.TimestampType, Nullable: true}}
	rtime = sqltypes.Schema{{Name: "j", Type: sqltypes.LongType, Nullable: true}, {Name: "rt", Type: sqltypes.TimestampType, Nullable: true}}
)

func timeJoin(t *testing.T, typ plan.JoinType, leftWM, rightWM bool, cond func(l, r logical.Node) expr.Expr) *logical.Join {
	var l logical.Node = &logical.SourceScan{Format: "left", Out: ltime, Streaming: true}
	var r logical.Node = &logical.SourceScan{Format: "right", Out: rtime, Streaming: true}
	if leftWM {
		l = &logical.Watermark{Input: l, Column: 1, Delay: 5e6, DelayText: "5 seconds"}
	}
	if rightWM {
		r = &logical.Watermark{Input: r, Column: 1, Delay: 5e6, DelayText: "5 seconds"}
	}
	j := &logical.Join{Left: l, Right: r, Type: typ, LeftKeys: []expr.Expr{col(l, 0)}, RightKeys: []expr.Expr{col(r, 0)},
		Out: append(append(sqltypes.Schema{}, ltime...), rtime...)}
	if cond != nil {
		j.Residual = cond(l, r)
	}
	return j
}

func TestStreamJoinStateBounds(t *testing.T) {
	lt := &expr.Column{Index: 1, Name: "lt", T: sqltypes.TimestampType, Null: true}
	rt := &expr.Column{Index: 3, Name: "rt", T: sqltypes.TimestampType, Null: true}
	tenSeconds := expr.NewLiteral(int64(10e6), sqltypes.DayTimeIntervalType(0, 3))
	between := betweenTenSeconds(t)
	// rt > lt - INTERVAL 10 SECONDS, that is lt < rt + 10 s: it bounds the right side only
	flipped := func(logical.Node, logical.Node) expr.Expr {
		return bind(t, ">", rt, bind(t, "-", lt, tenSeconds))
	}
	// An equality on the watermarked event times bounds both sides by the key.
	on := timeKeyJoin(t, plan.FullOuterJoin, true, false)
	checkBounds(t, joinBounds, []boundsCase{
		{"no watermark", timeJoin(t, plan.InnerJoin, false, false, between), operators.NoBound, operators.NoBound},
		{"both watermarks, between", timeJoin(t, plan.InnerJoin, true, true, between),
			operators.StateBound{TimeCol: 1}, operators.StateBound{TimeCol: 1, Slack: 10e6}},
		{"right watermark only bounds the left", timeJoin(t, plan.LeftOuterJoin, false, true, between),
			operators.StateBound{TimeCol: 1}, operators.NoBound},
		{"flipped comparison", timeJoin(t, plan.InnerJoin, true, true, flipped),
			operators.NoBound, operators.StateBound{TimeCol: 1, Slack: 10e6}},
		{"time key", on, operators.StateBound{TimeCol: 1}, operators.StateBound{TimeCol: 1}},
	})
	if err := CheckStreamingOperators(on); err != nil {
		t.Errorf("full outer join on a watermarked key: %v", err)
	}
}

func TestCheckStreamingOperators(t *testing.T) {
	lt := &expr.Column{Index: 1, Name: "lt", T: sqltypes.TimestampType, Null: true}
	rt := &expr.Column{Index: 3, Name: "rt", T: sqltypes.TimestampType, Null: true}
	lower := func(logical.Node, logical.Node) expr.Expr { return bind(t, ">=", lt, rt) }
	upper := func(logical.Node, logical.Node) expr.Expr { return bind(t, "<=", lt, rt) }
	ok := []*logical.Join{
		timeJoin(t, plan.InnerJoin, false, false, nil),
		timeJoin(t, plan.LeftOuterJoin, false, true, lower),
		timeJoin(t, plan.RightOuterJoin, true, false, upper),
		timeJoin(t, plan.FullOuterJoin, true, true, lower),
	}
	for _, j := range ok {
		if err := CheckStreamingOperators(j); err != nil {
			t.Errorf("%s: %v", j.Describe(), err)
		}
	}
	for _, c := range []struct {
		j    *logical.Join
		want string
	}{
		{timeJoin(t, plan.LeftOuterJoin, false, false, lower), "Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition;\nJoin LeftOuter"},
		// A watermark on the left does not bound the left rows of a left outer join.
		{timeJoin(t, plan.LeftOuterJoin, true, false, lower), "Stream-stream LeftOuter join between"},
		{timeJoin(t, plan.RightOuterJoin, true, true, lower), "Stream-stream RightOuter join between"},
		{timeJoin(t, plan.FullOuterJoin, true, true, nil), "Stream-stream FullOuter join between"},
	} {
		wantAnalysis(t, CheckStreamingOperators(c.j), c.want)
	}
	semi := timeJoin(t, plan.LeftSemiJoin, false, true, lower)
	semi.Out = ltime
	if err := CheckStreamingOperators(semi); err != nil {
		t.Errorf("left semi join with a right watermark and a range: %v", err)
	}
	semi = timeJoin(t, plan.LeftSemiJoin, true, false, lower)
	semi.Out = ltime
	wantAnalysis(t, CheckStreamingOperators(semi), "Stream-stream LeftSemi join between")
	noKeys := timeJoin(t, plan.InnerJoin, true, true, lower)
	noKeys.LeftKeys, noKeys.RightKeys = nil, nil
	wantAnalysis(t, CheckStreamingOperators(noKeys), "Stream-stream join without equality predicate is not supported")

	scan := &logical.SourceScan{Format: "left", Out: ltime, Streaming: true}
	within := &logical.Distinct{Input: scan, Keys: []int{0}, WithinWatermark: true}
	wantAnalysis(t, CheckStreamingOperators(within), "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark;\nDeduplicate [0]")
	within.Input = &logical.Watermark{Input: scan, Column: 1, Delay: 5e6, DelayText: "5 seconds"}
	if err := CheckStreamingOperators(within); err != nil {
		t.Error(err)
	}
}

func TestStreamStreamLeftOuterJoinFollowsTheWatermark(t *testing.T) {
	e := newEnv(t)
	sec := func(s int64) int64 { return s * 1e6 }
	left := epochSource{schema: ltime, parts: [][]any{
		{[][]any{{int64(1), sec(10)}, {int64(2), sec(10)}}, int64(1), [][]any{{int64(3), sec(20)}, {int64(4), sec(20)}}, int64(2),
			[][]any{{int64(5), sec(40)}}, int64(3)},
	}}
	right := epochSource{schema: rtime, parts: [][]any{
		{[][]any{{int64(1), sec(10)}}, int64(1), [][]any{{int64(3), sec(20)}}, int64(2), [][]any{{int64(4), sec(30)}}, int64(3)},
	}}
	j := timeJoin(t, plan.LeftOuterJoin, true, true, func(l, r logical.Node) expr.Expr {
		lt := &expr.Column{Index: 1, Name: "lt", T: sqltypes.TimestampType, Null: true}
		rt := &expr.Column{Index: 3, Name: "rt", T: sqltypes.TimestampType, Null: true}
		return bind(t, "and", bind(t, ">=", lt, rt), bind(t, "<=", lt, rt))
	})
	for _, par := range []int{1, 3} {
		opts := Options{Mem: e.mem, Partitions: par, Streaming: true,
			Sources: streams(map[string]epochSource{"left": left, "right": right})}
		got, err := e.runWith(j, opts, 2)
		if err != nil {
			t.Fatal(err)
		}
		// Each side's watermark (max event time - 5 s) goes out before each barrier and the join
		// follows the smaller: 5 s, 15 s, then 25 s. An unmatched left row comes out with NULLs
		// in the epoch whose watermark reaches its time (2 at 15 s, 4 at 25 s), matched ones never.
		ts := func(s int64) string { return fmt.Sprint(expr.ValueAt(tsArray(e, sec(s)), 0, sqltypes.TimestampType)) }
		want := [][]string{
			{"1, " + ts(10) + ", 1, " + ts(10)},
			{"2, " + ts(10) + ", null, null", "3, " + ts(20) + ", 3, " + ts(20)},
			{"4, " + ts(20) + ", null, null"},
			{},
		}
		if !slices.EqualFunc(byEpoch(got), want, slices.Equal) {
			t.Fatalf("partitions %d: got %q", par, got)
		}
	}
}

// tsArray is a one-value timestamp array (released at cleanup).
func tsArray(e *env, v int64) arrow.Array {
	a := expr.BuildArray(e.mem, sqltypes.TimestampType, "UTC", []any{v})
	e.t.Cleanup(a.Release)
	return a
}
