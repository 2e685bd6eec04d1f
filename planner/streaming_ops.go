package planner

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// streamDedup plans dropDuplicates / distinct / dropDuplicatesWithinWatermark on a stream: the
// input is hash-partitioned on the keys and each partition keeps the keys it has seen as state.
// A key that is a watermarked event time (or a window over one) bounds the state; within
// watermark, the input's watermarked event-time column and its delay do.
func (b *builder) streamDedup(n *logical.Distinct, in *flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	keys := n.Keys
	if keys == nil {
		keys = allColumns(len(n.Schema()))
	}
	budget, err := state.BudgetFromConf(b.opts.Conf)
	if err != nil {
		return nil, err
	}
	spec := operators.StreamDedupSpec{KeyCols: n.Keys, TimeCol: -1, LateCol: -1, Dropped: new(atomic.Int64),
		Budget: budget}
	if b.opts.Observers != nil {
		b.opts.Observers.Dedups = append(b.opts.Observers.Dedups, spec.Dropped)
	}
	times := eventTimeColumns(n.Input)
	late, delay, watermarked := firstEventTime(times)
	if watermarked {
		spec.LateCol = late
	}
	if n.WithinWatermark {
		if !watermarked {
			return nil, dedupWithoutWatermark(n)
		}
		spec.TimeCol, spec.WithinWatermark, spec.Delay = late, true, delay
	} else {
		for _, k := range keys {
			if _, ok := times[k]; ok {
				spec.TimeCol = k
				break
			}
		}
	}
	return b.node("StreamingDeduplicate", b.opts.Partitions, schema, operators.StreamDedup(spec),
		b.hashed(in, columns(n.Input.Schema(), keys))), nil
}

// firstEventTime is the lowest-numbered watermarked event-time column.
func firstEventTime(times map[int]int64) (int, int64, bool) {
	col, delay, ok := -1, int64(0), false
	for c, d := range times {
		if !ok || c < col {
			col, delay, ok = c, d, true
		}
	}
	return col, delay, ok
}

// eventTimeColumns is logical.EventTimeColumns, also through joins (left columns, then right).
func eventTimeColumns(n logical.Node) map[int]int64 {
	j, ok := n.(*logical.Join)
	if !ok {
		return logical.EventTimeColumns(n)
	}
	out := eventTimeColumns(j.Left)
	if j.Type == plan.LeftSemiJoin || j.Type == plan.LeftAntiJoin {
		return out
	}
	width := len(j.Left.Schema())
	for c, d := range eventTimeColumns(j.Right) {
		out[width+c] = d
	}
	return out
}

// streamJoin plans a join of two streams: both sides hash-partitioned on the join keys into a
// symmetric hash join whose state is bounded by what the watermark and the join condition
// allow (evictionBounds).
func (b *builder) streamJoin(n *logical.Join, left, right *flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	if err := checkStreamJoin(n); err != nil {
		return nil, err
	}
	lb, rb := evictionBounds(n)
	budget, err := state.BudgetFromConf(b.opts.Conf)
	if err != nil {
		return nil, err
	}
	spec := operators.StreamJoinSpec{Type: n.Type, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Residual: n.Residual,
		LeftSchema: left.Schema, RightSchema: right.Schema, Left: lb, Right: rb, LeftLate: -1, RightLate: -1,
		Dropped: new(atomic.Int64), Budget: budget}
	if b.opts.Observers != nil {
		b.opts.Observers.Joins = append(b.opts.Observers.Joins, spec.Dropped)
	}
	if c, _, ok := firstEventTime(eventTimeColumns(n.Left)); ok {
		spec.LeftLate = c
	}
	if c, _, ok := firstEventTime(eventTimeColumns(n.Right)); ok {
		spec.RightLate = c
	}
	return b.node("StreamingSymmetricHashJoin", b.opts.Partitions, schema, operators.StreamJoin(b.ctx, spec),
		b.hashed(left, n.LeftKeys), b.hashed(right, n.RightKeys)), nil
}

// joinBounds derives when each side's stored rows can no longer match, as Spark's
// StreamingSymmetricHashJoinHelper does: a join key that is a watermarked event time (or a
// window over one) on either side evicts both sides' rows by that key; otherwise a side's rows
// are bounded by a range condition relating one of its timestamp columns to the other side's
// watermarked event time (left.t >= right.t + c, BETWEEN, …).
func joinBounds(n *logical.Join) (left, right operators.StateBound) {
	left, right = operators.NoBound, operators.NoBound
	if l, r, ok := watermarkedKey(n); ok {
		return operators.StateBound{TimeCol: l}, operators.StateBound{TimeCol: r}
	}
	lt, rt := eventTimeColumns(n.Left), eventTimeColumns(n.Right)
	width := len(n.Left.Schema())
	for _, c := range rangeConstraints(n.Residual, width) {
		// c: left.L <= right.R + d (upper) or left.L >= right.R + d (lower).
		if c.upper {
			// Right row R meets left rows with L <= R + d; future left rows are past the
			// watermark, so R goes once R + d <= watermark.
			if _, ok := lt[c.l]; ok && (right.TimeCol < 0 || c.d < right.Slack) {
				right = operators.StateBound{TimeCol: c.r, Slack: c.d}
			}
		} else {
			// Left row L meets right rows with R <= L - d: it goes once L - d <= watermark.
			if _, ok := rt[c.r]; ok && (left.TimeCol < 0 || -c.d < left.Slack) {
				left = operators.StateBound{TimeCol: c.l, Slack: -c.d}
			}
		}
	}
	return left, right
}

