package planner

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sql/expr"
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
	skip := operators.DefaultSkipPartial
	partial.SkipPartial = &skip
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
