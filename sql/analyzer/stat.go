package analyzer

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveStatFunction resolves a df.stat function as Spark's StatFunctions computes it, as
// one global aggregation over the input:
//   - corr / cov: the Pearson correlation / sample covariance of the two columns cast to
//     double, NULLs counted as 0.0 (StatFunctions.collectStatisticalData fills them so), one
//     row in column "corr" / "cov";
//   - approxQuantile: per column (cast to double, NULL and NaN ignored) the value at rank
//     max(1, ceil(p·n)) of the n sorted values for each probability p: exact, so within any
//     relativeError (Spark's Greenwald-Khanna summary answers exactly at relativeError 0 and
//     on small inputs), an empty array for a column without values; one row in column
//     "approx_quantile" (array<array<double>>). The values of every column are held in memory.
func (a *Analyzer) resolveStatFunction(ctx context.Context, n *plan.StatFunction) (*resolved, error) {
	switch n.Kind {
	case plan.StatSummary:
		return a.resolveStatSummary(ctx, n)
	case plan.StatCrosstab:
		return a.resolveCrosstab(ctx, n)
	case plan.StatFreqItems:
		return a.resolveFreqItems(ctx, n)
	case plan.StatSampleBy:
		return a.resolveSampleBy(ctx, n)
	}
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	doubles := make([]plan.Expr, len(n.Cols))
	for i, name := range n.Cols {
		ref := plan.ColumnRef{Name: []string{name}}
		_, bound, err := a.bindSelect(in, []plan.Expr{ref})
		if err != nil {
			return nil, err
		}
		if t := bound[0].Type(); !t.IsNumeric() {
			return nil, statTypeError(n.Kind, name, t)
		}
		doubles[i] = plan.Cast{Child: ref, To: sqltypes.DoubleType}
	}
	call := func(name string, args ...plan.Expr) plan.Expr { return plan.Call{Name: name, Args: args} }
	alias := func(e plan.Expr, name string) plan.Expr { return plan.Alias{Child: e, Names: []string{name}} }
	zero := plan.Literal{Value: 0.0, Type: sqltypes.DoubleType}
	switch n.Kind {
	case plan.StatCorr, plan.StatCov:
		if len(n.Cols) != 2 {
			return nil, sparkerr.IllegalArgument("requirement failed: Currently %s calculation is supported between two columns.", statName(n.Kind))
		}
		if n.Kind == plan.StatCorr && n.Method != "pearson" {
			return nil, sparkerr.IllegalArgument("requirement failed: Currently only the calculation of the Pearson Correlation coefficient is supported.")
		}
		fn, out := "corr", "corr"
		if n.Kind == plan.StatCov {
			fn, out = "covar_samp", "cov"
		}
		agg := alias(call(fn, call("coalesce", doubles[0], zero), call("coalesce", doubles[1], zero)), out)
		return a.resolveGrouped(ctx, in, groupSpec{aggs: []plan.Expr{agg}, global: true})
	case plan.StatApproxQuantile:
		if n.RelativeError < 0 {
			return nil, sparkerr.IllegalArgument("requirement failed: Relative Error must be non-negative but got %s", formatDouble(n.RelativeError))
		}
		for _, p := range n.Probabilities {
			if !(p >= 0 && p <= 1) {
				return nil, sparkerr.IllegalArgument("requirement failed: percentile should be in the range [0.0, 1.0]")
			}
		}
		// First the sorted values of each column, then the ranks of the probabilities in them.
		sorted := make([]plan.Expr, len(doubles))
		for i, d := range doubles {
			notNaN := plan.Lambda{Params: []string{"x"}, Body: call("not", call("isnan", plan.LambdaVar{Name: "x"}))}
			sorted[i] = alias(call("array_sort", call("filter", call("collect_list", d), notNaN)), fmt.Sprintf("sorted%d", i))
		}
		values, err := a.resolveGrouped(ctx, in, groupSpec{aggs: sorted, global: true})
		if err != nil {
			return nil, err
		}
		probs := make([]plan.Expr, len(n.Probabilities))
		for i, p := range n.Probabilities {
			probs[i] = plan.Literal{Value: p, Type: sqltypes.DoubleType}
		}
		empty := plan.Cast{Child: call("array"), To: sqltypes.ArrayType(sqltypes.DoubleType, true)}
		cols := make([]plan.Expr, len(doubles))
		for i := range doubles {
			s := plan.ColumnRef{Name: []string{fmt.Sprintf("sorted%d", i)}}
			p := plan.LambdaVar{Name: "p"}
			rank := plan.Cast{Child: call("greatest", plan.Literal{Value: int64(1), Type: sqltypes.LongType},
				call("ceil", call("*", p, call("size", s)))), To: sqltypes.IntegerType}
			at := plan.Lambda{Params: []string{"p"}, Body: call("element_at", s, rank)}
			cols[i] = call("if", call("=", call("size", s), plan.Literal{Value: int32(0), Type: sqltypes.IntegerType}),
				empty, call("transform", call("array", probs...), at))
		}
		values, exprs, err := a.bindSelect(values, []plan.Expr{alias(call("array", cols...), "approx_quantile")})
		if err != nil {
			return nil, err
		}
		return values.project(exprs), nil
	}
	return nil, sparkerr.Internal("analyzer: unknown stat function %d", n.Kind)
}

func statName(k plan.StatKind) string {
	if k == plan.StatCov {
		return "covariance"
	}
	return "correlation"
}

// statTypeError is Spark's requirement on the columns of a stat function: numeric.
func statTypeError(k plan.StatKind, col string, t sqltypes.DataType) error {
	if k == plan.StatApproxQuantile {
		return sparkerr.IllegalArgument("requirement failed: Quantile calculation for column %s with data type %s is not supported.",
			col, sparkTypeName(t))
	}
	return sparkerr.IllegalArgument("requirement failed: Currently %s calculation for columns with dataType %s not supported.",
		statName(k), t.String())
}

// formatDouble renders a double as Scala's Double.toString does for ordinary values (-1.0).
func formatDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eEIN") {
		s += ".0"
	}
	return s
}

// sparkTypeName is a type as Scala's DataType.toString renders it ("StringType"), for the
// atomic types; others as their SQL name.
func sparkTypeName(t sqltypes.DataType) string {
	names := map[sqltypes.Kind]string{sqltypes.Null: "NullType", sqltypes.Boolean: "BooleanType", sqltypes.String: "StringType",
		sqltypes.Binary: "BinaryType", sqltypes.Date: "DateType", sqltypes.Timestamp: "TimestampType",
		sqltypes.TimestampNTZ: "TimestampNTZType"}
	if n, ok := names[t.Kind]; ok {
		return n
	}
	return t.String()
}
