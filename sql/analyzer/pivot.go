package analyzer

import (
	"context"
	"fmt"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolvePivot resolves groupBy(…).pivot(col, values).agg(…): one aggregate per pivot value
// and aggregate expression, each fed only the rows whose pivot column equals (null-safely) the
// value. Output: the grouping columns, then per value the aggregates, named by the value (one
// aggregate) or value_aggregate (several), as Spark names them.
func (a *Analyzer) resolvePivot(in *resolved, n *plan.Aggregate) (*resolved, error) {
	if n.PivotCol == nil {
		return nil, sparkerr.IllegalArgument("pivot needs a pivot column")
	}
	if len(n.PivotValues) == 0 {
		return nil, sparkerr.Internal("analyzer: pivot without values reached resolvePivot")
	}
	for _, e := range n.Aggs {
		if !containsAggregate(e) {
			return nil, sparkerr.Analysis("", "",
				"Aggregate expression required for pivot, but %s did not appear in any aggregate function.",
				planExprSQL(e))
		}
	}
	// The grouping columns come first: bind them as select items.
	spec := groupSpec{grouping: n.Grouping, aggs: append([]plan.Expr{}, n.Grouping...)}
	in, err := a.pythonBelowAggregate(in, spec, n.Aggs...)
	if err != nil {
		return nil, err
	}
	pivotCol, err := a.binderOver(in).bind(n.PivotCol)
	if err != nil {
		return nil, err
	}
	b, err := a.newAggBuild(in, spec, nil)
	if err != nil {
		return nil, err
	}
	if err := b.bindOutputs(); err != nil {
		return nil, err
	}
	single := len(n.Aggs) == 1
	for _, v := range n.PivotValues {
		value := expr.NewLiteral(v.Value, v.Type)
		guard, err := expr.Bind("<=>", []expr.Expr{pivotCol, value}, a.Options)
		if err != nil {
			return nil, err
		}
		b.pivotGuard = guard
		valueName, err := a.pivotValueName(value)
		if err != nil {
			return nil, err
		}
		bd := b.binder()
		for _, item := range n.Aggs {
			x, err := bd.bind(item)
			if err != nil {
				return nil, err
			}
			name := valueName
			if !single {
				name += "_" + aggregateItemName(item, x)
			}
			b.outputs = append(b.outputs, &expr.Alias{Child: trimAlias(x), Name: name})
		}
	}
	b.pivotGuard = nil
	if err := b.finish(); err != nil {
		return nil, err
	}
	return b.agg.project(b.outputs), nil
}

// withPivotValues returns n with the pivot values Spark's RelationalGroupedDataset.pivot(col)
// computes when none are given: the distinct values of the pivot column over n's input,
// ascending (NULL first), found by running that query while the plan is analyzed; more than
// spark.sql.pivotMaxValues of them is an error, and so is a streaming input.
func (a *Analyzer) withPivotValues(ctx context.Context, in *resolved, n *plan.Aggregate) (*plan.Aggregate, error) {
	if logical.IsStreaming(in.node) {
		return nil, sparkerr.Analysis("", "", "pivot is not supported on a streaming DataFrames/Datasets")
	}
	if a.Collect == nil {
		return nil, sparkerr.Unsupported("pivot without explicit values needs to read the data; pass the values to pivot(col, values)")
	}
	limit := a.PivotMaxValues
	if limit <= 0 {
		limit = 10000
	}
	const name = "__pivot_value"
	values := &plan.Sort{IsGlobal: true, Order: []plan.SortOrder{{Child: plan.ColumnRef{Name: []string{name}}, NullsFirst: true}},
		Input: &plan.Limit{N: int64(limit) + 1, Input: &plan.Deduplicate{AllColumns: true,
			Input: &plan.Project{Input: n.Input, Exprs: []plan.Expr{plan.Alias{Child: n.PivotCol, Names: []string{name}}}}}}}
	r, err := a.resolve(ctx, values)
	if err != nil {
		return nil, err
	}
	rows, err := a.Collect(ctx, r.node, limit+1)
	if err != nil {
		return nil, err
	}
	if len(rows) > limit {
		name := parser.FormatExpr(n.PivotCol)
		if x, err := a.binderOver(in).bind(n.PivotCol); err == nil {
			name = expr.OutputName(x)
		}
		return nil, sparkerr.Analysis("", "",
			"The pivot column %s has more than %d distinct values, this could indicate an error. If this was intended, set spark.sql.pivotMaxValues to at least the number of distinct values of the pivot column.",
			name, limit)
	}
	t := r.cols[0].typ
	out := *n
	out.PivotValues = make([]plan.Literal, len(rows))
	for i, row := range rows {
		out.PivotValues[i] = plan.Literal{Value: row[0], Type: t}
	}
	return &out, nil
}

// pivotValueName is the value cast to string, "null" for NULL.
func (a *Analyzer) pivotValueName(v expr.Expr) (string, error) {
	s, err := expr.NewCast(v, sqltypes.StringType, plan.CastLegacy, a.Options)
	if err != nil {
		return "", err
	}
	val, err := a.evalConst(s)
	if err != nil {
		return "", err
	}
	if val == nil {
		return "null", nil
	}
	return fmt.Sprint(val), nil
}

// aggregateItemName is an aggregate expression's alias, or its Spark rendering.
func aggregateItemName(item plan.Expr, bound expr.Expr) string {
	if al, ok := asAlias(item); ok && len(al.Names) == 1 {
		return al.Names[0]
	}
	return expr.OutputName(trimAlias(bound))
}
