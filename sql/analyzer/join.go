package analyzer

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveJoin resolves a join: the condition's conjuncts that compare a left-only expression
// with a right-only one become equi-join keys, the rest the residual; USING columns become
// keys plus Spark's output projection.
func (a *Analyzer) resolveJoin(ctx context.Context, n *plan.Join) (*resolved, error) {
	left, err := a.resolve(ctx, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := a.resolve(ctx, n.Right)
	if err != nil {
		return nil, err
	}
	if len(n.UsingColumns) > 0 {
		if n.Condition != nil {
			return nil, sparkerr.IllegalArgument("a join has either a condition or USING columns, not both")
		}
		return a.resolveUsingJoin(left, right, n)
	}
	if n.Condition != nil {
		if cond := a.pythonCalls([]plan.Expr{n.Condition})[0]; hasPythonUDF(cond) {
			return a.resolveJoinWithPythonUDFs(left, right, n, cond)
		}
	}
	both := &resolved{cols: append(append([]column{}, left.cols...), right.cols...)}
	j := &logical.Join{Left: left.node, Right: right.node, Type: n.Type}
	if n.Condition != nil {
		if err := a.splitCondition(j, left, right, both, n.Condition); err != nil {
			return nil, err
		}
	} else if n.Type == plan.InnerJoin {
		j.Type = plan.CrossJoin
	}
	return a.joinOutput(j, left, right), nil
}

// joinOutput sets the join's output schema and scope: left++right (outer sides nullable), or
// left alone for semi/anti joins.
func (a *Analyzer) joinOutput(j *logical.Join, left, right *resolved) *resolved {
	nullLeft := j.Type == plan.RightOuterJoin || j.Type == plan.FullOuterJoin
	nullRight := j.Type == plan.LeftOuterJoin || j.Type == plan.FullOuterJoin
	var cols []column
	for _, c := range left.cols {
		c.nullable = c.nullable || nullLeft
		cols = append(cols, c)
	}
	if j.Type != plan.LeftSemiJoin && j.Type != plan.LeftAntiJoin {
		for _, c := range right.cols {
			c.nullable = c.nullable || nullRight
			cols = append(cols, c)
		}
	}
	out := make(sqltypes.Schema, len(cols))
	for i, c := range cols {
		out[i] = sqltypes.Field{Name: c.name, Type: c.typ, Nullable: c.nullable}
	}
	j.Out = out
	return &resolved{node: j, cols: cols}
}

// splitCondition binds cond over left++right and sorts its conjuncts into keys and residual.
func (a *Analyzer) splitCondition(j *logical.Join, left, right, both *resolved, cond plan.Expr) error {
	whole, err := a.binderOver(both).bind(cond)
	if err != nil {
		return err
	}
	if !isBooleanish(whole.Type()) {
		q := "`" + whole.String() + "`"
		t := `"` + whole.Type().SQL() + `"`
		return sparkerr.Analysis("JOIN_CONDITION_IS_NOT_BOOLEAN_TYPE", "42K0E",
			"The join condition %s has the invalid type %s, expected \"BOOLEAN\".", q, t).
			WithParams("joinCondition", q, "conditionType", t)
	}
	nl := len(left.cols)
	var residual []expr.Expr
	for _, c := range conjuncts(cond) {
		if lk, rk, ok, err := a.equiKey(c, left, right, both, nl); err != nil {
			return err
		} else if ok {
			j.LeftKeys = append(j.LeftKeys, lk)
			j.RightKeys = append(j.RightKeys, rk)
			continue
		}
		x, err := a.bindCondition(both, c)
		if err != nil {
			return err
		}
		residual = append(residual, x)
	}
	for _, r := range residual {
		if j.Residual == nil {
			j.Residual = r
			continue
		}
		x, err := expr.Bind("and", []expr.Expr{j.Residual, r}, a.Options)
		if err != nil {
			return err
		}
		j.Residual = x
	}
	return nil
}

// conjuncts splits a condition on AND.
func conjuncts(e plan.Expr) []plan.Expr {
	if c, ok := asCall(e); ok && strings.EqualFold(c.Name, "and") && len(c.Args) == 2 {
		return append(conjuncts(c.Args[0]), conjuncts(c.Args[1])...)
	}
	return []plan.Expr{e}
}

// equiKey recognises `l = r` (either order) where one side reads only left columns and the
// other only right columns; it returns the sides bound over their own input, cast to a common
// type.
func (a *Analyzer) equiKey(c plan.Expr, left, right, both *resolved, nl int) (expr.Expr, expr.Expr, bool, error) {
	call, ok := asCall(c)
	if !ok || len(call.Args) != 2 {
		return nil, nil, false, nil
	}
	switch strings.ToLower(call.Name) {
	case "==", "=":
	default:
		return nil, nil, false, nil
	}
	b := a.binderOver(both)
	x, err := b.bind(call.Args[0])
	if err != nil {
		return nil, nil, false, err
	}
	y, err := b.bind(call.Args[1])
	if err != nil {
		return nil, nil, false, err
	}
	sx, sy := side(x, nl), side(y, nl)
	var le, re plan.Expr
	switch {
	case sx == sideLeft && sy == sideRight:
		le, re = call.Args[0], call.Args[1]
	case sx == sideRight && sy == sideLeft:
		le, re = call.Args[1], call.Args[0]
	default:
		return nil, nil, false, nil
	}
	lk, err := a.bindSide(both, left, 0, le)
	if err != nil {
		return nil, nil, false, err
	}
	rk, err := a.bindSide(both, right, nl, re)
	if err != nil {
		return nil, nil, false, err
	}
	if !lk.Type().Equal(rk.Type()) {
		t, ok := expr.CommonType(lk.Type(), rk.Type())
		if !ok {
			// Let the comparison report its own type error.
			_, err := expr.Bind("==", []expr.Expr{lk, rk}, a.Options)
			if err == nil {
				err = sparkerr.Internal("analyzer: join keys %s and %s have no common type", lk, rk)
			}
			return nil, nil, false, err
		}
		if lk, err = a.castIfNeeded(lk, t); err != nil {
			return nil, nil, false, err
		}
		if rk, err = a.castIfNeeded(rk, t); err != nil {
			return nil, nil, false, err
		}
	}
	return lk, rk, true, nil
}

// bindSide binds e, known to read only one side's columns, over that side: column references
// resolve over the combined scope (so qualifiers and plan ids decide as in the condition) and
// are then re-pointed at the side's own positions.
func (a *Analyzer) bindSide(both, one *resolved, offset int, e plan.Expr) (expr.Expr, error) {
	b := a.binderOver(one)
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		ref, ok := asColumnRef(x)
		if !ok {
			return nil, false, nil
		}
		i, rest, err := a.locateColumn(both, ref)
		if err != nil {
			return nil, true, err
		}
		bound, err := extractFields(one.ref(i-offset), rest)
		return bound, true, err
	}
	return b.bind(e)
}

