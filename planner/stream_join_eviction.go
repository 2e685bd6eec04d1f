package planner

import (
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// evictionBounds are the state bounds a stream-stream join runs with, as Spark's
// StreamingSymmetricHashJoinHelper.getStateWatermarkPredicates derives them:
//   - a watermarked event time (or window over one) in the join keys, on either side, evicts
//     both sides' rows by that key (joinBounds);
//   - otherwise a side's rows are evicted only if that side carries a watermark itself: its
//     watermarked column against the state watermark a range condition derives from the other
//     side's watermark. A side without a watermark keeps its rows, so a left outer join with a
//     watermark on the right only never emits its NULL-padded rows — Spark's behaviour, which
//     its guide states as "optionally specify watermark on left for all state cleanup".
//
// joinBounds alone is what CheckStreamingOperators checks (Spark's UnsupportedOperationChecker
// asks only that a range condition bounds the outer side by the other side's watermark).
func evictionBounds(n *logical.Join) (left, right operators.StateBound) {
	left, right = joinBounds(n)
	if _, _, ok := watermarkedKey(n); ok {
		return left, right
	}
	own := func(b operators.StateBound, times map[int]int64) operators.StateBound {
		col, _, ok := firstEventTime(times)
		if b.TimeCol < 0 || !ok {
			return operators.NoBound
		}
		b.TimeCol = col
		return b
	}
	return own(left, eventTimeColumns(n.Left)), own(right, eventTimeColumns(n.Right))
}

// watermarkedKey finds the first join key pair with a watermarked event time on either side
// (Spark's StreamingJoinHelper.isWatermarkInJoinKeys) and returns its columns on each side.
func watermarkedKey(n *logical.Join) (left, right int, ok bool) {
	lt, rt := eventTimeColumns(n.Left), eventTimeColumns(n.Right)
	for i := range n.LeftKeys {
		lc, lok := n.LeftKeys[i].(*expr.Column)
		rc, rok := n.RightKeys[i].(*expr.Column)
		if !lok || !rok {
			continue
		}
		_, lw := lt[lc.Index]
		_, rw := rt[rc.Index]
		if lw || rw {
			return lc.Index, rc.Index, true
		}
	}
	return 0, 0, false
}
