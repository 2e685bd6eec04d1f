package analyzer

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveUnpivot resolves df.unpivot as the ids then stack(n, name1, value1, …) AS
// (variable, value): per input row one row per value column, in the value columns' order,
// the value column's output name as the variable. Without values, every column that is not an
// id column is a value. Spark's errors: UNPIVOT_REQUIRES_VALUE_COLUMNS when no value column
// is left, UNPIVOT_VALUE_DATA_TYPE_MISMATCH when the values share no common type.
func (a *Analyzer) resolveUnpivot(ctx context.Context, n *plan.Unpivot) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	_, ids, err := a.bindSelect(in, n.Ids)
	if err != nil {
		return nil, err
	}
	values := n.Values
	if values == nil {
		isID := map[int]bool{}
		for _, e := range ids {
			if c, ok := e.(*expr.Column); ok {
				isID[c.Index] = true
			}
		}
		for i, c := range in.cols {
			if !isID[i] {
				values = append(values, plan.ColumnRef{Name: []string{c.name}})
			}
		}
	}
	if len(values) == 0 {
		return nil, sparkerr.Analysis("UNPIVOT_REQUIRES_VALUE_COLUMNS", "42K0A",
			"At least one value column needs to be specified for UNPIVOT, all columns specified as ids.")
	}
	_, bound, err := a.bindSelect(in, values)
	if err != nil {
		return nil, err
	}
	// Spark's UnpivotCoercion widens without string promotion
	// (findWiderTypeWithoutStringPromotion): strings mix only with strings.
	common := bound[0].Type()
	for _, b := range bound[1:] {
		t, ok := expr.CommonType(common, b.Type())
		if (common.Kind == sqltypes.String) != (b.Type().Kind == sqltypes.String) {
			ok = false
		}
		if !ok {
			types := make([]string, len(bound))
			for i, b := range bound {
				types[i] = `"` + strings.ToUpper(b.Type().String()) + `"`
			}
			return nil, sparkerr.Analysis("UNPIVOT_VALUE_DATA_TYPE_MISMATCH", "42K09",
				"Unpivot value columns must share a least common type, some types do not: [%s].", strings.Join(types, ", "))
		}
		common = t
	}
	args := []plan.Expr{plan.Literal{Value: int32(len(values)), Type: sqltypes.IntegerType}}
	for i, v := range values {
		v = stripPlanAlias(v)
		if !bound[i].Type().Equal(common) {
			v = plan.Cast{Child: v, To: common}
		}
		args = append(args, plan.Literal{Value: expr.OutputName(bound[i]), Type: sqltypes.StringType}, v)
	}
	items := append(append([]plan.Expr(nil), n.Ids...),
		plan.Alias{Child: plan.Call{Name: "stack", Args: args}, Names: []string{n.VariableName, n.ValueName}})
	out, exprs, err := a.bindSelect(in, items)
	if err != nil {
		return nil, err
	}
	return out.project(exprs), nil
}
