package analyzer

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// Subqueries, rewritten into joins as Spark's RewritePredicateSubquery and
// RewriteCorrelatedScalarSubquery do:
//   - a WHERE conjunct `v IN (subquery)` is a left semi join on v = column; NOT IN is a null-aware
//     left anti join (v = column OR (v = column) IS NULL, over all columns for (a, b) IN …);
//     [NOT] EXISTS a semi (anti) join;
//   - a scalar subquery in a select list or filter is left-outer-joined as a hidden column the
//     expression reads: an uncorrelated one's first row (NULL when it has none), a correlated
//     one grouped by its correlation keys (subquery_scalar.go);
//   - a correlated subquery's predicates on outer columns (subquery_outer.go) are pulled up
//     (subquery_pullup.go) into the join's condition: equalities between an outer and an inner
//     expression as hash keys, the rest as the residual.

// hasSubquery reports whether e contains a subquery expression.
func hasSubquery(e plan.Expr) bool {
	found := false
	walkPlanExpr(e, func(x plan.Expr) bool {
		switch x.(type) {
		case plan.ScalarSubquery, *plan.ScalarSubquery, plan.InSubquery, *plan.InSubquery, plan.Exists, *plan.Exists:
			found = true
		}
		return !found
	})
	return found
}

func anySubquery(es []plan.Expr) bool {
	for _, e := range es {
		if hasSubquery(e) {
			return true
		}
	}
	return false
}

