package expr

import (
	"fmt"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// partialFinal names, for the aggregates that split into a partial and a final aggregation,
// the final function over the partial results: count adds counts; sum, min and max reapply.
var partialFinal = map[string]string{"count": "sum", "sum": "sum", "min": "min", "max": "max"}

// SplitAggregate splits f for aggregation before an exchange: f itself runs over each
// partition's rows (the partial aggregation, one row per group and partition), and final, over
// the partial results found in column col, gives f's result with f's type. ok is false when f
// does not split that way (DISTINCT, a decimal or interval sum whose final sum would widen the
// type, any other function).
func SplitAggregate(f AggFunc, col int) (final AggFunc, ok bool) {
	a, isAgg := f.(*aggFunc)
	name, splits := partialFinal[f.Name()]
	if !isAgg || !splits || a.distinct {
		return nil, false
	}
	if f.Name() == "sum" && f.Type().Kind != sqltypes.Long && f.Type().Kind != sqltypes.Double {
		return nil, false
	}
	in := &Column{Index: col, Name: fmt.Sprintf("_partial%d", col), T: f.Type(), Null: true}
	final, err := BindAggregate(name, []Expr{in}, false, a.opts)
	if err != nil || !final.Type().Equal(f.Type()) {
		return nil, false
	}
	return final, true
}
