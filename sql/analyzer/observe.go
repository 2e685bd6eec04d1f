package analyzer

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// resolveCollectMetrics resolves df.observe(name, *metrics): the input unchanged under a
// logical.CollectMetrics whose metrics are bound as a global aggregation over the input. The
// metrics are checked as Spark's CheckAnalysis checks CollectMetrics
// (INVALID_OBSERVED_METRICS.*): a column only inside an aggregate function, no DISTINCT or
// FILTER aggregate, no window function.
func (a *Analyzer) resolveCollectMetrics(ctx context.Context, n *plan.CollectMetrics) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	for _, m := range n.Metrics {
		if err := checkObservedMetric(m, false); err != nil {
			return nil, err
		}
	}
	agg, err := a.resolveGrouped(ctx, in, groupSpec{aggs: n.Metrics, global: true})
	if err != nil {
		return nil, err
	}
	out := &logical.CollectMetrics{Input: in.node, Name: n.Name}
	var ag *logical.Aggregate
	switch x := agg.node.(type) {
	case *logical.Aggregate:
		ag = x
		for i, f := range x.Schema() {
			out.Metrics = append(out.Metrics, &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable})
		}
	case *logical.Project:
		ag, _ = x.Input.(*logical.Aggregate)
		out.Metrics = x.Exprs
	}
	if ag == nil || ag.Input != in.node || len(ag.Groups) != 0 {
		return nil, sparkerr.Internal("analyzer: observed metrics %s did not bind to one global aggregation", n.Name)
	}
	out.Aggs = ag.Aggs
	return a.keepScope(in, out), nil
}

// checkObservedMetric applies Spark's INVALID_OBSERVED_METRICS rules to a metric expression;
// inAgg is set below an aggregate function call.
func checkObservedMetric(e plan.Expr, inAgg bool) error {
	if _, isWindow := windowParts(e); isWindow {
		return invalidObservedMetrics("WINDOW_EXPRESSIONS_UNSUPPORTED",
			"Window expression %s cannot be used in observed metrics.", planExprSQL(e))
	}
	if c, ok := asCall(e); ok && expr.IsAggregate(strings.ToLower(c.Name)) {
		if inAgg {
			return invalidObservedMetrics("NESTED_AGGREGATES_UNSUPPORTED", "Cannot compute nested aggregates.")
		}
		if c.Distinct {
			return invalidObservedMetrics("AGGREGATE_EXPRESSION_WITH_DISTINCT_UNSUPPORTED",
				"Aggregate expression with distinct %s cannot be used in observed metrics.", planExprSQL(e))
		}
		if c.Filter != nil {
			return invalidObservedMetrics("AGGREGATE_EXPRESSION_WITH_FILTER_UNSUPPORTED",
				"Aggregate expression with FILTER predicate %s cannot be used in observed metrics.", planExprSQL(e))
		}
		inAgg = true
	}
	if !inAgg {
		if ref, ok := asColumnRef(e); ok {
			return invalidObservedMetrics("NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE",
				"Attribute %s can only be used as an argument to an aggregate function.", `"`+strings.Join(ref.Name, ".")+`"`)
		}
		if _, ok := asStar(e); ok {
			return invalidObservedMetrics("NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE",
				"Attribute %s can only be used as an argument to an aggregate function.", planExprSQL(e))
		}
	}
	for _, c := range planChildren(e) {
		if err := checkObservedMetric(c, inAgg); err != nil {
			return err
		}
	}
	return nil
}

func invalidObservedMetrics(sub, format string, args ...any) *sparkerr.Error {
	return sparkerr.Analysis("INVALID_OBSERVED_METRICS."+sub, "42K0E", "Invalid observed metrics. "+format, args...)
}
