package analyzer

import (
	"context"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// EXISTS and IN subqueries as values: under OR, NOT of a disjunction, or in a select list,
// where a semi/anti join cannot stand for them (Spark's ExistenceJoin). Their value is computed
// by left outer joins onto the outer rows of aggregates that have at most one row per outer row:
//   - EXISTS: the subquery's distinct correlation keys (its first row if uncorrelated); the value
//     is whether an outer row found its keys;
//   - v IN (subquery): its distinct (keys, value) pairs, found when some row equals v, and per
//     keys the row count and the non-null value count. The value is Spark's three-valued IN:
//     true when some row equals v; else false when there is no row; else NULL when v is NULL or
//     some row's value is NULL; else false.
// A correlated subquery here may only correlate by equalities (its keys); a multi-column IN is
// refused.

// joinExistsValue left-outer-joins what decides EXISTS (rel) onto in: the result is in's
// columns and the boolean value.
func (a *Analyzer) joinExistsValue(ctx context.Context, in *resolved, rel plan.Relation) (*resolved, error) {
	s, err := a.resolveSubquery(ctx, in, rel)
	if err != nil {
		return nil, err
	}
	lks, rks, err := a.valueKeys(s, "EXISTS")
	if err != nil {
		return nil, err
	}
	var right logical.Node
	if len(rks) == 0 {
		right = &logical.Limit{Input: s.res.node, N: 1}
	} else {
		right = &logical.Aggregate{Input: s.res.node, Groups: rks, Names: []string{}}
	}
	found := withMarker(right)
	j := &logical.Join{Left: in.node, Right: found.node, Type: plan.LeftOuterJoin, LeftKeys: lks, RightKeys: found.allRefs()[:len(rks)]}
	joined := a.joinOutput(j, in, found)
	value, err := expr.Bind("isnotnull", []expr.Expr{joined.ref(len(joined.cols) - 1)}, a.Options)
	if err != nil {
		return nil, err
	}
	return appendValue(in, joined, &expr.Alias{Child: value, Name: "exists()"}), nil
}

// joinInValue left-outer-joins what decides `values IN (rel)` onto in: the result is in's
// columns and the boolean value.
func (a *Analyzer) joinInValue(ctx context.Context, in *resolved, p plan.InSubquery) (*resolved, error) {
	s, err := a.resolveSubquery(ctx, in, p.Plan)
	if err != nil {
		return nil, err
	}
	if len(p.Values) != s.width {
		return nil, sparkerr.DatatypeMismatch("IN_SUBQUERY_LENGTH_MISMATCH", `"IN (listquery)"`,
			"The number of columns in the left hand side of an IN subquery does not match the number of columns in the output of subquery. Left hand side columns(length: %d), right hand side columns(length: %d).",
			len(p.Values), s.width)
	}
	if s.width != 1 {
		return nil, sparkerr.Unsupported("a multi-column IN subquery is supported only as a WHERE conjunct")
	}
	lks, rks, err := a.valueKeys(s, "IN")
	if err != nil {
		return nil, err
	}
	v, err := a.binderOver(in).bind(p.Values[0])
	if err != nil {
		return nil, err
	}
	var c expr.Expr = s.res.ref(0)
	if !v.Type().Equal(c.Type()) {
		t, ok := expr.CommonType(v.Type(), c.Type())
		if !ok {
			return nil, sparkerr.DatatypeMismatch("IN_SUBQUERY_DATA_TYPE_MISMATCH", `"IN (listquery)"`,
				"The data type of one or more elements in the left hand side of an IN subquery is not compatible with the data type of the output of the subquery. Mismatched columns: [%s, %s].",
				v.Type().SQL(), c.Type().SQL())
		}
		if v, err = a.castIfNeeded(v, t); err != nil {
			return nil, err
		}
		if c, err = a.castIfNeeded(c, t); err != nil {
			return nil, err
		}
	}
	// Rows equal to v, per keys.
	pairs := withMarker(&logical.Aggregate{Input: s.res.node, Groups: append(append([]expr.Expr{}, rks...), c), Names: []string{}})
	j := &logical.Join{Left: in.node, Right: pairs.node, Type: plan.LeftOuterJoin,
		LeftKeys: append(append([]expr.Expr{}, lks...), v), RightKeys: pairs.allRefs()[:len(rks)+1]}
	cur := a.joinOutput(j, in, pairs)
	found := cur.ref(len(cur.cols) - 1)
	// Row and non-null value counts, per keys.
	one := expr.NewLiteral(int32(1), sqltypes.IntegerType)
	rows, err := expr.BindAggregate("count", []expr.Expr{one}, false, a.Options)
	if err != nil {
		return nil, err
	}
	values, err := expr.BindAggregate("count", []expr.Expr{c}, false, a.Options)
	if err != nil {
		return nil, err
	}
	counts := newResolved(&logical.Aggregate{Input: s.res.node, Groups: rks, Aggs: []expr.AggFunc{rows, values},
		Names: []string{rows.String(), values.String()}})
	nl := len(cur.cols)
	k := &logical.Join{Left: cur.node, Right: counts.node, Type: plan.LeftOuterJoin, LeftKeys: lks, RightKeys: counts.allRefs()[:len(rks)]}
	cur = a.joinOutput(k, cur, counts)
	nRows, nValues := cur.ref(nl+len(rks)), cur.ref(nl+len(rks)+1)
	// The value, shifting v's columns: they are in's, at the same indexes in cur.
	bind := func(name string, args ...expr.Expr) expr.Expr {
		if err != nil {
			return nil
		}
		var x expr.Expr
		x, err = expr.Bind(name, args, a.Options)
		return x
	}
	zero := expr.NewLiteral(int64(0), sqltypes.LongType)
	null := expr.NewLiteral(nil, sqltypes.BooleanType)
	empty := bind("==", bind("coalesce", nRows, zero), zero)
	unknown := bind("or", bind("isnull", v), bind(">", nRows, nValues))
	value := bind("if", bind("isnotnull", found), expr.NewLiteral(true, sqltypes.BooleanType),
		bind("if", empty, expr.NewLiteral(false, sqltypes.BooleanType),
			bind("if", unknown, null, expr.NewLiteral(false, sqltypes.BooleanType))))
	if err != nil {
		return nil, err
	}
	return appendValue(in, cur, &expr.Alias{Child: value, Name: "in()"}), nil
}

// valueKeys are the join keys of a subquery used as a value: its correlated predicates must all
// be `outer = inner`.
func (a *Analyzer) valueKeys(s *subquery, what string) (lks, rks []expr.Expr, err error) {
	for _, p := range s.preds {
		lk, rk, ok, err := a.correlatedKey(p, s)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, sparkerr.Unsupported("%s (subquery) correlated by %s is supported only as a WHERE conjunct, not under OR or in a select list", what, p.bound)
		}
		lks, rks = append(lks, lk), append(rks, rk)
	}
	return lks, rks, nil
}

// withMarker projects n's columns and an always-true column after them (NULL after a left outer
// join when the row found no match).
func withMarker(n logical.Node) *resolved {
	r := newResolved(n)
	refs := append(r.allRefs(), &expr.Alias{Child: expr.NewLiteral(true, sqltypes.BooleanType), Name: "found"})
	return r.project(refs)
}

// appendValue projects in's columns (as they are in joined, which starts with them) and value.
func appendValue(in, joined *resolved, value expr.Expr) *resolved {
	out := joined.project(append(in.allRefs(), value))
	schema := out.node.Schema()
	for i := range in.cols {
		out.cols[i] = in.cols[i]
		out.cols[i].nullable = schema[i].Nullable
	}
	return out
}
