package analyzer

import (
	"context"
	"slices"
	"strings"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/metricview"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
)

// MetricViews is the optional part of a Catalog that holds metric views (CREATE VIEW … WITH
// METRICS): MetricView returns the definition of the metric view n names, found false if n
// names something else or nothing.
type MetricViews interface {
	MetricView(ctx context.Context, n *plan.NamedTable) (v *metricview.View, found bool, err error)
}

// metricSourceColumn is the column of a metric view's expansion that carries the source row,
// a struct the measures' expressions read their columns from.
const metricSourceColumn = "__metric_view_source"

// expandMetricView rewrites an aggregate over a metric view (through filters and an alias)
// into an aggregate over the view's source, as Spark's metric view resolution: the view reads
// as its filtered source projected to its dimensions (by name) and the source row, and each
// measure(m) becomes m's aggregate expression over that row. An aggregate over anything else
// is returned as is.
func (a *Analyzer) expandMetricView(ctx context.Context, n *plan.Aggregate) (*plan.Aggregate, error) {
	if _, ok := a.Catalog.(MetricViews); !ok {
		return n, nil
	}
	in, v, err := a.metricViewInput(ctx, n.Input)
	if err != nil || v == nil {
		return n, err
	}
	out := *n
	out.Input = in
	out.Aggs = make([]plan.Expr, len(n.Aggs))
	for i, e := range n.Aggs {
		x, changed := withMeasures(e, v)
		if changed {
			x = a.keepItemName(e, x, v)
		}
		out.Aggs[i] = x
	}
	out.Grouping = make([]plan.Expr, len(n.Grouping))
	for i, e := range n.Grouping {
		out.Grouping[i], _ = withMeasures(e, v)
	}
	return &out, nil
}

// keepItemName names rewritten, the select item item became, as Spark names item: bound over
// the view's own columns (measure(m) reads its measure column there).
func (a *Analyzer) keepItemName(item, rewritten plan.Expr, v *metricview.View) plan.Expr {
	if _, isAlias := item.(plan.Alias); isAlias {
		return rewritten
	}
	cols := make([]column, len(v.Schema))
	for i, f := range v.Schema {
		cols[i] = column{name: f.Name, typ: f.Type, nullable: f.Nullable}
	}
	item = unqualified(item)
	name := parser.FormatExpr(item)
	b, err := a.newAggBuild(&resolved{cols: cols}, groupSpec{aggs: []plan.Expr{item}, global: true}, nil)
	if err == nil {
		b.windows = a.newWindowSet()
		if err = b.bindOutputs(); err == nil && len(b.outputs) == 1 {
			name = expr.OutputName(b.outputs[0])
		}
	}
	return plan.Alias{Child: rewritten, Names: []string{name}}
}

// metricViewProject resolves a select list with aggregates over a metric view (a DataFrame's
// select of measure(m)) as the global aggregate it is; ok is false for other projects.
func (a *Analyzer) metricViewProject(ctx context.Context, n *plan.Project) (r *resolved, ok bool, err error) {
	if n.Input == nil || !slices.ContainsFunc(n.Exprs, containsAggregate) {
		return nil, false, nil
	}
	if _, v, err := a.metricViewInput(ctx, n.Input); err != nil || v == nil {
		return nil, false, err
	}
	r, err = a.resolveAggregate(ctx, &plan.Aggregate{Input: n.Input, Type: plan.GroupBy, Aggs: n.Exprs})
	return r, true, err
}

