package planner

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	"github.com/weirhq/weir/state"
)

// aggregate plans a hash aggregation: grouping expressions become columns (a projection
// appends the ones that are not plain columns), the input is hash-partitioned on them, and each
// partition aggregates its groups. Without grouping the input gathers into one partition.
func (b *builder) aggregate(n *logical.Aggregate, in *flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	return b.aggregateWhere(n, in, schema, nil)
}

// aggregateWhere is aggregate with the input rows first filtered by where (nil: all rows; see
// fusedFilter).
func (b *builder) aggregateWhere(n *logical.Aggregate, in *flow.Node, schema *arrow.Schema, where expr.Expr) (*flow.Node, error) {
	if pos, w, ok := sessionKey(n); ok {
		return b.sessionAggregate(n, pos, w, in, schema)
	}
	n, in, err := b.expandSlidingWindow(n, in)
	if err != nil {
		return nil, err
	}
	spec := operators.AggregateSpec{Aggs: n.Aggs, TZ: b.tz, Streaming: b.opts.Streaming,
		Complete: b.opts.OutputMode == flow.OutputComplete, Filter: where}
	if b.opts.Streaming {
		if spec.Budget, err = state.BudgetFromConf(b.opts.Conf); err != nil {
			return nil, err
		}
		if spec.Budget.Limited() {
			for _, f := range n.Aggs {
				if err := expr.CheckGroupState(b.ctx, f); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, g := range n.Groups {
		spec.KeyTypes = append(spec.KeyTypes, g.Type())
	}
	if len(n.Groups) == 0 {
		if in.Parallelism > 1 {
			if node, ok := b.partialAggregate(spec, in, schema); ok {
				return node, nil
			}
		}
		in, spec = b.unfuseFilter(in, spec)
		return b.observeAggregate(b.node("Aggregate", 1, schema, operators.HashAggregate(b.ctx, spec),
			flow.Input{From: in, Exchange: flow.Gather}), n, spec), nil
	}
	b.eventTimeAggregate(n, &spec)
	inSchema := n.Input.Schema()
	plain := true
	for _, g := range n.Groups {
		if c, ok := g.(*expr.Column); ok {
			spec.KeyCols = append(spec.KeyCols, c.Index)
		} else {
			plain = false
		}
	}
	if !plain {
		// Keep the input columns (aggregate arguments refer to them) and append the keys.
		exprs := columns(inSchema, allColumns(len(inSchema)))
		spec.KeyCols = spec.KeyCols[:0]
		for i, g := range n.Groups {
			spec.KeyCols = append(spec.KeyCols, len(inSchema)+i)
			exprs = append(exprs, &expr.Alias{Child: g, Name: keyName(i)})
		}
		pre := &logical.Project{Input: n.Input, Exprs: exprs}
		in = b.node("Project", in.Parallelism, b.schema(pre), operators.Project(b.ctx, exprs), forward(in))
		inSchema = pre.Schema()
	}
	if node, ok := b.partialAggregate(spec, in, schema); ok {
		return node, nil
	}
	in, spec = b.unfuseFilter(in, spec)
	return b.observeAggregate(b.node("Aggregate", b.opts.Partitions, schema, operators.HashAggregate(b.ctx, spec),
		b.hashed(in, columns(inSchema, spec.KeyCols))), n, spec), nil
}

func keyName(i int) string { return fmt.Sprintf("_groupingexpression%d", i) }

// limit plans LIMIT/OFFSET: each partition keeps at most offset+n rows, then the partitions are
// concatenated in order and the global limit applies.
func (b *builder) limit(n *logical.Limit, in *flow.Node, schema *arrow.Schema) *flow.Node {
	if in.Parallelism > 1 && n.N >= 0 {
		in = b.node("LocalLimit", in.Parallelism, schema, operators.Limit(n.N+n.Offset, 0), forward(in))
	}
	return b.node("GlobalLimit", 1, schema, operators.Limit(n.N, n.Offset), forward(b.single(in)))
}

// topN plans LIMIT over a global sort (ORDER BY … LIMIT n) as a top-N: each input partition
// keeps its first offset+n rows in order, their ordered gather keeps the first offset+n of
// those (ties: earlier partition, then earlier row, as the stable global sort orders them) and
// emits them from offset on.
func (b *builder) topN(n *logical.Limit, s *logical.Sort) (*flow.Node, error) {
	in, err := b.plan(s.Input)
	if err != nil {
		return nil, err
	}
	schema := b.schema(n)
	keys := make([]operators.SortKey, len(s.Keys))
	for i, k := range s.Keys {
		keys[i] = operators.SortKey{Expr: k.Expr, Descending: k.Descending, NullsFirst: k.NullsFirst}
	}
	if in.Parallelism > 1 {
		in = b.node("LocalTopN", in.Parallelism, schema, operators.TopN(b.ctx, keys, n.N+n.Offset, 0), forward(in))
	}
	return b.node("TopN", 1, schema, operators.TopN(b.ctx, keys, n.N, n.Offset), forward(b.single(in))), nil
}

// broadcastsRight reports whether a join's right side is hinted (or chosen by the optimizer) for broadcast and the join may
// build it in every partition of the left: a join that emits no unmatched right rows.
func broadcastsRight(n *logical.Join) bool {
	switch n.Type {
	case plan.InnerJoin, plan.CrossJoin, plan.LeftOuterJoin, plan.LeftSemiJoin, plan.LeftAntiJoin:
		return n.RightHint == "broadcast" || n.BroadcastRight
	}
	return false
}

// join plans a join: equi-joins hash-partition both sides on their keys (a batch join whose
// right side is hinted for broadcast keeps the left's partitions and broadcasts the right); joins without keys
// broadcast the right side to the left's partitions, except right and full outer joins, whose
// unmatched right rows must be decided in one place: both sides gather to one partition.
func (b *builder) join(n *logical.Join, left, right *flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	spec := operators.JoinSpec{Type: n.Type, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Residual: n.Residual,
		LeftSchema: left.Schema, RightSchema: right.Schema}
	switch {
	case n.BuildLeft && len(n.LeftKeys) > 0 && !b.opts.Streaming:
		// The optimizer chose to hold the semi join's left side and stream the right past it:
		// the right side is the operator's probe input (0), the left its build input (1); both
		// hash-partitioned, so that each left row is decided in one partition.
		spec.BuildLeft = true
		spec.LeftKeys, spec.RightKeys = n.RightKeys, n.LeftKeys
		spec.LeftSchema, spec.RightSchema = right.Schema, left.Schema
		return b.node("HashJoin", b.opts.Partitions, schema, operators.HashJoin(b.ctx, spec),
			b.hashed(right, n.RightKeys), b.hashed(left, n.LeftKeys)), nil
	}
	f := operators.HashJoin(b.ctx, spec)
	switch {
	case len(n.LeftKeys) > 0 && broadcastsRight(n) && !b.opts.Streaming:
		// Hinted for broadcast (df.hint("broadcast"), /*+ BROADCAST(t) */): the left side keeps
		// its partitions and every one of them builds the whole right side.
		return b.node("BroadcastHashJoin", left.Parallelism, schema, f, forward(left),
			flow.Input{From: right, Exchange: flow.Broadcast}), nil
	case len(n.LeftKeys) > 0:
		return b.node("HashJoin", b.opts.Partitions, schema, f,
			b.hashed(left, n.LeftKeys), b.hashed(right, n.RightKeys)), nil
	case n.Type == plan.RightOuterJoin || n.Type == plan.FullOuterJoin:
		return b.node("NestedLoopJoin", 1, schema, f,
			flow.Input{From: left, Exchange: flow.Gather}, flow.Input{From: right, Exchange: flow.Gather}), nil
	}
	return b.node("NestedLoopJoin", left.Parallelism, schema, f,
		forward(left), flow.Input{From: right, Exchange: flow.Broadcast}), nil
}

// filteredProject plans a Project over a Filter as one chain in which the filter copies only
// the columns the projection reads (operators.FilterKeeping): a filter on a column the query
// then drops does not gather it for the rows it keeps.
func (b *builder) filteredProject(p *logical.Project, f *logical.Filter) (*flow.Node, error) {
	in, err := b.plan(f.Input)
	if err != nil {
		return nil, err
	}
	keep := make([]bool, len(f.Schema()))
	all := true
	for _, e := range p.Exprs {
		for c := range expr.ColumnsOf(e, nil) {
			keep[c] = true
		}
	}
	for _, k := range keep {
		all = all && k
	}
	if all {
		keep = nil
	}
	filtered := b.stateless("Filter", in, b.schema(f), operators.FilterKeeping(b.ctx, f.Cond, keep))
	return b.project(p, filtered, b.schema(p))
}
