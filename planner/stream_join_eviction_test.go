package planner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/logical"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sqltypes"
)

// The bounds a join runs with are Spark's state predicates: a range condition evicts a side's
// rows only if that side carries a watermark; a watermarked key evicts both sides.
func TestStreamJoinEvictionBounds(t *testing.T) {
	lt := &expr.Column{Index: 1, Name: "lt", T: sqltypes.TimestampType, Null: true}
	rt := &expr.Column{Index: 3, Name: "rt", T: sqltypes.TimestampType, Null: true}
	tenSeconds := expr.NewLiteral(int64(10e6), sqltypes.DayTimeIntervalType(0, 3))
	between := func(logical.Node, logical.Node) expr.Expr {
		return bind(t, "and", bind(t, ">=", lt, rt), bind(t, "<=", lt, bind(t, "+", rt, tenSeconds)))
	}
	for _, c := range []struct {
		name        string
		j           *logical.Join
		left, right operators.StateBound
	}{
		{"both watermarks", timeJoin(t, plan.LeftOuterJoin, true, true, between),
			operators.StateBound{TimeCol: 1}, operators.StateBound{TimeCol: 1, Slack: 10e6}},
		// Allowed (the check asks for the range bound only), but the left rows stay.
		{"right watermark only", timeJoin(t, plan.LeftOuterJoin, false, true, between), operators.NoBound, operators.NoBound},
		{"left watermark only", timeJoin(t, plan.RightOuterJoin, true, false, between), operators.NoBound, operators.NoBound},
	} {
		if err := CheckStreamingOperators(c.j); c.name == "right watermark only" && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		l, r := evictionBounds(c.j)
		if l != c.left || r != c.right {
			t.Errorf("%s: bounds %+v %+v, want %+v %+v", c.name, l, r, c.left, c.right)
		}
	}
	// A watermarked time key on one side only: both sides go by the key.
	on := timeJoin(t, plan.LeftOuterJoin, true, false, nil)
	on.LeftKeys = append(on.LeftKeys, col(on.Left, 1))
	on.RightKeys = append(on.RightKeys, col(on.Right, 1))
	if l, r := evictionBounds(on); l != (operators.StateBound{TimeCol: 1}) || r != (operators.StateBound{TimeCol: 1}) {
		t.Errorf("time key: bounds %+v %+v", l, r)
	}
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
	j := timeJoin(t, plan.LeftOuterJoin, true, false, nil)
	j.LeftKeys = append(j.LeftKeys, col(j.Left, 1))
	j.RightKeys = append(j.RightKeys, col(j.Right, 1))
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
