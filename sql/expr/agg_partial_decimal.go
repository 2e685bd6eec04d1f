package expr

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// splitDecimalSum splits sum and avg of a decimal(p, s) as Spark's Sum and Average buffers
// do: each partition's partial is its sum as decimal(min(38, p+10), s), NULL when empty or when
// it overflows that type (Spark's buffer then holds NULL beside isEmpty = false), and count(x),
// which tells an empty partial from an overflowed one. The final step adds the partial sums
// exactly and counts; an overflowed partial, or a total outside decimal(min(38, p+10), s), is
// NULL (legacy) or an error (ANSI), as Spark's CheckOverflowInSum; avg divides the total by the
// count, rounding HALF_UP to decimal(p+4, s+4) as the unsplit aggregate does.
func splitDecimalSum(a *aggFunc, partialCol func(int, sqltypes.DataType) Expr) ([]AggFunc, AggFunc, bool) {
	x := a.args[0]
	in := x.Type()
	if in.Kind != sqltypes.Decimal {
		return nil, nil, false
	}
	avg := a.name == "avg" || a.name == "mean"
	sumT := boundedDecimal(in.Precision+10, in.Scale)
	if !avg && !a.t.Equal(sumT) {
		return nil, nil, false
	}
	ansi := a.opts.ANSI
	sum := &aggFunc{name: "sum", args: []Expr{x}, t: sumT, null: true, opts: a.opts,
		newAcc: func(*Context) GroupedAccumulator { return &decimalPartialSumAcc{t: sumT} }}
	count, err := BindAggregate("count", []Expr{x}, false, a.opts)
	if err != nil {
		return nil, nil, false
	}
	resultT := a.t
	args := []Expr{partialCol(0, sumT), partialCol(1, sqltypes.LongType)}
	final := &aggFunc{name: a.name, args: args, t: resultT, null: true, opts: a.opts,
		newAcc: func(*Context) GroupedAccumulator {
			return &decimalMergeAcc{sumT: sumT, t: resultT, avg: avg, ansi: ansi}
		}}
	return []AggFunc{sum, count}, final, true
}

// decimalPartialSumAcc is a decimal sum's partial step: per group a 192-bit sum of the
// unscaled values (the input's scale is t's), NULL when the group had no value or when the sum
// does not fit t (Spark's partial buffer after an overflow). Batch aggregates only.
type decimalPartialSumAcc struct {
	t    sqltypes.DataType
	sums []sum192
	n    []int64
}

func (m *decimalPartialSumAcc) Grow(n int)       { m.sums, m.n = growTo(m.sums, n), growTo(m.n, n) }
func (m *decimalPartialSumAcc) SizeBytes() int64 { return int64(len(m.sums)) * 32 }

func (m *decimalPartialSumAcc) Update(groups []uint32, args []arrow.Array) error {
	x, ok := args[0].(*array.Decimal128)
	if !ok {
		return fmt.Errorf("expr: decimal sum's partial step over %s", args[0].DataType())
	}
	sums, n, vals := m.sums, m.n, x.Values()
	if x.NullN() == 0 {
		for i, g := range groups {
			sums[g].add(vals[i])
			n[g]++
		}
		return nil
	}
	for i, g := range groups {
		if x.IsValid(i) {
			sums[g].add(vals[i])
			n[g]++
		}
	}
	return nil
}