// resolveFilterWithSubqueries resolves a filter whose condition has subqueries.
func (a *Analyzer) resolveFilterWithSubqueries(ctx context.Context, n *plan.Filter) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	cur := in
	var rest []plan.Expr
	all := conjuncts(n.Condition)
	if a.sub == nil {
		// Conjuncts without subqueries filter first, so that the joins see fewer rows. (Inside a
		// subquery they stay above the joins: correlated ones are pulled up from there.)
		var plain []plan.Expr
		var others []plan.Expr
		for _, c := range all {
			if hasSubquery(c) {
				others = append(others, c)
			} else {
				plain = append(plain, c)
			}
		}
		if len(plain) > 0 {
			cond := plain[0]
			for _, c := range plain[1:] {
				cond = plan.Fn("and", cond, c)
			}
			x, err := a.bindCondition(in, cond)
			if err != nil {
				return nil, err
			}
			cur = a.keepScope(in, &logical.Filter{Input: in.node, Cond: x})
		}
		all = others
	}
	for _, c := range all {
		pred, not := c, false
		if call, ok := asCall(c); ok && strings.EqualFold(call.Name, "not") && len(call.Args) == 1 {
			pred, not = call.Args[0], true
		}
		switch p := pred.(type) {
		case plan.InSubquery:
			cur, err = a.inSubqueryJoin(ctx, cur, p, p.Not != not)
		case *plan.InSubquery:
			cur, err = a.inSubqueryJoin(ctx, cur, *p, p.Not != not)
		case plan.Exists:
			cur, err = a.existsJoin(ctx, cur, p.Plan, p.Not != not)
		case *plan.Exists:
			cur, err = a.existsJoin(ctx, cur, p.Plan, p.Not != not)
		default:
			rest = append(rest, c)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(rest) == 0 {
		return cur, nil
	}
	cond := rest[0]
	for _, c := range rest[1:] {
		cond = plan.Fn("and", cond, c)
	}
	wide, b, err := a.withScalarSubqueries(ctx, cur, []plan.Expr{cond})
	if err != nil {
		return nil, err
	}
	var filtered *resolved
	if !anySubquery(rest) {
		// Inside a subquery, conjuncts reading outer columns are pulled up, not filtered here.
		filtered, _, err = a.correlatedFilter(wide, rest)
		if err != nil {
			return nil, err
		}
	}
	if filtered == nil {
		x, err := b.bind(cond)
		if err != nil {
			return nil, err
		}
		if err := checkBoolean(x); err != nil {
			return nil, err
		}
		filtered = a.keepScope(wide, &logical.Filter{Input: wide.node, Cond: x})
	}
	if len(wide.cols) == len(cur.cols) {
		return filtered, nil
	}
	refs := make([]expr.Expr, len(cur.cols))
	for i := range refs {
		refs[i] = filtered.ref(i)
	}
	return filtered.project(refs), nil
}

// inSubqueryJoin keeps the rows of in whose values are (not) in the subquery's rows: a left
// semi join on the values (and the correlated predicates), or for NOT IN a null-aware left anti
// join: a row goes when some subquery row equals it or compares unknown (Spark's
// RewritePredicateSubquery: the condition is `c OR isnull(c)` for c the values' equality).
func (a *Analyzer) inSubqueryJoin(ctx context.Context, in *resolved, p plan.InSubquery, not bool) (*resolved, error) {
	s, err := a.resolveSubquery(ctx, in, p.Plan)
	if err != nil {
		return nil, err
	}
	sub := s.res
	if len(p.Values) != s.width {
		return nil, inLengthMismatch(len(p.Values), s.width)
	}
	b := a.binderOver(in)
	j := &logical.Join{Left: in.node, Right: sub.node, Type: plan.LeftSemiJoin}
	if not {
		j.Type = plan.LeftAntiJoin
	}
	nl := len(in.cols)
	var eqs []expr.Expr
	for i, v := range p.Values {
		lk, err := b.bind(v)
		if err != nil {
			return nil, err
		}
		var rk expr.Expr = sub.ref(i)
		// rkWide is the same value read from the joined left++right row (for the residual).
		var rkWide expr.Expr = &expr.Column{Index: nl + i, Name: sub.cols[i].name, T: sub.cols[i].typ, Null: sub.cols[i].nullable}
		if lk, rk, rkWide, err = a.inTypes(lk, rk, rkWide); err != nil {
			return nil, err
		}
		if !not {
			j.LeftKeys = append(j.LeftKeys, lk)
			j.RightKeys = append(j.RightKeys, rk)
			continue
		}
		eq, err := expr.Bind("==", []expr.Expr{lk, rkWide}, a.Options)
		if err != nil {
			return nil, err
		}
		eqs = append(eqs, eq)
	}
	if not {
		if j.Residual, err = a.nullAware(eqs); err != nil {
			return nil, err
		}
	}
	if err := a.correlatedCondition(j, s, nl); err != nil {
		return nil, err
	}
	return a.joinOutput(j, in, sub), nil
}

// existsJoin keeps the rows of in when the subquery has (not) any row: a left semi (anti) join
// on the correlated predicates; an uncorrelated subquery's first row decides for every row.
func (a *Analyzer) existsJoin(ctx context.Context, in *resolved, rel plan.Relation, not bool) (*resolved, error) {
	s, err := a.resolveSubqueryFor(ctx, in, rel, true)
	if err != nil {
		return nil, err
	}
	right := s.res
	if !s.correlated() {
		right = &resolved{node: &logical.Limit{Input: right.node, N: 1}, cols: right.cols}
	}
	j := &logical.Join{Left: in.node, Right: right.node, Type: plan.LeftSemiJoin}
	if not {
		j.Type = plan.LeftAntiJoin
	}
	if err := a.correlatedCondition(j, s, len(in.cols)); err != nil {
		return nil, err
	}
	return a.joinOutput(j, in, right), nil
}

// withScalarSubqueries joins the value of each subquery of es (scalar, and EXISTS or IN as
// values: subquery_value.go) onto in as a hidden column and returns the widened input with a
// binder that reads them.
func (a *Analyzer) withScalarSubqueries(ctx context.Context, in *resolved, es []plan.Expr) (*resolved, *binder, error) {
	cur := in
	type joined struct {
		col  int
		name string
	}
	index := map[valueKey]joined{}
	var visitErr error
	for _, e := range es {
		walkPlanExpr(e, func(x plan.Expr) bool {
			if visitErr != nil {
				return false
			}
			k, ok := subqueryValueKey(x)
			if !ok {
				return true
			}
			if _, done := index[k]; done {
				return false
			}
			next, name, err := a.joinSubqueryValue(ctx, cur, x, k.neg)
			if err != nil {
				visitErr = err
				return false
			}
			cur = next
			last := len(cur.cols) - 1
			cur.cols[last].hidden = true
			cur.cols[last].qualifier = nil
			index[k] = joined{last, name}
			return false
		})
		if visitErr != nil {
			return nil, nil, visitErr
		}
	}
	widened := cur
	b := a.binderOver(widened)
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		k, ok := subqueryValueKey(x)
		if !ok {
			return nil, false, nil
		}
		j, ok := index[k]
		if !ok {
			return nil, true, sparkerr.Internal("analyzer: subquery was not joined")
		}
		return &expr.Alias{Child: widened.ref(j.col), Name: j.name}, true, nil
	}
	return widened, b, nil
}

