package expr

import (
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Aggregates computed from the full list of a group's argument tuples at result time:
// percentiles, median, mode, max_by/min_by, product, covariance and correlation. The tuples are
// kept per group (and removed on retraction), so these are exact.

type tupleGroup struct {
	rows [][]any
	keys []string
}

type tupleListAcc struct {
	types  []sqltypes.DataType
	t      sqltypes.DataType
	skip   func(row []any) bool
	result func(rows [][]any) (any, error)
	groups []*tupleGroup
	size   int64
}

func (a *tupleListAcc) Grow(n int)       { a.groups = growTo(a.groups, n) }
func (a *tupleListAcc) SizeBytes() int64 { return a.size + int64(len(a.groups))*8 }

func (a *tupleListAcc) rowAt(args []arrow.Array, i int) ([]any, string) {
	row := make([]any, len(args))
	k := ""
	for j, arr := range args {
		row[j] = ValueAt(arr, i, a.types[j])
		k += keyString(row[j], a.types[j]) + "\x03"
	}
	return row, k
}

func (a *tupleListAcc) Update(groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		row, k := a.rowAt(args, i)
		if a.skip(row) {
			continue
		}
		tg := a.groups[g]
		if tg == nil {
			tg = &tupleGroup{}
			a.groups[g] = tg
		}
		tg.rows, tg.keys = append(tg.rows, row), append(tg.keys, k)
		a.size += 32
	}
	return nil
}

func (a *tupleListAcc) Retract(groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		row, k := a.rowAt(args, i)
		if a.skip(row) {
			continue
		}
		tg := a.groups[g]
		if tg == nil {
			continue
		}
		for j := range tg.keys {
			if tg.keys[j] == k {
				tg.rows = append(tg.rows[:j], tg.rows[j+1:]...)
				tg.keys = append(tg.keys[:j], tg.keys[j+1:]...)
				a.size -= 32
				break
			}
		}
	}
	return nil
}

func (a *tupleListAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		var rows [][]any
		if tg := a.groups[g]; tg != nil {
			rows = tg.rows
		}
		v, err := a.result(rows)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return BuildArray(ctx.mem(), a.t, ctx.tz(), out), nil
}

func skipNullFirst(row []any) bool { return row[0] == nil }

func skipAnyNull(row []any) bool {
	for _, v := range row {
		if v == nil {
			return true
		}
	}
	return false
}

func init() {
	registerAggregate(1, 2, bindApproxCountDistinct, "approx_count_distinct")
	registerAggregate(1, 1, bindMedian, "median")
	registerAggregate(2, 3, bindPercentile, "percentile", "percentile_approx", "approx_percentile")
	registerAggregate(1, 2, bindMode, "mode")
	registerAggregate(2, 2, bindMaxBy, "max_by", "min_by")
	registerAggregate(1, 1, bindProduct, "product")
	registerAggregate(2, 2, bindCovariance, "covar_pop", "covar_samp", "corr")
}

func tupleAgg(name string, args []Expr, distinct bool, t sqltypes.DataType, skip func([]any) bool, result func([][]any) (any, error)) *aggFunc {
	types := make([]sqltypes.DataType, len(args))
	for i, a := range args {
		types[i] = a.Type()
	}
	return &aggFunc{name: name, args: args, distinct: distinct, t: t, null: true,
		newAcc: func(*Context) GroupedAccumulator {
			return &tupleListAcc{types: types, t: t, skip: skip, result: result}
		}}
}

func bindApproxCountDistinct(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	f, err := bindCount("count", args[:1], true, opts)
	if err != nil {
		return nil, err
	}
	a := f.(*aggFunc)
	a.name, a.distinct = name, false
	inner := a.newAcc
	types := []sqltypes.DataType{args[0].Type()}
	a.newAcc = func(ctx *Context) GroupedAccumulator { return &distinctAcc{inner: inner(ctx), types: types} }
	return a, nil
}

// sortedDoubles returns the group's first-column values as sorted float64s.
func sortedDoubles(rows [][]any, t sqltypes.DataType) []float64 {
	vals := make([]float64, 0, len(rows))
	for _, r := range rows {
		f, _ := castAsDouble(r[0], t)
		vals = append(vals, f)
	}
	sort.Slice(vals, func(i, j int) bool { return CompareFloat(vals[i], vals[j]) < 0 })
	return vals
}

// interpolatedPercentile is Spark's percentile(): linear interpolation between ranks.
func interpolatedPercentile(vals []float64, p float64) float64 {
	pos := p * float64(len(vals)-1)
	lo, hi := math.Floor(pos), math.Ceil(pos)
	if lo == hi {
		return vals[int(lo)]
	}
	return (hi-pos)*vals[int(lo)] + (pos-lo)*vals[int(hi)]
}

func percentageArg(name string, args []Expr, i int) (float64, error) {
	v, ok := literalValue(args[i])
	if !ok || v == nil {
		return 0, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)), "the percentage should be a foldable \"DOUBLE\" expression")
	}
	p, _ := castAsDouble(v, args[i].Type())
	if p < 0 || p > 1 {
		return 0, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(callString(name, args)), "the percentage must be between 0.0 and 1.0, but got %v", p)
	}
	return p, nil
}