func (m *decimalPartialSumAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (m *decimalPartialSumAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	b := array.NewDecimal128Builder(ctx.mem(), sqltypes.ToArrow(m.t, ctx.tz()).(*arrow.Decimal128Type))
	defer b.Release()
	b.Reserve(len(groups))
	for _, g := range groups {
		if v, ok := m.sums[g].num(); ok && m.n[g] > 0 && v.FitsInPrecision(m.t.Precision) {
			b.UnsafeAppend(v)
		} else {
			b.UnsafeAppendBoolToBitmap(false)
		}
	}
	return b.NewArray(), nil
}

// num is a as a 128-bit decimal value; ok is false when it does not fit 128 bits.
func (a sum192) num() (decimal128.Num, bool) {
	return decimal128.New(int64(a.mid), a.lo), a.hi == int64(a.mid)>>63
}

// decimalMergeAcc is decimal sum's and avg's final step over partial (sum, count) pairs. It only
// runs in batch aggregates: no retraction.
type decimalMergeAcc struct {
	sumT, t   sqltypes.DataType
	avg, ansi bool
	sums      []sum192
	counts    []int64
	overflow  []bool
}

func (m *decimalMergeAcc) Grow(n int) {
	m.sums, m.counts, m.overflow = growTo(m.sums, n), growTo(m.counts, n), growTo(m.overflow, n)
}

func (m *decimalMergeAcc) SizeBytes() int64 { return int64(len(m.sums)) * 40 }

func (m *decimalMergeAcc) Update(groups []uint32, args []arrow.Array) error {
	sums, ok1 := args[0].(*array.Decimal128)
	counts, ok2 := args[1].(*array.Int64)
	if !ok1 || !ok2 {
		return fmt.Errorf("expr: decimal %s's final step over %s and %s", m.name(), args[0].DataType(), args[1].DataType())
	}
	sv, cv := sums.Values(), counts.Int64Values()
	for i, g := range groups {
		m.counts[g] += cv[i]
		if sums.IsNull(i) {
			if cv[i] > 0 {
				m.overflow[g] = true
			}
			continue
		}
		m.sums[g].add(sv[i])
	}
	return nil
}

func (m *decimalMergeAcc) name() string {
	if m.avg {
		return "avg"
	}
	return "sum"
}

func (m *decimalMergeAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (m *decimalMergeAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	b := array.NewDecimal128Builder(ctx.mem(), sqltypes.ToArrow(m.t, ctx.tz()).(*arrow.Decimal128Type))
	defer b.Release()
	b.Reserve(len(groups))
	for _, g := range groups {
		if m.counts[g] <= 0 {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if m.overflow[g] {
			if m.ansi {
				return nil, decimalSumOverflow()
			}
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if v, ok := m.sums[g].num(); ok && !m.avg && v.FitsInPrecision(m.sumT.Precision) {
			b.UnsafeAppend(v)
			continue
		}
		sum := new(big.Int)
		m.sums[g].addTo(sum)
		v, ok, err := decimalSumResult(sum, m.counts[g], m.sumT, m.t, m.avg, m.ansi)
		if err != nil {
			return nil, err
		}
		if ok {
			b.UnsafeAppend(v)
		} else {
			b.UnsafeAppendBoolToBitmap(false)
		}
	}
	return b.NewArray(), nil
}

// decimalSumResult is a decimal sum's or avg's result from the exact sum of n non-NULL values:
// a sum outside sumT is NULL, or NUMERIC_VALUE_OUT_OF_RANGE under ANSI (Spark's
// CheckOverflowInSum, for avg too); avg is sum / n rounded HALF_UP to t's scale, NULL when the
// quotient does not fit t. ok is false for a NULL result.
func decimalSumResult(sum *big.Int, n int64, sumT, t sqltypes.DataType, avg, ansi bool) (decimal128.Num, bool, error) {
	if !fitsPrecision(sum, sumT.Precision) {
		if ansi {
			return decimal128.Num{}, false, decimalOverflow(formatBigDecimal(new(big.Int).Set(sum), sumT.Scale), sumT.Precision, sumT.Scale)
		}
		return decimal128.Num{}, false, nil
	}
	if !avg {
		return bigToNum(sum), true, nil
	}
	num := new(big.Int).Mul(sum, pow10(t.Scale-sumT.Scale))
	q := divHalfUp(num, big.NewInt(n))
	if !fitsPrecision(q, t.Precision) {
		return decimal128.Num{}, false, nil
	}
	return bigToNum(q), true, nil
}

func orZero(b *big.Int) *big.Int {
	if b == nil {
		return new(big.Int)
	}
	return b
}

// decimalSumOverflow is Spark's overflowInSumOfDecimalError: a partial sum overflowed its
// type, so the total is unknown.
func decimalSumOverflow() *sparkerr.Error {
	const alt = " Use 'try_sum' to tolerate overflow and return NULL instead."
	return sparkerr.New(sparkerr.ArithmeticException, "ARITHMETIC_OVERFLOW", "22003",
		"Overflow in sum of decimals."+alt+" If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.").
		WithParams("message", "Overflow in sum of decimals", "alternative", alt, "config", `"spark.sql.ansi.enabled"`)
}
