package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// partialFinal names, for the aggregates that split into a partial and a final aggregation
// with the same function as partial, the final function over the partial results: count adds
// counts; sum, min and max reapply.
var partialFinal = map[string]string{"count": "sum", "sum": "sum", "min": "min", "max": "max"}

// SplitAggregate splits f for aggregation before an exchange: partials run over each
// partition's rows (the partial aggregation, one row per group and partition), and final,
// over the partial results found in columns col, col+1, …, gives f's result with f's type.
// count, sum (of integers and doubles), min and max are their own partial; avg of a double
// splits into a double sum and a count; sum and avg of a decimal into a wider decimal sum and a
// count (agg_partial_decimal.go); functions binding a split of their own (the sketch
// aggregates) use it. ok is false when f does not split (DISTINCT, an interval sum
// or avg, try_sum / try_avg, any other function).
func SplitAggregate(f AggFunc, col int) (partials []AggFunc, final AggFunc, ok bool) {
	a, isAgg := f.(*aggFunc)
	if !isAgg || a.distinct {
		return nil, nil, false
	}
	partialCol := func(i int, t sqltypes.DataType) Expr {
		return &Column{Index: col + i, Name: fmt.Sprintf("_partial%d", col+i), T: t, Null: true}
	}
	if a.split != nil {
		partials, final := a.split(a, partialCol(0, a.t))
		return partials, final, true
	}
	isAvg := a.name == "avg" || a.name == "mean"
	if (isAvg || a.name == "sum") && len(a.args) == 1 && a.args[0].Type().Kind == sqltypes.Decimal {
		return splitDecimalSum(a, partialCol)
	}
	if isAvg {
		return splitAvg(a, partialCol)
	}
	if final, ok := sketchFinal(a, partialCol(0, sqltypes.BinaryType)); ok {
		return []AggFunc{f}, final, true
	}
	if partial, final, ok := kllSplit(a, partialCol(0, sqltypes.BinaryType)); ok {
		return []AggFunc{partial}, final, true
	}
	if partial, final, ok := tupleSplit(a, partialCol(0, sqltypes.BinaryType)); ok {
		return []AggFunc{partial}, final, true
	}
	name, splits := partialFinal[a.name]
	if !splits || a.name == "sum" && a.t.Kind != sqltypes.Long && a.t.Kind != sqltypes.Double {
		return nil, nil, false
	}
	final, err := BindAggregate(name, []Expr{partialCol(0, a.t)}, false, a.opts)
	if err != nil || !final.Type().Equal(a.t) {
		return nil, nil, false
	}
	return []AggFunc{f}, final, true
}

// splitAvg splits avg of a double (of any number but decimals and intervals) into sum(CAST(x
// AS DOUBLE)) and count(x), as the avg accumulator itself sums doubles, and a final step that
// divides the summed sums by the summed counts.
func splitAvg(a *aggFunc, partialCol func(int, sqltypes.DataType) Expr) ([]AggFunc, AggFunc, bool) {
	x := a.args[0]
	if a.t.Kind != sqltypes.Double || !x.Type().IsNumeric() || x.Type().Kind == sqltypes.Decimal {
		return nil, nil, false
	}
	asDouble := x
	if x.Type().Kind != sqltypes.Double {
		c, err := NewCast(x, sqltypes.DoubleType, plan.CastDefault, a.opts)
		if err != nil {
			return nil, nil, false
		}
		asDouble = c
	}
	sum, err := BindAggregate("sum", []Expr{asDouble}, false, a.opts)
	if err != nil {
		return nil, nil, false
	}
	count, err := BindAggregate("count", []Expr{x}, false, a.opts)
	if err != nil {
		return nil, nil, false
	}
	args := []Expr{partialCol(0, sqltypes.DoubleType), partialCol(1, sqltypes.LongType)}
	final := &aggFunc{name: a.name, args: args, t: sqltypes.DoubleType, null: true, opts: a.opts,
		newAcc: func(*Context) GroupedAccumulator { return &avgMergeAcc{} }}
	return []AggFunc{sum, count}, final, true
}

// avgMergeAcc is avg's final step over partial (double sum, count) pairs: the summed sums over
// the summed counts, NULL without rows. It only runs in batch aggregates: no retraction.
type avgMergeAcc struct {
	sums   []float64
	counts []int64
}

func (m *avgMergeAcc) Grow(n int)       { m.sums, m.counts = growTo(m.sums, n), growTo(m.counts, n) }
func (m *avgMergeAcc) SizeBytes() int64 { return int64(len(m.sums)) * 16 }

func (m *avgMergeAcc) Update(groups []uint32, args []arrow.Array) error {
	sums, ok1 := args[0].(*array.Float64)
	counts, ok2 := args[1].(*array.Int64)
	if !ok1 || !ok2 {
		return fmt.Errorf("expr: avg's final step over %s and %s", args[0].DataType(), args[1].DataType())
	}
	sv, cv := sums.Float64Values(), counts.Int64Values()
	for i, g := range groups {
		if sums.IsValid(i) {
			m.sums[g] += sv[i]
		}
		m.counts[g] += cv[i]
	}
	return nil
}

func (m *avgMergeAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (m *avgMergeAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]float64, len(groups))
	valid := make([]bool, len(groups))
	for i, g := range groups {
		if m.counts[g] > 0 {
			out[i], valid[i] = m.sums[g]/float64(m.counts[g]), true
		}
	}
	return buildNumeric(ctx.mem(), out, valid), nil
}
