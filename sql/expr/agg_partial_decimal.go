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
		newAcc: func(*Context) GroupedAccumulator {
			s := newSumAcc(in, sumT, ansi, false)
			s.partial = true
			return s
		}}
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

// decimalMergeAcc is decimal sum's and avg's final step over partial (sum, count) pairs. It only
// runs in batch aggregates: no retraction.
type decimalMergeAcc struct {
	sumT, t   sqltypes.DataType
	avg, ansi bool
	sums      []*big.Int
	counts    []int64
	overflow  []bool
	pend      []sum192
	dirty     []bool
}

func (m *decimalMergeAcc) Grow(n int) {
	m.sums, m.counts, m.overflow = growTo(m.sums, n), growTo(m.counts, n), growTo(m.overflow, n)
}

func (m *decimalMergeAcc) SizeBytes() int64 { return int64(len(m.sums)) * 48 }

func (m *decimalMergeAcc) Update(groups []uint32, args []arrow.Array) error {
	sums, ok1 := args[0].(*array.Decimal128)
	counts, ok2 := args[1].(*array.Int64)
	if !ok1 || !ok2 {
		return fmt.Errorf("expr: decimal %s's final step over %s and %s", m.name(), args[0].DataType(), args[1].DataType())
	}
	m.pend, m.dirty = growTo(m.pend, len(m.sums)), growTo(m.dirty, len(m.sums))
	var touched []uint32
	sv, cv := sums.Values(), counts.Int64Values()
	for i, g := range groups {
		m.counts[g] += cv[i]
		if sums.IsNull(i) {
			if cv[i] > 0 {
				m.overflow[g] = true
			}
			continue
		}
		if !m.dirty[g] {
			m.dirty[g] = true
			touched = append(touched, g)
		}
		m.pend[g].add(sv[i])
	}
	for _, g := range touched {
		if m.sums[g] == nil {
			m.sums[g] = new(big.Int)
		}
		m.pend[g].addTo(m.sums[g])
		m.pend[g], m.dirty[g] = sum192{}, false
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
	out := make([]any, len(groups))
	for i, g := range groups {
		if m.counts[g] <= 0 {
			continue
		}
		if m.overflow[g] {
			if m.ansi {
				return nil, decimalSumOverflow()
			}
			continue
		}
		v, ok, err := decimalSumResult(orZero(m.sums[g]), m.counts[g], m.sumT, m.t, m.avg, m.ansi)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i] = v
		}
	}
	return BuildArray(ctx.mem(), m.t, ctx.tz(), out), nil
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
