package planner

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// fusedFilter returns the filter directly below a batch aggregate that the aggregate can apply
// itself (operators.AggregateSpec.Filter): the aggregate is global or grouped by plain
// columns (grouping expressions would be projected before the aggregate, over rows the filter
// drops) and not a session window. The filter then costs no operator of its own, and a count
// of the rows it keeps copies none of them.
func (b *builder) fusedFilter(n *logical.Aggregate) (*logical.Filter, bool) {
	f, ok := n.Input.(*logical.Filter)
	if !ok || b.opts.Streaming {
		return nil, false
	}
	if _, _, session := sessionKey(n); session {
		return nil, false
	}
	for _, g := range n.Groups {
		if _, plain := g.(*expr.Column); !plain {
			return nil, false
		}
	}
	return f, true
}

// filteredAggregate plans aggregate n over its input's input, the filter f fused into it.
func (b *builder) filteredAggregate(n *logical.Aggregate, f *logical.Filter, schema *arrow.Schema) (*flow.Node, error) {
	in, err := b.plan(f.Input)
	if err != nil {
		return nil, err
	}
	return b.aggregateWhere(n, in, schema, f.Cond)
}

// unfuseFilter plans spec's fused filter as an operator of its own over in again, for an
// aggregate that is not split into a partial one: the aggregate would otherwise run after an
// exchange, which would then move the rows the filter drops.
func (b *builder) unfuseFilter(in *flow.Node, spec operators.AggregateSpec) (*flow.Node, operators.AggregateSpec) {
	if spec.Filter == nil {
		return in, spec
	}
	in = b.stateless("Filter", in, in.Schema, operators.Filter(b.ctx, spec.Filter))
	spec.Filter = nil
	return in, spec
}
