package analyzer

import (
	"context"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveStatSummary resolves df.summary(*statistics) and df.describe(*cols) (summary's count,
// mean, stddev, min and max of cols) as Spark's StatFunctions.summary builds them: per numeric
// or string column one global aggregate, a map from each statistic's name to its value cast to
// string (string columns try-cast to double for mean, stddev and the percentiles; count, min
// and max of the column itself; percentiles from one percentile_approx per column); then one
// row per statistic, in the order given: "summary" and each column's value. Without numeric or
// string columns, only the "summary" column.
func (a *Analyzer) resolveStatSummary(ctx context.Context, n *plan.StatFunction) (*resolved, error) {
	input := n.Input
	if len(n.Cols) > 0 { // describe(cols): select them first
		cols := make([]plan.Expr, len(n.Cols))
		for i, c := range n.Cols {
			cols[i] = plan.ColumnRef{Name: []string{c}}
		}
		input = &plan.Project{Input: input, Exprs: cols}
	}
	in, err := a.resolve(ctx, input)
	if err != nil {
		return nil, err
	}
	var percentiles []plan.Expr
	for _, s := range n.Statistics {
		if !strings.HasSuffix(s, "%") {
			continue
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
		if err != nil {
			return nil, unrecognizedStatistic(s)
		}
		percentiles = append(percentiles, plan.Literal{Value: p / 100, Type: sqltypes.DoubleType})
	}
	for _, p := range percentiles {
		if v := p.(plan.Literal).Value.(float64); !(v >= 0 && v <= 1) {
			return nil, sparkerr.IllegalArgument("requirement failed: Percentiles must be in the range [0, 1]")
		}
	}
	for _, s := range n.Statistics {
		switch strings.ToLower(s) {
		case "count", "count_distinct", "approx_count_distinct", "mean", "stddev", "min", "max":
		default:
			if !strings.HasSuffix(s, "%") {
				return nil, unrecognizedStatistic(s)
			}
		}
	}
	call := func(name string, args ...plan.Expr) plan.Expr { return plan.Call{Name: name, Args: args} }
	str := func(e plan.Expr) plan.Expr { return plan.Cast{Child: e, To: sqltypes.StringType} }
	lit := func(s string) plan.Expr { return plan.Literal{Value: s, Type: sqltypes.StringType} }
	var maps, values []plan.Expr
	for _, c := range in.cols {
		if !c.typ.IsNumeric() && c.typ.Kind != sqltypes.String {
			continue
		}
		column := plan.Expr(plan.ColumnRef{Name: []string{c.name}})
		casted := column
		if c.typ.Kind == sqltypes.String {
			casted = plan.Cast{Child: column, To: sqltypes.DoubleType, Mode: plan.CastTry}
		}
		var entries []plan.Expr
		next := 0
		for _, s := range n.Statistics {
			var v plan.Expr
			switch strings.ToLower(s) {
			case "count":
				v = call("count", column)
			case "count_distinct":
				v = plan.Call{Name: "count", Args: []plan.Expr{column}, Distinct: true}
			case "approx_count_distinct":
				v = call("approx_count_distinct", column)
			case "mean":
				v = call("avg", casted)
			case "stddev":
				v = call("stddev", casted)
			case "min":
				v = call("min", column)
			case "max":
				v = call("max", column)
			default: // a percentile (Spark asks one percentile_approx for all: the same values)
				v = call("percentile_approx", casted, percentiles[next], plan.Literal{Value: int32(10000), Type: sqltypes.IntegerType})
				next++
			}
			entries = append(entries, lit(s), str(v))
		}
		maps = append(maps, plan.Alias{Child: call("map", entries...), Names: []string{c.name}})
		values = append(values, plan.Alias{Child: call("element_at", plan.ColumnRef{Name: []string{c.name}},
			plan.ColumnRef{Name: []string{"summary"}}), Names: []string{c.name}})
	}
	names := make([]plan.Expr, len(n.Statistics))
	for i, s := range n.Statistics {
		names[i] = lit(s)
	}
	if len(maps) == 0 {
		rows := make([][]plan.Expr, len(n.Statistics))
		for i, s := range n.Statistics {
			rows[i] = []plan.Expr{lit(s)}
		}
		return a.resolve(ctx, &plan.Values{Rows: rows, Names: []string{"summary"}})
	}
	agg := &plan.Aggregate{Input: input, Type: plan.GroupBy, Aggs: maps}
	exploded := make([]plan.Expr, 0, len(maps)+1)
	for _, m := range maps {
		exploded = append(exploded, plan.ColumnRef{Name: m.(plan.Alias).Names})
	}
	exploded = append(exploded, plan.Alias{Child: call("explode", call("array", names...)), Names: []string{"summary"}})
	out := append([]plan.Expr{plan.ColumnRef{Name: []string{"summary"}}}, values...)
	return a.resolve(ctx, &plan.Project{Input: &plan.Project{Input: agg, Exprs: exploded}, Exprs: out})
}

// unrecognizedStatistic is Spark's error for a summary statistic it does not know (a
// percentile that is not a number followed by '%' included).
func unrecognizedStatistic(s string) error {
	return sparkerr.Newf(sparkerr.IllegalArgumentException, "UNRECOGNIZED_STATISTIC", "42704",
		"The statistic %s is not recognized. Valid statistics include `count`, `count_distinct`, `approx_count_distinct`, `mean`, `stddev`, `min`, `max`, and percentile values. Percentile must be a numeric value followed by '%%', within the range 0%% to 100%%.",
		"'"+s+"'").WithParams("stats", s)
}
