package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// approx_top_k(expr[, k[, maxItemsTracked]]): Spark's ApproxTopK, the k (default 5) most
// frequent values of expr with their estimated counts, as array<struct<item, count: bigint>> in
// decreasing count, from a DataSketches frequent-items sketch tracking up to maxItemsTracked
// (default 10000, at most 1000000) items (frequent_items.go). NULL is counted apart and placed
// before the first item of a smaller count. k and maxItemsTracked are constant INTs (implicitly
// cast); their NULL, non-positive or inconsistent values fail when the aggregate runs
// (SparkRuntimeException), as in Spark. BINARY and nested types are not supported (as Spark);
// DECIMAL is not yet (its Java hash orders equal counts). The state is the sketch: rows cannot be
// retracted, and the aggregate does not split around an exchange.

const (
	approxTopKDefaultK   = 5
	approxTopKDefaultMax = 10000
	approxTopKMaxLimit   = 1000000
)

func init() {
	registerAggregate(1, 3, bindApproxTopK, "approx_top_k")
}

func bindApproxTopK(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	shown := append([]Expr(nil), args...)
	if len(shown) < 2 {
		shown = append(shown, NewLiteral(int32(approxTopKDefaultK), sqltypes.IntegerType))
	}
	if len(shown) < 3 {
		shown = append(shown, NewLiteral(int32(approxTopKDefaultMax), sqltypes.IntegerType))
	}
	call := callString(name, shown)
	for i := 1; i < 3; i++ {
		c, err := implicitCast(shown[i], sqltypes.IntegerType, opts)
		if err != nil {
			return nil, unexpectedInputType(quoteSQL(call), i, `"INT"`, shown[i])
		}
		shown[i] = c
	}
	x := args[0]
	if err := approxTopKItemType(call, x.Type()); err != nil {
		return nil, err
	}
	kv, kConst := constantOperand(shown[1])
	if !kConst {
		return nil, typeCheckFailure(call, "K must be a constant literal")
	}
	mv, mConst := constantOperand(shown[2])
	if !mConst {
		return nil, typeCheckFailure(call, "Number of items tracked must be a constant literal")
	}
	k, maxItems, runErr := approxTopKParams(name, kv, mv)
	t := sqltypes.ArrayType(sqltypes.StructType(
		sqltypes.Field{Name: "item", Type: x.Type(), Nullable: true},
		sqltypes.Field{Name: "count", Type: sqltypes.LongType, Nullable: false}), false)
	return &aggFunc{name: name, args: args[:1], display: shown, distinct: distinct, t: t, opts: opts, noRetract: true, countsNulls: true,
		newAcc: func(*Context) GroupedAccumulator {
			return &approxTopKAcc{maxMapSize: approxTopKMapSize(maxItems), xt: x.Type(), t: t, err: runErr,
				out: func(s *freqItems, nulls int64) any { return approxTopKRows(s.frequent(), nulls, k) }}
		}}, nil
}

// approxTopKItemType checks that the sketches take items of type t (ApproxTopK.isDataTypeSupported).
func approxTopKItemType(call string, t sqltypes.DataType) error {
	switch t.Kind {
	case sqltypes.Boolean, sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Float,
		sqltypes.Double, sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ:
	case sqltypes.String:
		if !binaryCollation(t) {
			return sparkerr.Unsupported("approx_top_k over collated strings is not supported by Weir")
		}
	case sqltypes.Decimal:
		return sparkerr.Unsupported("approx_top_k over DECIMAL is not supported by Weir yet")
	default:
		typeName, _, _ := strings.Cut(strings.ToLower(t.SQL()), "<") // Spark's typeName
		return typeCheckFailure(call, typeName+" columns are not supported")
	}
	return nil
}

func typeCheckFailure(call, msg string) *sparkerr.Error {
	return typeMismatch("TYPE_CHECK_FAILURE_WITH_HINT", quoteSQL(call), "%s.", msg).WithParams("msg", msg, "hint", "")
}

// approxTopKParams checks k and maxItemsTracked in Spark's order (maxItemsTracked NULL, k NULL,
// k positive, maxItemsTracked in range and at least k); the error is raised at run time.
func approxTopKParams(fn string, kv, mv any) (k, maxItems int, err error) {
	if mv == nil {
		return 0, 0, approxTopKNull(fn, "maxItemsTracked")
	}
	if kv == nil {
		return 0, 0, approxTopKNull(fn, "k")
	}
	k, maxItems = int(toInt64(kv)), int(toInt64(mv))
	if k <= 0 {
		return 0, 0, approxTopKNonPositive(fn, "k", k)
	}
	if err = approxTopKMaxItems(fn, maxItems); err == nil {
		err = approxTopKLessThanK(fn, maxItems, k)
	}
	return k, maxItems, err
}