func bindMedian(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := numericAggArg(name, args, opts, false)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	return tupleAgg(name, []Expr{x}, distinct, sqltypes.DoubleType, skipNullFirst, func(rows [][]any) (any, error) {
		if len(rows) == 0 {
			return nil, nil
		}
		return interpolatedPercentile(sortedDoubles(rows, t), 0.5), nil
	}), nil
}

func bindPercentile(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := numericAggArg(name, args, opts, false)
	if err != nil {
		return nil, err
	}
	if args[1].Type().Kind == sqltypes.Array {
		return nil, sparkerr.Unsupported("%s with an array of percentages", name)
	}
	p, err := percentageArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	shown := append([]Expr{x}, args[1:]...)
	if name == "percentile" {
		return tupleAgg(name, shown, distinct, sqltypes.DoubleType, skipNullFirst, func(rows [][]any) (any, error) {
			if len(rows) == 0 {
				return nil, nil
			}
			return interpolatedPercentile(sortedDoubles(rows, t), p), nil
		}), nil
	}
	if len(args) == 2 {
		shown = append(shown, NewLiteral(int32(10000), sqltypes.IntegerType))
	}
	// percentile_approx returns an input value: the smallest one with at least p of the values
	// at or below it (exact here).
	return tupleAgg(name, shown, distinct, t, skipNullFirst, func(rows [][]any) (any, error) {
		if len(rows) == 0 {
			return nil, nil
		}
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r[0]
		}
		sort.SliceStable(vals, func(i, j int) bool { return Compare(vals[i], vals[j], t) < 0 })
		idx := int(math.Ceil(p*float64(len(vals)))) - 1
		idx = max(0, min(idx, len(vals)-1))
		return vals[idx], nil
	}), nil
}

func bindMode(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	t := args[0].Type()
	return tupleAgg(name, args[:1], distinct, t, skipNullFirst, func(rows [][]any) (any, error) {
		counts := map[any]int{}
		var best any
		bestN := 0
		for _, r := range rows {
			k := valueKey(r[0], t)
			if t.Kind == sqltypes.Array || t.Kind == sqltypes.Struct || t.Kind == sqltypes.Map {
				k = keyString(r[0], t)
			}
			counts[k]++
			if c := counts[k]; c > bestN || (c == bestN && Compare(r[0], best, t) < 0) {
				best, bestN = r[0], c
			}
		}
		return best, nil
	}), nil
}

func bindMaxBy(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	vt, ot := args[0].Type(), args[1].Type()
	isMax := name == "max_by"
	return tupleAgg(name, args, distinct, vt, func(row []any) bool { return row[1] == nil }, func(rows [][]any) (any, error) {
		var best []any
		for _, r := range rows {
			if best == nil {
				best = r
				continue
			}
			c := Compare(r[1], best[1], ot)
			if (isMax && c > 0) || (!isMax && c < 0) {
				best = r
			}
		}
		if best == nil {
			return nil, nil
		}
		return best[0], nil
	}), nil
}

func bindProduct(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := numericAggArg(name, args, opts, false)
	if err != nil {
		return nil, err
	}
	if x, err = implicitCast(x, sqltypes.DoubleType, opts); err != nil {
		return nil, err
	}
	return tupleAgg(name, []Expr{x}, distinct, sqltypes.DoubleType, skipNullFirst, func(rows [][]any) (any, error) {
		if len(rows) == 0 {
			return nil, nil
		}
		p := 1.0
		for _, r := range rows {
			p *= r[0].(float64)
		}
		return p, nil
	}), nil
}

func bindCovariance(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	cs := make([]Expr, 2)
	for i := range cs {
		x, err := numericAggArg(name, args[i:i+1], opts, false)
		if err != nil {
			return nil, err
		}
		if cs[i], err = implicitCast(x, sqltypes.DoubleType, opts); err != nil {
			return nil, err
		}
	}
	return tupleAgg(name, cs, distinct, sqltypes.DoubleType, skipAnyNull, func(rows [][]any) (any, error) {
		n := float64(len(rows))
		if n == 0 || (name != "covar_pop" && n < 2) {
			return nil, nil
		}
		var mx, my float64
		for _, r := range rows {
			mx += r[0].(float64)
			my += r[1].(float64)
		}
		mx, my = mx/n, my/n
		var cxy, cxx, cyy float64
		for _, r := range rows {
			dx, dy := r[0].(float64)-mx, r[1].(float64)-my
			cxy += dx * dy
			cxx += dx * dx
			cyy += dy * dy
		}
		switch name {
		case "covar_pop":
			return cxy / n, nil
		case "covar_samp":
			return cxy / (n - 1), nil
		}
		if cxx == 0 || cyy == 0 {
			return nil, nil
		}
		return cxy / math.Sqrt(cxx*cyy), nil
	}), nil
}
