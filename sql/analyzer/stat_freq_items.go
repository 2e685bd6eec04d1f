package analyzer

import (
	"context"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveFreqItems resolves df.stat.freqItems(cols, support) as Spark's
// FrequentItems.singlePassFreqItems: one global aggregate, per column "col_freqItems", the
// items collect_frequent_items keeps with 1/support counters.
func (a *Analyzer) resolveFreqItems(ctx context.Context, n *plan.StatFunction) (*resolved, error) {
	if !(n.Support >= 1e-4 && n.Support <= 1) {
		return nil, sparkerr.IllegalArgument("requirement failed: Support must be in [1e-4, 1], but got %s.", expr.JavaDouble(n.Support, 64))
	}
	size := plan.Literal{Value: int32(1 / n.Support), Type: sqltypes.IntegerType}
	aggs := make([]plan.Expr, len(n.Cols))
	for i, c := range n.Cols {
		aggs[i] = plan.Alias{Child: plan.Call{Name: "collect_frequent_items", Args: []plan.Expr{plan.ColumnRef{Name: []string{c}}, size}},
			Names: []string{c + "_freqItems"}}
	}
	return a.resolve(ctx, &plan.Aggregate{Input: n.Input, Type: plan.GroupBy, Aggs: aggs})
}