// approxTopKMaxItems checks a maxItemsTracked (ApproxTopK.checkMaxItemsTracked): at most the
// limit, positive.
func approxTopKMaxItems(fn string, maxItems int) error {
	switch {
	case maxItems > approxTopKMaxLimit:
		return sparkerr.Newf(sparkerr.SparkRuntimeException, "APPROX_TOP_K_MAX_ITEMS_TRACKED_EXCEEDS_LIMIT", "22023",
			"The max items tracked `maxItemsTracked`(%d) of `%s` should be less than or equal to %d.", maxItems, fn, approxTopKMaxLimit).
			WithParams("maxItemsTracked", strconv.Itoa(maxItems), "limit", strconv.Itoa(approxTopKMaxLimit))
	case maxItems <= 0:
		return approxTopKNonPositive(fn, "maxItemsTracked", maxItems)
	}
	return nil
}

func approxTopKLessThanK(fn string, maxItems, k int) error {
	if maxItems >= k {
		return nil
	}
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "APPROX_TOP_K_MAX_ITEMS_TRACKED_LESS_THAN_K", "22023",
		"The max items tracked `maxItemsTracked`(%d) of `%s` should be greater than or equal to `k`(%d).", maxItems, fn, k).
		WithParams("maxItemsTracked", strconv.Itoa(maxItems), "k", strconv.Itoa(k))
}

func approxTopKNull(fn, arg string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "APPROX_TOP_K_NULL_ARG", "22004",
		"The value of `%s` in `%s` cannot be NULL.", arg, fn).WithParams("argName", "`"+arg+"`")
}

func approxTopKNonPositive(fn, arg string, v int) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "APPROX_TOP_K_NON_POSITIVE_ARG", "22023",
		"The value of `%s` in `%s` must be a positive integer, but got %d.", arg, fn, v).
		WithParams("argName", "`"+arg+"`", "argValue", strconv.Itoa(v))
}

// approxTopKMapSize is Spark's ApproxTopK.calMaxMapSize: the power of two at least
// maxItemsTracked / 0.75 (the map's load factor), computed with doubles as Spark does.
func approxTopKMapSize(maxItems int) int {
	if maxItems <= 0 {
		return 1 << freqLgMinMapSize
	}
	c := math.Ceil(float64(maxItems) / 0.75)
	return int(math.Pow(2, math.Ceil(math.Log(c)/math.Log(2))))
}

// approxTopKAcc keeps one sketch and NULL count per group; out makes a group's result from its
// final sketch (approx_top_k's rows, approx_top_k_accumulate's state).
type approxTopKAcc struct {
	maxMapSize int
	xt, t      sqltypes.DataType
	err        error
	out        func(final *freqItems, nulls int64) any
	sketches   []*freqItems
	nulls      []int64
}

func (a *approxTopKAcc) Grow(n int) {
	a.sketches, a.nulls = growTo(a.sketches, n), growTo(a.nulls, n)
}

func (a *approxTopKAcc) SizeBytes() int64 {
	n := int64(len(a.sketches)) * 16
	for _, s := range a.sketches {
		if s != nil {
			n += int64(len(s.m.keys)) * 64
		}
	}
	return n
}

func (a *approxTopKAcc) Update(groups []uint32, args []arrow.Array) error {
	if a.err != nil {
		return a.err
	}
	for i, g := range groups {
		v := ValueAt(args[0], i, a.xt)
		if v == nil {
			a.nulls[g]++
			continue
		}
		if a.sketches[g] == nil {
			a.sketches[g] = newFreqItems(a.maxMapSize)
		}
		a.sketches[g].update(v, 1)
	}
	return nil
}

func (a *approxTopKAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *approxTopKAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	if a.err != nil {
		return nil, a.err
	}
	out := make([]any, len(groups))
	for i, g := range groups {
		// Spark's final aggregation merges the partial sketch into a new one: the slots, and so
		// the order of equal counts, are that sketch's. (Over an inline VALUES table Spark keeps
		// the one sketch, and equal counts can come in another order.)
		final := newFreqItems(a.maxMapSize)
		if s := a.sketches[g]; s != nil {
			final.merge(s)
		}
		out[i] = a.out(final, a.nulls[g])
	}
	return BuildArray(ctx.mem(), a.t, ctx.tz(), out), nil
}

// approxTopKRows is ApproxTopKAggregateBuffer.eval: the first k of the sketch's rows with NULL's
// count placed before the first smaller count.
func approxTopKRows(rows []freqRow, nulls int64, k int) []any {
	out := make([]any, 0, min(k, len(rows)+1))
	nullDone := nulls == 0
	for _, r := range rows {
		if len(out) == k {
			break
		}
		if !nullDone && nulls > r.count {
			out = append(out, []any{nil, nulls})
			nullDone = true
			if len(out) == k {
				break
			}
		}
		out = append(out, []any{r.item, r.count})
	}
	if !nullDone && len(out) < k {
		out = append(out, []any{nil, nulls})
	}
	return out
}
