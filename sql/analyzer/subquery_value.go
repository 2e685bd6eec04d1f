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

// EXISTS and IN subqueries as values: under OR, under NOT of a disjunction, in a select list,
// where a semi/anti join cannot stand for them. Spark rewrites them into an ExistenceJoin: each
// outer row with a boolean, whether some subquery row meets the join condition. Weir builds it
// from the two joins it has: Union(semi join → true, anti join → false), so every outer row
// appears once with its value. As in Spark the value is never NULL: `v IN (subquery)` is
// whether some row equals v, and a negated IN (`v NOT IN`, `NOT (v IN …)`) is NOT of whether
// some row equals v or compares unknown (null-aware), which is false when v is NULL.

// existence returns in's rows with a last boolean column name: whether a row of right meets the
// keys and residual of cond (the value negated when negate).
func (a *Analyzer) existence(in *resolved, right *resolved, cond *logical.Join, name string, negate bool) *resolved {
	branch := func(typ plan.JoinType, value bool) *resolved {
		j := &logical.Join{Left: in.node, Right: right.node, Type: typ, LeftKeys: cond.LeftKeys, RightKeys: cond.RightKeys, Residual: cond.Residual}
		r := a.joinOutput(j, in, right)
		v := &expr.Alias{Child: expr.NewLiteral(value != negate, sqltypes.BooleanType), Name: name}
		return &resolved{node: &logical.Project{Input: r.node, Exprs: append(r.allRefs(), v)}, cols: r.cols}
	}
	found, missing := branch(plan.LeftSemiJoin, true), branch(plan.LeftAntiJoin, false)
	schema := found.node.Schema()
	cols := append(append([]column{}, in.cols...), column{name: name, typ: sqltypes.BooleanType})
	return &resolved{node: &logical.Union{Inputs: []logical.Node{found.node, missing.node}, Out: schema}, cols: cols}
}

// joinExistsValue adds the value of [NOT] EXISTS (rel) to in's rows.
func (a *Analyzer) joinExistsValue(ctx context.Context, in *resolved, rel plan.Relation, not bool) (*resolved, string, error) {
	s, err := a.resolveSubqueryFor(ctx, in, rel, true)
	if err != nil {
		return nil, "", err
	}
	right := s.res
	if !s.correlated() {
		right = &resolved{node: &logical.Limit{Input: right.node, N: 1}, cols: right.cols}
	}
	cond := &logical.Join{}
	if err := a.correlatedCondition(cond, s, len(in.cols)); err != nil {
		return nil, "", err
	}
	name := "exists(" + outerNames(s) + ")"
	if not {
		name = "(NOT " + name + ")"
	}
	return a.existence(in, right, cond, name, not), name, nil
}

// joinInValue adds the value of `values IN (subquery)` (negated: null-aware NOT IN) to in's rows.
func (a *Analyzer) joinInValue(ctx context.Context, in *resolved, p plan.InSubquery, neg bool) (*resolved, string, error) {
	s, err := a.resolveSubquery(ctx, in, p.Plan)
	if err != nil {
		return nil, "", err
	}
	if len(p.Values) != s.width {
		return nil, "", inLengthMismatch(len(p.Values), s.width)
	}
	b := a.binderOver(in)
	nl := len(in.cols)
	cond := &logical.Join{}
	var eqs []expr.Expr
	var shown []string
	for i, v := range p.Values {
		lk, err := b.bind(v)
		if err != nil {
			return nil, "", err
		}
		shown = append(shown, lk.String())
		var rk expr.Expr = s.res.ref(i)
		c := s.res.cols[i]
		var rkWide expr.Expr = &expr.Column{Index: nl + i, Name: c.name, T: c.typ, Null: c.nullable}
		if lk, rk, rkWide, err = a.inTypes(lk, rk, rkWide); err != nil {
			return nil, "", err
		}
		if !neg {
			cond.LeftKeys, cond.RightKeys = append(cond.LeftKeys, lk), append(cond.RightKeys, rk)
			continue
		}
		eq, err := expr.Bind("==", []expr.Expr{lk, rkWide}, a.Options)
		if err != nil {
			return nil, "", err
		}
		eqs = append(eqs, eq)
	}
	if neg {
		if cond.Residual, err = a.nullAware(eqs); err != nil {
			return nil, "", err
		}
	}
	if err := a.correlatedCondition(cond, s, nl); err != nil {
		return nil, "", err
	}
	lhs := strings.Join(shown, ", ")
	if len(shown) > 1 {
		lhs = "(" + lhs + ")"
	}
	name := "(" + lhs + " IN (listquery(" + outerNames(s) + ")))"
	if neg {
		name = "(NOT " + name + ")"
	}
	return a.existence(in, s.res, cond, name, neg), name, nil
}

// inTypes casts an IN's value and the subquery's column (read on its own and from the joined
// row) to their common type.
func (a *Analyzer) inTypes(lk, rk, rkWide expr.Expr) (expr.Expr, expr.Expr, expr.Expr, error) {
	if lk.Type().Equal(rk.Type()) {
		return lk, rk, rkWide, nil
	}
	t, ok := expr.CommonType(lk.Type(), rk.Type())
	if !ok {
		return nil, nil, nil, sparkerr.DatatypeMismatch("IN_SUBQUERY_DATA_TYPE_MISMATCH", `"IN (listquery)"`,
			"The data type of one or more elements in the left hand side of an IN subquery is not compatible with the data type of the output of the subquery. Mismatched columns: [%s, %s].",
			lk.Type().SQL(), rk.Type().SQL())
	}
	var err error
	if lk, err = a.castIfNeeded(lk, t); err != nil {
		return nil, nil, nil, err
	}
	if rk, err = a.castIfNeeded(rk, t); err != nil {
		return nil, nil, nil, err
	}
	if rkWide, err = a.castIfNeeded(rkWide, t); err != nil {
		return nil, nil, nil, err
	}
	return lk, rk, rkWide, nil
}

// nullAware is the match condition of NOT IN over the values' equalities eqs: c OR isnull(c)
// for c their conjunction (a subquery row that compares unknown also excludes the outer row).
func (a *Analyzer) nullAware(eqs []expr.Expr) (expr.Expr, error) {
	c := eqs[0]
	var err error
	for _, e := range eqs[1:] {
		if c, err = expr.Bind("and", []expr.Expr{c, e}, a.Options); err != nil {
			return nil, err
		}
	}
	unknown, err := expr.Bind("isnull", []expr.Expr{c}, a.Options)
	if err != nil {
		return nil, err
	}
	return expr.Bind("or", []expr.Expr{c, unknown}, a.Options)
}

// inLengthMismatch is IN_SUBQUERY_LENGTH_MISMATCH.
func inLengthMismatch(values, columns int) error {
	return sparkerr.DatatypeMismatch("IN_SUBQUERY_LENGTH_MISMATCH", `"IN (listquery)"`,
		"The number of columns in the left hand side of an IN subquery does not match the number of columns in the output of subquery. Left hand side columns(length: %d), right hand side columns(length: %d).",
		values, columns)
}

// outerNames lists the outer columns a subquery reads, in order, as Spark names the subquery
// expression (scalarsubquery(k, v), exists(k)).
func outerNames(s *subquery) string {
	var names []string
	seen := map[string]bool{}
	for _, p := range s.preds {
		for _, o := range outerRefsIn(p.bound) {
			if !seen[o.col.Name] {
				seen[o.col.Name] = true
				names = append(names, o.col.Name)
			}
		}
	}
	return strings.Join(names, ", ")
}