// metricViewInput replaces the metric view rel reads (under filters and an alias) with its
// expansion; v is nil when rel reads no metric view.
func (a *Analyzer) metricViewInput(ctx context.Context, rel plan.Relation) (plan.Relation, *metricview.View, error) {
	switch r := rel.(type) {
	case *plan.Filter:
		return a.metricViewUnder(ctx, rel, r.Input, func(in plan.Relation) plan.Relation { c := *r; c.Input = in; return &c })
	case *plan.SubqueryAlias:
		return a.metricViewUnder(ctx, rel, r.Input, func(in plan.Relation) plan.Relation { c := *r; c.Input = in; return &c })
	case *plan.NamedTable:
		if len(r.Name) == 0 {
			return rel, nil, nil
		}
		if _, temp := a.Catalog.TempView(strings.Join(r.Name, ".")); temp {
			return rel, nil, nil
		}
		v, ok, err := a.Catalog.(MetricViews).MetricView(ctx, r)
		if err != nil || !ok {
			return rel, nil, err
		}
		exp, err := a.metricViewExpansion(ctx, v)
		if err != nil {
			return nil, nil, err
		}
		return &plan.SubqueryAlias{Input: exp, Alias: r.Name[len(r.Name)-1]}, v, nil
	}
	return rel, nil, nil
}

// metricViewUnder is metricViewInput of rel, a relation over input: rel over input's
// expansion (by with), or rel itself when input reads no metric view.
func (a *Analyzer) metricViewUnder(ctx context.Context, rel, input plan.Relation, with func(plan.Relation) plan.Relation) (plan.Relation, *metricview.View, error) {
	in, v, err := a.metricViewInput(ctx, input)
	if err != nil || v == nil {
		return rel, nil, err
	}
	return with(in), v, nil
}

// metricViewExpansion is the relation a metric view reads as inside an aggregate: its source,
// filtered, projected to its dimensions and the source row.
func (a *Analyzer) metricViewExpansion(ctx context.Context, v *metricview.View) (plan.Relation, error) {
	src, err := a.resolve(ctx, v.Source)
	if err != nil {
		return nil, err
	}
	var rel plan.Relation = v.Source
	if v.Filter != nil {
		rel = &plan.Filter{Input: rel, Condition: v.Filter}
	}
	exprs := make([]plan.Expr, 0, len(v.Dimensions)+1)
	for _, d := range v.Dimensions {
		exprs = append(exprs, plan.Alias{Child: d.Expr, Names: []string{d.Name}})
	}
	row := make([]plan.Expr, 0, len(src.cols))
	for _, c := range src.cols {
		if !c.hidden {
			row = append(row, plan.Col(c.name))
		}
	}
	exprs = append(exprs, plan.Alias{Child: plan.Fn("struct", row...), Names: []string{metricSourceColumn}})
	return &plan.Project{Input: rel, Exprs: exprs}, nil
}

// withMeasures replaces each measure(m) in e naming a measure of v with m's expression over
// the source row; changed is false when it names none.
func withMeasures(e plan.Expr, v *metricview.View) (out plan.Expr, changed bool) {
	out = parser.RewriteExpr(e, func(x plan.Expr) (plan.Expr, bool) {
		c, ok := x.(plan.Call)
		if !ok || !strings.EqualFold(c.Name, "measure") || len(c.Args) != 1 {
			return nil, false
		}
		ref, ok := c.Args[0].(plan.ColumnRef)
		if !ok || len(ref.Name) == 0 {
			return nil, false
		}
		m, ok := v.Measure(ref.Name[len(ref.Name)-1])
		if !ok {
			return nil, false
		}
		changed = true
		return overSourceRow(m.Expr), true
	})
	return out, changed
}

// overSourceRow makes a measure's column references read the expansion's source row.
func overSourceRow(e plan.Expr) plan.Expr {
	return parser.RewriteExpr(e, func(x plan.Expr) (plan.Expr, bool) {
		ref, ok := x.(plan.ColumnRef)
		if !ok {
			return nil, false
		}
		ref.Name = append([]string{metricSourceColumn}, ref.Name...)
		return ref, true
	})
}

// unqualified is e with its column references' qualifiers dropped, as Spark's pretty names
// print them.
func unqualified(e plan.Expr) plan.Expr {
	return parser.RewriteExpr(e, func(x plan.Expr) (plan.Expr, bool) {
		ref, ok := x.(plan.ColumnRef)
		if !ok || len(ref.Name) < 2 {
			return nil, false
		}
		ref.Name = ref.Name[len(ref.Name)-1:]
		return ref, true
	})
}
