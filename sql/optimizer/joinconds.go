package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// pushIntoJoin applies conds, conjuncts of a Filter over j's output: an outer join whose
// padded side the filter rejects becomes inner (or one-sided); conjuncts over one side go into
// that side where the join type lets them; over both sides of an inner join they become keys
// or residual; the rest stay above.
func pushIntoJoin(j *logical.Join, conds []expr.Expr) logical.Node {
	nl := len(j.Left.Schema())
	nr := len(j.Right.Schema())
	typ := j.Type
	if typ == plan.LeftOuterJoin || typ == plan.RightOuterJoin || typ == plan.FullOuterJoin {
		left, right := colRange(0, nl), colRange(nl, nl+nr)
		rejectLeft, rejectRight := false, false
		for _, c := range conds {
			rejectLeft = rejectLeft || expr.RejectsNulls(c, left)
			rejectRight = rejectRight || expr.RejectsNulls(c, right)
		}
		switch {
		case typ == plan.LeftOuterJoin && rejectRight, typ == plan.RightOuterJoin && rejectLeft,
			typ == plan.FullOuterJoin && rejectLeft && rejectRight:
			typ = plan.InnerJoin
		case typ == plan.FullOuterJoin && rejectLeft:
			typ = plan.LeftOuterJoin
		case typ == plan.FullOuterJoin && rejectRight:
			typ = plan.RightOuterJoin
		}
	}
	var toLeft, toRight, toJoin, above []expr.Expr
	for _, c := range conds {
		switch {
		case within(c, 0, nl) && pushesLeft(typ):
			toLeft = append(toLeft, c)
		case within(c, nl, nl+nr) && pushesRight(typ) && !semiOrAnti(typ):
			toRight = append(toRight, expr.ShiftColumns(c, -nl))
		case (typ == plan.InnerJoin || typ == plan.CrossJoin) && !semiOrAnti(typ):
			toJoin = append(toJoin, c)
			// An OR over both sides still filters each side by what its disjuncts say
			// about that side alone (Spark's PushExtraPredicateThroughJoin).
			if l, ok := sidePredicate(c, 0, nl); ok {
				toLeft = append(toLeft, l)
			}
			if r, ok := sidePredicate(c, nl, nl+nr); ok {
				toRight = append(toRight, expr.ShiftColumns(r, -nl))
			}
		default:
			above = append(above, c)
		}
	}
	c := *j
	c.Type = typ
	c.Left = push(j.Left, toLeft)
	c.Right = push(j.Right, toRight)
	if typ != j.Type {
		c.Out = joinSchema(c.Left, c.Right, typ)
	}
	c.LeftKeys = append([]expr.Expr(nil), j.LeftKeys...)
	c.RightKeys = append([]expr.Expr(nil), j.RightKeys...)
	var residual []expr.Expr
	if j.Residual != nil {
		residual = expr.Conjuncts(j.Residual)
	}
	addJoinConditions(&c, append(residual, toJoin...))
	return filterOver(&c, above)
}

// pushJoinCondition takes apart j's residual: equalities between a left and a right
// expression become keys, conjuncts over one side go into that side where the join type
// lets them (the right side of a left outer or semi/anti join, either side of an inner join).
func pushJoinCondition(j *logical.Join) logical.Node {
	if j.Residual == nil || logical.IsStreaming(j) {
		return j
	}
	nl := len(j.Left.Schema())
	nr := len(j.Right.Schema())
	var toLeft, toRight, keep []expr.Expr
	for _, c := range expr.Conjuncts(j.Residual) {
		switch {
		case !movable(c) || !readsColumns(c):
			keep = append(keep, c)
		case within(c, 0, nl) && conditionPushesLeft(j.Type):
			toLeft = append(toLeft, c)
		case within(c, nl, nl+nr) && conditionPushesRight(j.Type):
			toRight = append(toRight, expr.ShiftColumns(c, -nl))
		default:
			keep = append(keep, c)
		}
	}
	c := *j
	c.Left = push(j.Left, toLeft)
	c.Right = push(j.Right, toRight)
	c.Residual = nil
	c.LeftKeys = append([]expr.Expr(nil), j.LeftKeys...)
	c.RightKeys = append([]expr.Expr(nil), j.RightKeys...)
	addJoinConditions(&c, keep)
	if len(toLeft) == 0 && len(toRight) == 0 && len(c.LeftKeys) == len(j.LeftKeys) {
		return j
	}
	return &c
}

