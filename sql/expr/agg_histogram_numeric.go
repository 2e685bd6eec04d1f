package expr

import (
	"math/big"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// histogram_numeric(x, nb): Spark's HistogramNumeric, an approximate histogram of x in at most nb
// bins of non-uniform width (Ben-Haim and Tom-Tov's streaming algorithm, as Spark's
// NumericHistogram, adapted from Hive's). The result is array<struct<x, y: double>> in increasing
// x, where x has x's type (spark.sql.legacy.histogramNumericPropagateInputType, on by default):
// a bin's centre computed as a double is truncated for integral, date, timestamp and interval
// types (Scala's toInt/toLong) and rounded HALF_UP to the scale of a decimal. NULLs are skipped;
// a group without values is NULL. nb is a constant INT of at least 2. Equally close bin pairs are
// broken by java.util.Random(31183) as in Spark, so the answer matches Spark's for the same rows
// in the same order in one partition. The state is the bins, so rows cannot be retracted.

func init() {
	registerAggregate(2, 2, bindHistogramNumeric, "histogram_numeric")
}

func bindHistogramNumeric(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	call := callString(name, args)
	x := args[0]
	switch xt := x.Type(); {
	case xt.IsNumeric() || xt.Kind == sqltypes.Date || xt.Kind == sqltypes.Timestamp || xt.Kind == sqltypes.TimestampNTZ ||
		xt.Kind == sqltypes.DayTimeInterval || xt.Kind == sqltypes.YearMonthInterval:
	case xt.Kind == sqltypes.String || xt.Kind == sqltypes.Null:
		c, err := implicitCast(x, sqltypes.DoubleType, opts)
		if err != nil {
			return nil, err
		}
		x = c
	default:
		return nil, unexpectedInputType(quoteSQL(call), 0,
			`("NUMERIC" or "DATE" or "TIMESTAMP" or "TIMESTAMP_NTZ" or "INTERVAL YEAR TO MONTH" or "INTERVAL DAY TO SECOND")`, x)
	}
	nbArg := args[1]
	if nt := nbArg.Type(); !nt.IsNumeric() && nt.Kind != sqltypes.String && nt.Kind != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(call), 1, `"INT"`, nbArg)
	}
	nbExpr, err := implicitCast(nbArg, sqltypes.IntegerType, opts)
	if err != nil {
		return nil, err
	}
	v, ok := constantOperand(nbExpr)
	if !ok {
		return nil, nonFoldable(call, "nb", `"INT"`, nbArg)
	}
	if v == nil {
		return nil, typeMismatch("UNEXPECTED_NULL", quoteSQL(call), "The nb must not be null.")
	}
	nb := int(toInt64(v))
	if nb < 2 {
		return nil, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(call),
			"The nb must be between [2, 2147483647] (current value = %d).", nb)
	}
	xt := x.Type()
	t := sqltypes.ArrayType(sqltypes.StructType(
		sqltypes.Field{Name: "x", Type: xt, Nullable: true},
		sqltypes.Field{Name: "y", Type: sqltypes.DoubleType, Nullable: true}), true)
	return &aggFunc{name: name, args: []Expr{x}, display: args, distinct: distinct, t: t, null: true, opts: opts,
		noRetract: true,
		newAcc:    func(*Context) GroupedAccumulator { return &histogramAcc{t: xt, result: t, nb: nb} }}, nil
}

// histogramAcc keeps one numericHistogram per group, created on the group's first value.
type histogramAcc struct {
	t, result sqltypes.DataType
	nb        int
	groups    []*numericHistogram
}

func (a *histogramAcc) Grow(n int) { a.groups = growTo(a.groups, n) }

func (a *histogramAcc) SizeBytes() int64 {
	return int64(len(a.groups)) * int64(8+(a.nb+1)*16)
}

