package planner

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// partialAggregate plans a batch aggregate whose functions all split (expr.SplitAggregate) as
// a partial aggregation on each input partition, before the exchange, and the final one after
// it: only one row per group and partition crosses the exchange. The partial aggregate runs in
// its input's partitions, so the final one sees its groups' first rows in the order the plain
// aggregate would (aggregate_order.go). ok is false when some function does not split (or the
// plan is streaming: its aggregates retract and keep state); nothing is planned then.
func (b *builder) partialAggregate(spec operators.AggregateSpec, in *flow.Node, schema *arrow.Schema) (*flow.Node, bool) {
	if b.opts.Streaming || spec.Streaming {
		return nil, false
	}
	nk := len(spec.KeyCols)
	final := operators.AggregateSpec{KeyTypes: spec.KeyTypes, TZ: spec.TZ}
	var partialSchema sqltypes.Schema
	for i, t := range spec.KeyTypes {
		final.KeyCols = append(final.KeyCols, i)
		partialSchema = append(partialSchema, sqltypes.Field{Name: keyName(i), Type: t, Nullable: true})
	}
	partial := spec
	partial.Aggs = nil
	for _, f := range spec.Aggs {
		parts, g, ok := expr.SplitAggregate(f, len(partialSchema))
		if !ok {
			return nil, false
		}
		final.Aggs = append(final.Aggs, g)
		for _, p := range parts {
			partial.Aggs = append(partial.Aggs, p)
			partialSchema = append(partialSchema, sqltypes.Field{Name: fmt.Sprintf("_partial%d", len(partialSchema)), Type: p.Type(), Nullable: true})
		}
	}
	arrowSchema := flow.EventSchema(sqltypes.ToArrowSchema(partialSchema, b.tz))
	pre := b.node("PartialAggregate", in.Parallelism, arrowSchema, operators.HashAggregate(b.ctx, partial), forward(in))
	if nk == 0 {
		return b.node("Aggregate", 1, schema, operators.HashAggregate(b.ctx, final),
			flow.Input{From: pre, Exchange: flow.Gather}), true
	}
	return b.node("Aggregate", b.opts.Partitions, schema, operators.HashAggregate(b.ctx, final),
		b.hashed(pre, columns(partialSchema, final.KeyCols))), true
}

// distinctAggregate plans a batch global aggregate whose functions are all DISTINCT over the
// same argument x (count(DISTINCT x), sum(DISTINCT x)…) in two steps, as Spark does: group by
// x (deduplicating per partition before a hash exchange on x, so every partition dedups its
// part), then the plain functions over the distinct values. Grouped aggregates keep the
// one-step plan, whose group order (aggregate_order.go) a regrouping would change.
func (b *builder) distinctAggregate(n *logical.Aggregate, in *flow.Node, schema *arrow.Schema) (*flow.Node, bool, error) {
	if b.opts.Streaming || len(n.Groups) > 0 || len(n.Aggs) == 0 {
		return nil, false, nil
	}
	x := n.Aggs[0].Args()
	distinct := false
	for _, f := range n.Aggs {
		if !f.Distinct() && !expr.IgnoresDuplicates(f) || len(f.Args()) != 1 || len(x) != 1 || f.Args()[0].String() != x[0].String() {
			return nil, false, nil
		}
		distinct = distinct || f.Distinct()
	}
	if !distinct {
		// min and max alone split into partial aggregates instead.
		return nil, false, nil
	}
	inner := &logical.Aggregate{Input: n.Input, Groups: []expr.Expr{x[0]}}
	arg := &expr.Column{Index: 0, Name: inner.Schema()[0].Name, T: x[0].Type(), Null: true}
	outer := &logical.Aggregate{Input: inner, Names: n.Names}
	for _, f := range n.Aggs {
		g, ok := expr.OverDistinct(f, arg)
		if !ok {
			return nil, false, nil
		}
		outer.Aggs = append(outer.Aggs, g)
	}
	dedup, err := b.aggregate(inner, in, b.schema(inner))
	if err != nil {
		return nil, false, err
	}
	node, err := b.aggregate(outer, dedup, schema)
	return node, err == nil, err
}
