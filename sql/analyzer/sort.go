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

// resolveSort resolves ORDER BY / sort(): keys over the child's output (select-list names and
// ordinals); keys the output lacks are resolved below a Project (added to it and projected
// away, Spark's ResolveMissingReferences) or over an Aggregate (grouping expressions and
// hidden aggregates).
func (a *Analyzer) resolveSort(ctx context.Context, n *plan.Sort) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	if order, ok := a.orderByAll(in, n.Order); ok {
		m := *n
		m.Order = order
		n = &m
	}
	var sorted *resolved
	if order := a.pythonSortOrder(n.Order); order != nil {
		sorted, err = a.sortWithPythonUDFs(in, n, order)
	} else {
		var keys []logical.SortKey
		if keys, err = a.bindSortKeys(in, n.Order, a.binderOver(in).bind); err == nil {
			sorted = a.keepScope(in, &logical.Sort{Input: in.node, Keys: keys, Global: n.IsGlobal})
		}
	}
	if err == nil {
		return sorted, nil
	}
	if !isUnresolvedColumn(err) && !isAggregateMisuse(err) {
		return nil, err
	}
	switch child := n.Input.(type) {
	case *plan.Aggregate:
		if child.Type == plan.GroupBy {
			return a.sortOverAggregate(ctx, n, child, nil)
		}
	case *plan.Filter:
		if agg, ok := child.Input.(*plan.Aggregate); ok && agg.Type == plan.GroupBy {
			return a.sortOverAggregate(ctx, n, agg, child)
		}
	case *plan.Project:
		if !anyAggregate(child.Exprs) && child.Input != nil {
			return a.sortOverProject(ctx, n, child)
		}
	}
	return nil, err
}

func isAggregateMisuse(err error) bool {
	e, ok := sparkerr.As(err)
	return ok && e.Class == "UNSUPPORTED_EXPR_FOR_OPERATOR"
}

func anyAggregate(es []plan.Expr) bool {
	for _, e := range es {
		if containsAggregate(e) {
			return true
		}
	}
	return false
}

// bindSortKeys binds sort orders with bind; integer literal keys are ordinals into in.
func (a *Analyzer) bindSortKeys(in *resolved, order []plan.SortOrder, bind func(plan.Expr) (expr.Expr, error)) ([]logical.SortKey, error) {
	keys := make([]logical.SortKey, len(order))
	for i, o := range order {
		var x expr.Expr
		if lit, ok := asLiteral(o.Child); ok && lit.Type.IsIntegral() && lit.Value != nil {
			pos := toInt(lit.Value)
			if pos < 1 || pos > len(in.cols) {
				return nil, sparkerr.Analysis("ORDER_BY_POS_OUT_OF_RANGE", "42805",
					"ORDER BY position %d is not in select list (valid range is [1, %d]).", pos, len(in.cols)).
					WithParams("index", formatInt(int64(pos)), "size", formatInt(int64(len(in.cols))))
			}
			x = in.ref(pos - 1)
		} else {
			var err error
			if x, err = bind(o.Child); err != nil {
				return nil, err
			}
		}
		if x.Type().Kind == sqltypes.CalendarInterval {
			return nil, expr.InvalidOrdering(sortOrderSQL(x, o), "sortorder", x.Type())
		}
		keys[i] = logical.SortKey{Expr: x, Descending: o.Descending, NullsFirst: o.NullsFirst}
	}
	return keys, nil
}

// sortOrderSQL is Spark's SQL of a sort order over x: "x ASC NULLS FIRST".
func sortOrderSQL(x expr.Expr, o plan.SortOrder) string {
	s := x.String() + " ASC"
	if o.Descending {
		s = x.String() + " DESC"
	}
	if o.NullsFirst {
		return s + " NULLS FIRST"
	}
	return s + " NULLS LAST"
}

// sortOverProject adds the input columns the sort keys need to the Project, sorts, and
// projects them away.
func (a *Analyzer) sortOverProject(ctx context.Context, n *plan.Sort, p *plan.Project) (*resolved, error) {
	w, err := a.widenProject(ctx, p)
	if err != nil {
		return nil, err
	}
	keys, err := a.bindSortKeys(w.proj, n.Order, w.bind)
	if err != nil {
		return nil, err
	}
	return w.finish(func(wide *resolved) *resolved {
		return a.keepScope(wide, &logical.Sort{Input: wide.node, Keys: keys, Global: n.IsGlobal})
	}), nil
}

// widened is a Project being resolved with room for hidden columns: expressions the
// projection lacks but its input has (Spark's ResolveMissingReferences for ORDER BY and
// filters over a select).
type widened struct {
	a          *Analyzer
	below      *resolved // the Project's input
	proj       *resolved // the Project as written
	exprs      []expr.Expr
	visible    int
	projPlanID int64
}

func (a *Analyzer) widenProject(ctx context.Context, p *plan.Project) (*widened, error) {
	below, err := a.resolve(ctx, p.Input)
	if err != nil {
		return nil, err
	}
	below, exprs, err := a.bindSelect(below, p.Exprs)
	if err != nil {
		return nil, err
	}
	return &widened{a: a, below: below, proj: below.project(exprs).withPlanID(p.PlanID), exprs: exprs,
		visible: len(exprs), projPlanID: p.PlanID}, nil
}

// bind binds e over the Project's output, or else over its input as a hidden column.
func (w *widened) bind(e plan.Expr) (expr.Expr, error) {
	x, err := w.a.binderOver(w.proj).bind(e)
	if err == nil || !isUnresolvedColumn(err) {
		return x, err
	}
	hidden, herr := w.a.binderOver(w.below).bind(e)
	if herr != nil {
		return nil, err
	}
	w.exprs = append(w.exprs, hidden)
	i := len(w.exprs) - 1
	return &expr.Column{Index: i, Name: expr.OutputName(hidden), T: hidden.Type(), Null: hidden.Nullable()}, nil
}

