package analyzer

import (
	"context"
	"fmt"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveSampleBy resolves df.stat.sampleBy(col, fractions, seed) as Spark's
// DataFrameStatFunctions.sampleBy: the rows whose rand(seed) draw is below their stratum's
// fraction (0 for a stratum not listed, so those rows are dropped); rand(seed) is Spark's
// per-partition XORShiftRandom, so the same partitions give Spark's sample.
func (a *Analyzer) resolveSampleBy(ctx context.Context, n *plan.StatFunction) (*resolved, error) {
	for _, f := range n.Fractions {
		if !(f.Fraction >= 0 && f.Fraction <= 1) {
			return nil, sparkerr.IllegalArgument("requirement failed: Fractions must be in [0, 1], but got %s.", fractionsString(n.Fractions))
		}
	}
	r := plan.Call{Name: "rand", Args: []plan.Expr{plan.Literal{Value: n.Seed, Type: sqltypes.LongType}}}
	zero := plan.Literal{Value: 0.0, Type: sqltypes.DoubleType}
	// CASE col WHEN stratum1 THEN fraction1 ... ELSE 0.0 END, with Spark's map lookup
	// equality (a NULL stratum matches nothing, as a Scala Map.get(null) finds no key).
	args := []plan.Expr{}
	for _, f := range n.Fractions {
		args = append(args, plan.Call{Name: "=", Args: []plan.Expr{n.SampleCol, f.Stratum}},
			plan.Literal{Value: f.Fraction, Type: sqltypes.DoubleType})
	}
	fraction := plan.Expr(zero)
	if len(args) > 0 {
		fraction = plan.Call{Name: "coalesce", Args: []plan.Expr{plan.Call{Name: "when", Args: append(args, zero)}, zero}}
	}
	return a.resolve(ctx, &plan.Filter{Input: n.Input, Condition: plan.Call{Name: "<", Args: []plan.Expr{r, fraction}}})
}

// fractionsString renders sampleBy's fractions as Scala prints the Map (Map(a -> 0.1, …)).
func fractionsString(fs []plan.StatFraction) string {
	s := "Map("
	for i, f := range fs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(f.Stratum.Value) + " -> " + expr.JavaDouble(f.Fraction, 64)
	}
	return s + ")"
}