// valueKey identifies a subquery joined as a value: its plan, and for IN whether it is negated
// (NOT IN is null-aware, so it is a different join).
type valueKey struct {
	rel plan.Relation
	neg bool
}

// subqueryValueKey is the key of a subquery expression (NOT of an IN included); false for
// other expressions.
func subqueryValueKey(x plan.Expr) (valueKey, bool) {
	if c, ok := asCall(x); ok && c.Name == "not" && len(c.Args) == 1 {
		if in, ok := asInSubquery(c.Args[0]); ok {
			return valueKey{in.Plan, !in.Not}, true
		}
	}
	if in, ok := asInSubquery(x); ok {
		return valueKey{in.Plan, in.Not}, true
	}
	if rel := subqueryPlan(x); rel != nil {
		return valueKey{rel: rel}, true
	}
	return valueKey{}, false
}

// asInSubquery unwraps a plan.InSubquery value or pointer.
func asInSubquery(e plan.Expr) (plan.InSubquery, bool) {
	switch s := e.(type) {
	case plan.InSubquery:
		return s, true
	case *plan.InSubquery:
		return *s, true
	}
	return plan.InSubquery{}, false
}

// joinSubqueryValue joins the value of subquery expression x onto in as its last column and
// names it as Spark does.
func (a *Analyzer) joinSubqueryValue(ctx context.Context, in *resolved, x plan.Expr, neg bool) (*resolved, string, error) {
	if c, ok := asCall(x); ok && c.Name == "not" {
		x = c.Args[0]
	}
	switch s := x.(type) {
	case plan.ScalarSubquery:
		return a.joinScalarSubquery(ctx, in, s.Plan)
	case *plan.ScalarSubquery:
		return a.joinScalarSubquery(ctx, in, s.Plan)
	case plan.Exists:
		return a.joinExistsValue(ctx, in, s.Plan, s.Not)
	case *plan.Exists:
		return a.joinExistsValue(ctx, in, s.Plan, s.Not)
	}
	p, _ := asInSubquery(x)
	return a.joinInValue(ctx, in, p, neg)
}

// resolveProjectWithSubqueries resolves a select list with scalar subqueries.
func (a *Analyzer) resolveProjectWithSubqueries(ctx context.Context, in *resolved, exprs []plan.Expr) (*resolved, error) {
	wide, b, err := a.withScalarSubqueries(ctx, in, exprs)
	if err != nil {
		return nil, err
	}
	bound, err := b.bindAll(exprs)
	if err != nil {
		return nil, err
	}
	return wide.project(bound), nil
}

// subqueryPlan is the plan of a subquery expression, nil for other expressions.
func subqueryPlan(x plan.Expr) plan.Relation {
	switch s := x.(type) {
	case plan.ScalarSubquery:
		return s.Plan
	case *plan.ScalarSubquery:
		return s.Plan
	case plan.Exists:
		return s.Plan
	case *plan.Exists:
		return s.Plan
	case plan.InSubquery:
		return s.Plan
	case *plan.InSubquery:
		return s.Plan
	}
	return nil
}