// finish builds op over the widened Project and projects the hidden columns away.
func (w *widened) finish(op func(wide *resolved) *resolved) *resolved {
	wide := w.below.project(w.exprs).withPlanID(w.projPlanID)
	done := op(wide)
	if len(w.exprs) == w.visible {
		return done
	}
	refs := make([]expr.Expr, w.visible)
	for i := range refs {
		refs[i] = done.ref(i)
	}
	return done.project(refs)
}

// sortOverAggregate resolves ORDER BY over [HAVING over] an Aggregate, with keys that may
// call aggregates or name grouping columns not selected.
func (a *Analyzer) sortOverAggregate(ctx context.Context, n *plan.Sort, agg *plan.Aggregate, having *plan.Filter) (*resolved, error) {
	in, err := a.resolve(ctx, agg.Input)
	if err != nil {
		return nil, err
	}
	agg = a.withPythonCalls(agg)
	spec := groupSpec{grouping: agg.Grouping, aggs: agg.Aggs, global: len(agg.Grouping) == 0}
	order := make([]plan.SortOrder, len(n.Order))
	extra := make([]plan.Expr, 0, len(n.Order)+1)
	for i, o := range n.Order {
		order[i] = o
		order[i].Child = a.pythonCalls([]plan.Expr{o.Child})[0]
		extra = append(extra, order[i].Child)
	}
	var havingCond plan.Expr
	if having != nil {
		havingCond = a.pythonCalls([]plan.Expr{having.Condition})[0]
		extra = append(extra, havingCond)
	}
	if in, err = a.pythonBelowAggregate(in, spec, extra...); err != nil {
		return nil, err
	}
	b, err := a.newAggBuild(in, spec, nil)
	if err != nil {
		return nil, err
	}
	if err := b.bindOutputs(); err != nil {
		return nil, err
	}
	var cond expr.Expr
	if having != nil {
		if cond, err = b.bindExtra(havingCond); err != nil {
			return nil, err
		}
		if err := checkBoolean(cond); err != nil {
			return nil, err
		}
	}
	outScope := b.outputScope()
	keys, err := a.bindSortKeys(outScope, order, b.bindExtra)
	if err != nil {
		return nil, err
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	// Ordinal keys reference the select list: rebind them over the Aggregate's output.
	for i, o := range n.Order {
		if lit, ok := asLiteral(o.Child); ok && lit.Type.IsIntegral() && lit.Value != nil {
			keys[i].Expr = b.outputs[toInt(lit.Value)-1]
		}
	}
	var cur logical.Node = b.agg.node
	if cond != nil {
		cur = &logical.Filter{Input: cur, Cond: cond}
	}
	cur = &logical.Sort{Input: cur, Keys: keys, Global: n.IsGlobal}
	out := a.keepScope(b.agg, cur).project(b.outputs).withPlanID(agg.PlanID)
	if having != nil {
		out = out.withPlanID(having.PlanID)
	}
	return out, nil
}

// pythonSortOrder is order with pythonCalls applied to its keys when a key calls a Python
// function, else nil.
func (a *Analyzer) pythonSortOrder(order []plan.SortOrder) []plan.SortOrder {
	out := make([]plan.SortOrder, len(order))
	found := false
	for i, o := range order {
		out[i] = o
		out[i].Child = a.pythonCalls([]plan.Expr{o.Child})[0]
		found = found || hasPythonUDF(out[i].Child)
	}
	if !found {
		return nil
	}
	return out
}

// sortWithPythonUDFs sorts on keys that call Python functions: Sort over the PythonEval nodes
// computing them, then the input's columns (Spark evaluates them in a projection below the
// Sort and drops them above it).
func (a *Analyzer) sortWithPythonUDFs(in *resolved, n *plan.Sort, order []plan.SortOrder) (*resolved, error) {
	es := make([]plan.Expr, len(order))
	for i, o := range order {
		es[i] = o.Child
	}
	wide, err := a.withPythonUDFs(in, es)
	if err != nil {
		return nil, err
	}
	keys, err := a.bindSortKeys(in, order, a.binderOver(wide).bind)
	if err != nil {
		return nil, err
	}
	sorted := a.keepScope(wide, &logical.Sort{Input: wide.node, Keys: keys, Global: n.IsGlobal})
	refs := make([]expr.Expr, len(in.cols))
	for i := range refs {
		refs[i] = sorted.ref(i)
	}
	return sorted.project(refs), nil
}

// orderByAll is Spark's ORDER BY ALL (ResolveOrderByAll): a lone sort item that is the bare name
// ALL, when in has no column of that name, sorts by every output column in order, with the
// item's direction and nulls ordering; it is returned as ordinals.
func (a *Analyzer) orderByAll(in *resolved, order []plan.SortOrder) ([]plan.SortOrder, bool) {
	if len(order) != 1 {
		return nil, false
	}
	ref, ok := order[0].Child.(plan.ColumnRef)
	if !ok || len(ref.Name) != 1 || ref.PlanID != 0 || ref.IsMetadata || !strings.EqualFold(ref.Name[0], "all") {
		return nil, false
	}
	for _, c := range in.cols {
		if a.CaseSensitive && c.name == ref.Name[0] || !a.CaseSensitive && strings.EqualFold(c.name, "all") {
			return nil, false
		}
	}
	out := make([]plan.SortOrder, len(in.cols))
	for i := range in.cols {
		out[i] = order[0]
		out[i].Child = plan.Lit(int32(i+1), sqltypes.IntegerType)
	}
	return out, true
}