// timeConstraint is left column l compared with right column r (indices within each side)
// plus d microseconds: l <= r + d when upper, l >= r + d otherwise.
type timeConstraint struct {
	l, r  int
	d     int64
	upper bool
}

// rangeConstraints reads the conjuncts of cond of the form
// <timestamp term> op <timestamp term>, one term over each side (a column plus or minus a
// constant day-time interval), op one of < <= > >=. Columns 0..width-1 are the left side's.
func rangeConstraints(cond expr.Expr, width int) []timeConstraint {
	var out []timeConstraint
	for _, c := range conjuncts(cond) {
		op, l, r, ok := comparison(c)
		if !ok {
			continue
		}
		lc, ld, lok := timeTerm(l)
		rc, rd, rok := timeTerm(r)
		if !lok || !rok || (lc < width) == (rc < width) {
			continue
		}
		if lc >= width {
			// Put the left side's term first: a op b ⇔ b flip(op) a.
			lc, rc, ld, rd = rc, lc, rd, ld
			op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
		}
		// lc + ld op rc + rd ⇔ lc op rc + (rd - ld)
		out = append(out, timeConstraint{l: lc, r: rc - width, d: rd - ld, upper: op == "<" || op == "<="})
	}
	return out
}

// conjuncts splits e on AND.
func conjuncts(e expr.Expr) []expr.Expr {
	if e == nil {
		return nil
	}
	// expr.Conjuncts also splits between(x, lo, hi), which evaluates as x >= lo AND x <= hi.
	return expr.Conjuncts(e)
}

// comparison recognises a binary comparison and returns its operator.
func comparison(e expr.Expr) (string, expr.Expr, expr.Expr, bool) {
	ch := e.Children()
	if len(ch) != 2 || e.Type().Kind != sqltypes.Boolean {
		return "", nil, nil, false
	}
	for _, op := range []string{"<=", ">=", "<", ">"} {
		if e.String() == "("+ch[0].String()+" "+op+" "+ch[1].String()+")" {
			return op, ch[0], ch[1], true
		}
	}
	return "", nil, nil, false
}

// timeTerm recognises a timestamp column, or one plus or minus a day-time interval literal.
func timeTerm(e expr.Expr) (col int, offset int64, ok bool) {
	for {
		a, isAlias := e.(*expr.Alias)
		if !isAlias {
			break
		}
		e = a.Child
	}
	if c, isCol := e.(*expr.Column); isCol {
		return c.Index, 0, c.T.Kind == sqltypes.Timestamp || c.T.Kind == sqltypes.TimestampNTZ
	}
	ch := e.Children()
	if len(ch) != 2 || (e.Type().Kind != sqltypes.Timestamp && e.Type().Kind != sqltypes.TimestampNTZ) {
		return 0, 0, false
	}
	lit, isLit := ch[1].(*expr.Literal)
	if !isLit || lit.T.Kind != sqltypes.DayTimeInterval {
		return 0, 0, false
	}
	v, isInt := lit.Value.(int64)
	if !isInt {
		return 0, 0, false
	}
	col, off, ok := timeTerm(ch[0])
	if !ok {
		return 0, 0, false
	}
	switch e.String() {
	case "(" + ch[0].String() + " + " + ch[1].String() + ")":
		return col, off + v, true
	case "(" + ch[0].String() + " - " + ch[1].String() + ")":
		return col, off - v, true
	}
	return 0, 0, false
}

// unsupportedStreaming is Spark's UnsupportedOperationChecker throwError: an AnalysisException
// (legacy error class) whose message is msg, ";", and the offending plan.
func unsupportedStreaming(at logical.Node, msg string) *sparkerr.Error {
	tree := logical.TreeString(at)
	for len(tree) > 0 && tree[len(tree)-1] == '\n' {
		tree = tree[:len(tree)-1]
	}
	return sparkerr.Analysis("", "", "%s;\n%s", msg, tree)
}

func dedupWithoutWatermark(n *logical.Distinct) *sparkerr.Error {
	return unsupportedStreaming(n, "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark")
}