type joinSide uint8

const (
	sideNone joinSide = iota
	sideLeft
	sideRight
	sideBoth
)

// side tells which join input the columns of e come from.
func side(e expr.Expr, nl int) joinSide {
	s := sideNone
	var walk func(expr.Expr)
	walk = func(x expr.Expr) {
		if c, ok := x.(*expr.Column); ok {
			cs := sideLeft
			if c.Index >= nl {
				cs = sideRight
			}
			if s == sideNone {
				s = cs
			} else if s != cs {
				s = sideBoth
			}
			return
		}
		for _, ch := range x.Children() {
			walk(ch)
		}
	}
	walk(e)
	return s
}

func (a *Analyzer) castIfNeeded(e expr.Expr, t sqltypes.DataType) (expr.Expr, error) {
	if e.Type().Equal(t) {
		return e, nil
	}
	return expr.NewCast(e, t, plan.CastDefault, a.Options)
}

// resolveUsingJoin joins on equal USING columns and projects Spark's output: the USING
// columns first (coalesced for full outer joins, the right side's for right outer joins),
// then the other left columns, then the other right columns.
func (a *Analyzer) resolveUsingJoin(left, right *resolved, n *plan.Join) (*resolved, error) {
	j := &logical.Join{Left: left.node, Right: right.node, Type: n.Type}
	if j.Type == plan.CrossJoin {
		j.Type = plan.InnerJoin
	}
	li := make([]int, len(n.UsingColumns))
	ri := make([]int, len(n.UsingColumns))
	for k, name := range n.UsingColumns {
		l, err := a.findByName(left, name)
		if err != nil {
			return nil, err
		}
		if l < 0 {
			return nil, usingColumnError(name, "left", left)
		}
		r, err := a.findByName(right, name)
		if err != nil {
			return nil, err
		}
		if r < 0 {
			return nil, usingColumnError(name, "right", right)
		}
		li[k], ri[k] = l, r
		var lk, rk expr.Expr = left.ref(l), right.ref(r)
		if lk.Type().Kind == sqltypes.CalendarInterval {
			_, err := expr.Bind("==", []expr.Expr{lk, rk}, a.Options) // INVALID_ORDERING_TYPE
			return nil, err
		}
		if !lk.Type().Equal(rk.Type()) {
			t, ok := expr.CommonType(lk.Type(), rk.Type())
			if !ok {
				_, err := expr.Bind("==", []expr.Expr{lk, rk}, a.Options)
				return nil, err
			}
			if lk, err = a.castIfNeeded(lk, t); err != nil {
				return nil, err
			}
			if rk, err = a.castIfNeeded(rk, t); err != nil {
				return nil, err
			}
		}
		j.LeftKeys = append(j.LeftKeys, lk)
		j.RightKeys = append(j.RightKeys, rk)
	}
	joined := a.joinOutput(j, left, right)
	nl := len(left.cols)
	var exprs []expr.Expr
	for k := range n.UsingColumns {
		lref := joined.ref(li[k])
		switch n.Type {
		case plan.RightOuterJoin:
			exprs = append(exprs, joined.ref(nl+ri[k]))
		case plan.FullOuterJoin:
			rref := joined.ref(nl + ri[k])
			args := []expr.Expr{lref, rref}
			if !lref.Type().Equal(rref.Type()) {
				t, _ := expr.CommonType(lref.Type(), rref.Type())
				for i := range args {
					x, err := a.castIfNeeded(args[i], t)
					if err != nil {
						return nil, err
					}
					args[i] = x
				}
			}
			x, err := expr.Bind("coalesce", args, a.Options)
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, &expr.Alias{Child: x, Name: left.cols[li[k]].name})
		default:
			exprs = append(exprs, lref)
		}
	}
	isUsing := func(idx []int, i int) bool {
		for _, x := range idx {
			if x == i {
				return true
			}
		}
		return false
	}
	for i := range left.cols {
		if !isUsing(li, i) {
			exprs = append(exprs, joined.ref(i))
		}
	}
	if n.Type != plan.LeftSemiJoin && n.Type != plan.LeftAntiJoin {
		for i := range right.cols {
			if !isUsing(ri, i) {
				exprs = append(exprs, joined.ref(nl+i))
			}
		}
	}
	out := joined.project(exprs)
	if n.Type == plan.InnerJoin || n.Type == plan.CrossJoin {
		// Both sides' USING columns hold the same values: the output column answers to the
		// right side's qualifier and plan ids too (Spark keeps the right one as hidden output).
		for k := range n.UsingColumns {
			rc := right.cols[ri[k]]
			c := &out.cols[k]
			c.alsoQualified = append(append([][]string{}, c.alsoQualified...), rc.qualifier)
			c.alsoQualified = append(c.alsoQualified, rc.alsoQualified...)
			c.planIDs = append(append([]int64{}, c.planIDs...), rc.planIDs...)
		}
	}
	return out, nil
}

// usingColumnError is UNRESOLVED_USING_COLUMN_FOR_JOIN.
func usingColumnError(name, sideName string, r *resolved) *sparkerr.Error {
	names := make([]string, len(r.cols))
	for i, c := range r.cols {
		names[i] = sparkerr.Quote(c.name)
	}
	list := strings.Join(names, ", ")
	return sparkerr.Analysis("UNRESOLVED_USING_COLUMN_FOR_JOIN", "42703",
		"USING column %s cannot be resolved on the %s side of the join. The %s-side columns: [%s].",
		sparkerr.Quote(name), sideName, sideName, list).
		WithParams("colName", sparkerr.Quote(name), "side", sideName, "suggestion", list)
}
