package planner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// betweenTenSeconds is lt BETWEEN rt AND rt + INTERVAL 10 SECONDS over timeJoin's columns.
func betweenTenSeconds(t *testing.T) func(logical.Node, logical.Node) expr.Expr {
	lt := &expr.Column{Index: 1, Name: "lt", T: sqltypes.TimestampType, Null: true}
	rt := &expr.Column{Index: 3, Name: "rt", T: sqltypes.TimestampType, Null: true}
	tenSeconds := expr.NewLiteral(int64(10e6), sqltypes.DayTimeIntervalType(0, 3))
	return func(logical.Node, logical.Node) expr.Expr {
		return bind(t, "and", bind(t, ">=", lt, rt), bind(t, "<=", lt, bind(t, "+", rt, tenSeconds)))
	}
}

// timeKeyJoin is timeJoin with the event times as a second key pair.
func timeKeyJoin(t *testing.T, typ plan.JoinType, leftWM, rightWM bool) *logical.Join {
	j := timeJoin(t, typ, leftWM, rightWM, nil)
	j.LeftKeys = append(j.LeftKeys, col(j.Left, 1))
	j.RightKeys = append(j.RightKeys, col(j.Right, 1))
	return j
}

type boundsCase struct {
	name        string
	j           *logical.Join
	left, right operators.StateBound
}

// checkBounds compares what bounds derives for each case's join with the case's bounds.
func checkBounds(t *testing.T, bounds func(*logical.Join) (operators.StateBound, operators.StateBound), cases []boundsCase) {
	t.Helper()
	for _, c := range cases {
		if l, r := bounds(c.j); l != c.left || r != c.right {
			t.Errorf("%s: bounds %+v %+v, want %+v %+v", c.name, l, r, c.left, c.right)
		}
	}
}

// The bounds a join runs with are Spark's state predicates: a range condition evicts a side's
// rows only if that side carries a watermark; a watermarked key evicts both sides.
func TestStreamJoinEvictionBounds(t *testing.T) {
	between := betweenTenSeconds(t)
	rightOnly := timeJoin(t, plan.LeftOuterJoin, false, true, between)
	// Allowed (the check asks for the range bound only), but the left rows stay.
	if err := CheckStreamingOperators(rightOnly); err != nil {
		t.Error(err)
	}
	checkBounds(t, evictionBounds, []boundsCase{
		{"both watermarks", timeJoin(t, plan.LeftOuterJoin, true, true, between),
			operators.StateBound{TimeCol: 1}, operators.StateBound{TimeCol: 1, Slack: 10e6}},
		{"right watermark only", rightOnly, operators.NoBound, operators.NoBound},
		{"left watermark only", timeJoin(t, plan.RightOuterJoin, true, false, between), operators.NoBound, operators.NoBound},
		// A watermarked time key on one side only: both sides go by the key.
		{"time key", timeKeyJoin(t, plan.LeftOuterJoin, true, false), operators.StateBound{TimeCol: 1}, operators.StateBound{TimeCol: 1}},
	})
}

// A left outer join on (key, event time) with the watermark on the left only: the right input
// never carries a watermark, so the join follows the left's (Spark's global watermark counts
// watermark operators only) and unmatched left rows come out as it passes them.
func TestStreamJoinWithOneWatermarkedSideFollowsIt(t *testing.T) {
	e := newEnv(t)
	sec := func(s int64) int64 { return s * 1e6 }
	left := epochSource{schema: ltime, parts: [][]any{
		{[][]any{{int64(1), sec(10)}, {int64(2), sec(10)}}, int64(1), [][]any{{int64(3), sec(20)}, {int64(4), sec(20)}}, int64(2),
			[][]any{{int64(5), sec(40)}}, int64(3)},
	}}
	right := epochSource{schema: rtime, parts: [][]any{
		{[][]any{{int64(1), sec(10)}}, int64(1), [][]any{{int64(3), sec(20)}}, int64(2), [][]any{{int64(4), sec(30)}}, int64(3)},
	}}
	j := timeKeyJoin(t, plan.LeftOuterJoin, true, false)
	ts := func(s int64) string { return fmt.Sprint(expr.ValueAt(tsArray(e, sec(s)), 0, sqltypes.TimestampType)) }
	want := [][]string{
		{"1, " + ts(10) + ", 1, " + ts(10)},
		{"2, " + ts(10) + ", null, null", "3, " + ts(20) + ", 3, " + ts(20)},
		{"4, " + ts(20) + ", null, null"},
		{},
	}
	for _, par := range []int{1, 3} {
		opts := Options{Mem: e.mem, Partitions: par, Streaming: true,
			Sources: streams(map[string]epochSource{"left": left, "right": right})}
		got, err := e.runWith(j, opts, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(byEpoch(got), want, slices.Equal) {
			t.Fatalf("partitions %d: got %q", par, got)
		}
	}
}
