package analyzer

import (
	"context"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// Subqueries over an aggregation: a scalar subquery in the select list of a grouped query
// (`sum(v) / (SELECT sum(v) FROM t)`) or in HAVING (TPC-H Q11). The parts of those expressions
// that read the aggregation's input (aggregate calls, grouping columns) are lifted into the
// aggregation as extra output columns; the expressions are then computed over the aggregation's
// result like a select list or filter with subqueries (withScalarSubqueries), reading the lifted
// columns, which are projected away.

// liftPrefix names a lifted column; the final projection drops it.
const liftPrefix = "__subquery_input_"

// lifter collects the lifted parts of expressions with subqueries.
type lifter struct {
	items []plan.Expr
	// aggregatesOnly lifts only parts that call aggregates (HAVING: its other names are the
	// select list's, read from the aggregation's result).
	aggregatesOnly bool
}

// lift replaces the maximal parts of e that read the input and hold no subquery by references
// to lifted columns.
func (l *lifter) lift(e plan.Expr) plan.Expr {
	if !hasSubquery(e) {
		if !readsInput(e) || (l.aggregatesOnly && !containsAggregate(e)) {
			return e
		}
		name := liftPrefix + strconv.Itoa(len(l.items))
		l.items = append(l.items, plan.Alias{Child: e, Names: []string{name}})
		return plan.ColumnRef{Name: []string{name}}
	}
	switch c := e.(type) {
	case plan.Call:
		return l.liftCall(c)
	case *plan.Call:
		x := l.liftCall(*c)
		return &x
	case plan.Alias:
		c.Child = l.lift(c.Child)
		return c
	case *plan.Alias:
		x := *c
		x.Child = l.lift(c.Child)
		return &x
	case plan.Cast:
		c.Child = l.lift(c.Child)
		return c
	case *plan.Cast:
		x := *c
		x.Child = l.lift(c.Child)
		return &x
	}
	return e
}

func (l *lifter) liftCall(c plan.Call) plan.Call {
	args := make([]plan.Expr, len(c.Args))
	for i, a := range c.Args {
		args[i] = l.lift(a)
	}
	c.Args = args
	return c
}

// readsInput reports whether e reads columns or calls aggregates (outside subqueries).
func readsInput(e plan.Expr) bool {
	found := false
	walkPlanExpr(e, func(x plan.Expr) bool {
		switch x.(type) {
		case plan.ColumnRef, *plan.ColumnRef, plan.Star, *plan.Star:
			found = true
		}
		if c, ok := asCall(x); ok && expr.IsAggregate(strings.ToLower(c.Name)) {
			found = true
		}
		return !found
	})
	return found
}

// liftedBinder is withScalarSubqueries' binder over the aggregation's result r, which also reads
// the lifted columns (named after what they compute, as Spark names the expression).
func (a *Analyzer) liftedBinder(ctx context.Context, r *resolved, es []plan.Expr) (*resolved, *binder, error) {
	lifted := map[string]int{}
	for i, c := range r.cols {
		if strings.HasPrefix(c.name, liftPrefix) {
			lifted[c.name] = i
		}
	}
	names := map[int]string{}
	if p, ok := r.node.(*logical.Project); ok {
		for _, i := range lifted {
			names[i] = trimAlias(p.Exprs[i]).String()
		}
	}
	wide, b, err := a.withScalarSubqueries(ctx, r, es)
	if err != nil {
		return nil, nil, err
	}
	base := b.intercept
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		if ref, ok := asColumnRef(x); ok && len(ref.Name) == 1 {
			if i, ok := lifted[ref.Name[0]]; ok {
				c := wide.ref(i)
				if n, ok := names[i]; ok {
					c.Name = n
				}
				return c, true, nil
			}
		}
		return base(x)
	}
	return wide, b, nil
}

// resolveGroupedWithSubqueries resolves a grouped select list with scalar subqueries.
func (a *Analyzer) resolveGroupedWithSubqueries(ctx context.Context, in *resolved, spec groupSpec) (*resolved, error) {
	l := &lifter{}
	var kept, final []plan.Expr
	withSub := make([]bool, len(spec.aggs))
	for i, item := range spec.aggs {
		if _, ok := asStar(item); ok {
			return nil, sparkerr.Unsupported("a star next to a scalar subquery in the select list of an aggregation")
		}
		if hasSubquery(item) {
			withSub[i] = true
			final = append(final, l.lift(item))
			continue
		}
		kept = append(kept, item)
	}
	inner := spec
	inner.aggs = append(kept, l.items...)
	r, err := a.resolveGrouped(ctx, in, inner)
	if err != nil {
		return nil, err
	}
	wide, b, err := a.liftedBinder(ctx, r, final)
	if err != nil {
		return nil, err
	}
	bound, err := b.bindAll(final)
	if err != nil {
		return nil, err
	}
	refs := make([]expr.Expr, 0, len(spec.aggs))
	next, nextSub := 0, 0
	for i := range spec.aggs {
		if withSub[i] {
			refs = append(refs, bound[nextSub])
			nextSub++
			continue
		}
		refs = append(refs, wide.ref(next))
		next++
	}
	return wide.project(refs), nil
}

// resolveHavingWithSubqueries resolves HAVING cond over agg where cond has subqueries.
func (a *Analyzer) resolveHavingWithSubqueries(ctx context.Context, agg *plan.Aggregate, n *plan.Filter) (*resolved, error) {
	in, err := a.resolve(ctx, agg.Input)
	if err != nil {
		return nil, err
	}
	l := &lifter{aggregatesOnly: true}
	cond := l.lift(n.Condition)
	spec := groupSpec{grouping: agg.Grouping, aggs: append(append([]plan.Expr{}, agg.Aggs...), l.items...), global: len(agg.Grouping) == 0}
	if anySubquery(agg.Aggs) {
		return nil, sparkerr.Unsupported("scalar subqueries in both the select list and HAVING of one aggregation")
	}
	r, err := a.resolveGrouped(ctx, in, spec)
	if err != nil {
		return nil, err
	}
	r = r.withPlanID(agg.PlanID)
	wide, b, err := a.liftedBinder(ctx, r, []plan.Expr{cond})
	if err != nil {
		return nil, err
	}
	x, err := b.bind(cond)
	if err != nil {
		return nil, err
	}
	if err := checkBoolean(x); err != nil {
		return nil, err
	}
	filtered := a.keepScope(wide, &logical.Filter{Input: wide.node, Cond: x})
	keep := len(r.cols) - len(l.items)
	refs := make([]expr.Expr, keep)
	for i := range refs {
		refs[i] = filtered.ref(i)
	}
	return filtered.project(refs), nil
}
