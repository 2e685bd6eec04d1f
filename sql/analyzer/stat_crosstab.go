package analyzer

import (
	"context"

	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveCrosstab resolves df.stat.crosstab(col1, col2) as Spark's StatFunctions.crossTabulate
// builds it: rows grouped by col1 as a string ("null" for NULL) named "col1_col2", pivoted by
// col2 as a string ("null" for NULL, backquotes removed) with its values read from the data,
// each cell the count of the pair, 0 where the pair does not occur.
func (a *Analyzer) resolveCrosstab(ctx context.Context, n *plan.StatFunction) (*resolved, error) {
	call := func(name string, args ...plan.Expr) plan.Expr { return plan.Call{Name: name, Args: args} }
	str := func(s string) plan.Expr { return plan.Literal{Value: s, Type: sqltypes.StringType} }
	c1, c2 := plan.ColumnRef{Name: []string{n.Cols[0]}}, plan.ColumnRef{Name: []string{n.Cols[1]}}
	asString := func(c plan.Expr) plan.Expr { return plan.Cast{Child: c, To: sqltypes.StringType} }
	group := plan.Alias{Child: call("if", call("isnull", c1), str("null"), asString(c1)), Names: []string{n.Cols[0] + "_" + n.Cols[1]}}
	pivot := call("if", call("isnull", c2), str("null"), call("regexp_replace", asString(c2), str("`"), str("")))
	counts := &plan.Aggregate{Input: n.Input, Type: plan.GroupPivot, Grouping: []plan.Expr{group},
		Aggs:     []plan.Expr{plan.Alias{Child: call("count", plan.Literal{Value: int32(1), Type: sqltypes.IntegerType}), Names: []string{"count"}}},
		PivotCol: pivot}
	return a.resolve(ctx, &plan.NAFill{Input: counts, Values: []plan.Literal{{Value: int64(0), Type: sqltypes.LongType}}})
}