func (a *histogramAcc) Update(groups []uint32, args []arrow.Array) error {
	arr := args[0]
	for i, g := range groups {
		if arr.IsNull(i) {
			continue
		}
		h := a.groups[g]
		if h == nil {
			h = &numericHistogram{nbins: a.nb, prng: newJavaRandom(31183)}
			a.groups[g] = h
		}
		h.add(histogramDouble(ValueAt(arr, i, a.t), a.t))
	}
	return nil
}

func (a *histogramAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *histogramAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		h := a.groups[g]
		if h == nil || len(h.bins) == 0 {
			continue
		}
		list := make([]any, len(h.bins))
		for j, b := range h.bins {
			list[j] = []any{histogramValue(b.x, a.t), b.y}
		}
		out[i] = list
	}
	return BuildArray(ctx.mem(), a.result, ctx.tz(), out), nil
}

// histogramDouble is v (of type t) as the double the histogram works on: internal values
// (days, microseconds, months) for datetimes and intervals.
func histogramDouble(v any, t sqltypes.DataType) float64 {
	switch t.Kind {
	case sqltypes.Decimal:
		return decimalToFloat(v.(decimal128.Num), t.Scale)
	case sqltypes.Date, sqltypes.YearMonthInterval:
		return float64(v.(int32))
	case sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval:
		return float64(v.(int64))
	}
	return toFloat64(v)
}

// histogramValue converts a bin centre back to t, as Spark's HistogramNumeric.eval.
func histogramValue(x float64, t sqltypes.DataType) any {
	switch t.Kind {
	case sqltypes.Byte:
		return int8(int32(x))
	case sqltypes.Short:
		return int16(int32(x))
	case sqltypes.Integer, sqltypes.Date, sqltypes.YearMonthInterval:
		return int32(x)
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval:
		return int64(x)
	case sqltypes.Float:
		return float32(x)
	case sqltypes.Decimal:
		b, ok := decimalFromFloat(x, t.Scale)
		if !ok || !fitsPrecision(b, t.Precision) {
			return nil
		}
		return bigToNum(new(big.Int).Set(b))
	}
	return x
}

// numericHistogram is Spark's NumericHistogram: bins sorted by x, at most nbins of them.
type numericHistogram struct {
	nbins int
	bins  []histogramBin
	prng  *javaRandom
}

type histogramBin struct{ x, y float64 }

// add is NumericHistogram.add: a value equal to a bin's centre counts in that bin; otherwise it
// becomes a bin of its own and the closest bins merge while there are too many.
func (h *numericHistogram) add(v float64) {
	// Java's binary search, kept as written: it also places a NaN as Spark does.
	bin := 0
	for l, r := 0, len(h.bins); l < r; {
		bin = (l + r) / 2
		if h.bins[bin].x > v {
			r = bin
		} else if h.bins[bin].x < v {
			bin++
			l = bin
		} else {
			break
		}
	}
	if bin < len(h.bins) && h.bins[bin].x == v {
		h.bins[bin].y++
		return
	}
	h.bins = slices.Insert(h.bins, bin, histogramBin{x: v, y: 1})
	if len(h.bins) > h.nbins {
		h.trim()
	}
}

// trim merges the closest pair of bins (ties broken at random, Spark's PRNG draws included)
// into their count-weighted centre until nbins remain.
func (h *numericHistogram) trim() {
	for len(h.bins) > h.nbins {
		smallest := h.bins[1].x - h.bins[0].x
		loc, count := 0, 1
		for i := 1; i < len(h.bins)-1; i++ {
			diff := h.bins[i+1].x - h.bins[i].x
			if diff < smallest {
				smallest, loc, count = diff, i, 1
			} else if diff == smallest {
				count++
				if h.prng.nextDouble() <= 1.0/float64(count) {
					loc = i
				}
			}
		}
		a, b := &h.bins[loc], h.bins[loc+1]
		d := a.y + b.y
		// Explicit conversions keep each step rounded as Java computes it (no fused multiply-add).
		a.x = float64(a.x * float64(a.y/d))
		a.x += float64(float64(b.x/d) * b.y)
		a.y = d
		h.bins = slices.Delete(h.bins, loc+1, loc+2)
	}
}
