package analyzer

import (
	"fmt"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
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
		return nil, sparkerr.Unsupported("pivot without explicit values is not supported yet; pass the values to pivot(col, values)")
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