// addJoinConditions adds conds (over j's left++right columns) to j: equalities of a left and a
// right expression as keys, the rest to the residual. A cross join with a condition becomes
// an inner join.
func addJoinConditions(j *logical.Join, conds []expr.Expr) {
	nl := len(j.Left.Schema())
	nr := len(j.Right.Schema())
	var residual []expr.Expr
	for _, c := range conds {
		if l, r, ok := joinKeys(c, nl, nr); ok && movable(c) {
			j.LeftKeys = append(j.LeftKeys, l)
			j.RightKeys = append(j.RightKeys, r)
			continue
		}
		residual = append(residual, c)
	}
	j.Residual = expr.AndAll(residual)
	if j.Type == plan.CrossJoin && (len(j.LeftKeys) > 0 || j.Residual != nil) {
		j.Type = plan.InnerJoin
	}
}

// joinKeys splits an equality between an expression over the left columns and one over the
// right into the left key and the right key (over the right side's own columns).
func joinKeys(c expr.Expr, nl, nr int) (l, r expr.Expr, ok bool) {
	a, b, ok := expr.Equality(c)
	if !ok || !readsColumns(a) || !readsColumns(b) {
		return nil, nil, false
	}
	switch {
	case within(a, 0, nl) && within(b, nl, nl+nr):
		return a, expr.ShiftColumns(b, -nl), true
	case within(b, 0, nl) && within(a, nl, nl+nr):
		return b, expr.ShiftColumns(a, -nl), true
	}
	return nil, nil, false
}

// pushesLeft: a filter above the join on left columns may go into the left side.
func pushesLeft(t plan.JoinType) bool {
	switch t {
	case plan.InnerJoin, plan.CrossJoin, plan.LeftOuterJoin, plan.LeftSemiJoin, plan.LeftAntiJoin:
		return true
	}
	return false
}

// pushesRight: a filter above the join on right columns may go into the right side.
func pushesRight(t plan.JoinType) bool {
	return t == plan.InnerJoin || t == plan.CrossJoin || t == plan.RightOuterJoin
}

func semiOrAnti(t plan.JoinType) bool { return t == plan.LeftSemiJoin || t == plan.LeftAntiJoin }

// conditionPushesLeft: a join condition on left columns only may filter the left input.
func conditionPushesLeft(t plan.JoinType) bool {
	return t == plan.InnerJoin || t == plan.CrossJoin || t == plan.RightOuterJoin || t == plan.LeftSemiJoin
}

// conditionPushesRight: a join condition on right columns only may filter the right input.
func conditionPushesRight(t plan.JoinType) bool {
	switch t {
	case plan.InnerJoin, plan.CrossJoin, plan.LeftOuterJoin, plan.LeftSemiJoin, plan.LeftAntiJoin:
		return true
	}
	return false
}

// joinSchema is the output schema of a join of left and right of type t.
func joinSchema(left, right logical.Node, t plan.JoinType) sqltypes.Schema {
	if semiOrAnti(t) {
		return append(sqltypes.Schema{}, left.Schema()...)
	}
	var out sqltypes.Schema
	for _, f := range left.Schema() {
		f.Nullable = f.Nullable || t == plan.RightOuterJoin || t == plan.FullOuterJoin
		out = append(out, f)
	}
	for _, f := range right.Schema() {
		f.Nullable = f.Nullable || t == plan.LeftOuterJoin || t == plan.FullOuterJoin
		out = append(out, f)
	}
	return out
}

func colRange(lo, hi int) map[int]bool {
	m := map[int]bool{}
	for i := lo; i < hi; i++ {
		m[i] = true
	}
	return m
}

// sidePredicate weakens a disjunction over several inputs to columns [lo, hi): the OR of, for
// each disjunct, the AND of its conjuncts over those columns. Every row the disjunction keeps
// passes it; false when some disjunct says nothing about those columns.
func sidePredicate(c expr.Expr, lo, hi int) (expr.Expr, bool) {
	if !expr.IsOr(c) {
		return nil, false
	}
	var ors []expr.Expr
	for _, d := range expr.Disjuncts(c) {
		var parts []expr.Expr
		for _, x := range expr.Conjuncts(d) {
			if readsColumns(x) && within(x, lo, hi) {
				parts = append(parts, x)
			}
		}
		if len(parts) == 0 {
			return nil, false
		}
		ors = append(ors, expr.AndAll(parts))
	}
	return expr.OrAll(ors), true
}
