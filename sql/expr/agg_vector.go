package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// vector_sum(v) and vector_avg(v) over ARRAY<FLOAT> (Spark 4.2's VectorSum and VectorAvg): the
// element-wise sum or mean of a group's vectors. NULL vectors and vectors with a NULL element
// are skipped; a group without any other is NULL. The first vector fixes the dimension; a later
// one of another dimension is VECTOR_DIMENSION_MISMATCH. The arithmetic is Spark's float
// arithmetic: the sum adds each vector in turn; the mean is a running mean, mean += (x - mean) *
// (1 / n) with n the vectors seen so far, all in float. The state is a running value, so rows
// cannot be retracted. Weir feeds one accumulator a group's rows in order, which gives Spark's
// answers for rows in one partition (Spark merges partitions' partial results, which rounds
// differently).

func init() {
	registerAggregate(1, 1, bindVectorAgg, "vector_sum", "vector_avg")
}

func bindVectorAgg(name string, args []Expr, distinct bool, _ Options) (AggFunc, error) {
	if err := requireFloatArray(name, args, 0); err != nil {
		return nil, err
	}
	in := args[0].Type()
	avg := name == "vector_avg"
	return &aggFunc{name: name, args: args, distinct: distinct, t: floatArrayType, null: true,
		noRetract: true,
		newAcc:    func(*Context) GroupedAccumulator { return &vectorAcc{name: name, in: in, avg: avg} }}, nil
}

// vectorAcc keeps per group the running sum (or mean) and the number of vectors in it.
type vectorAcc struct {
	name  string
	in    sqltypes.DataType
	avg   bool
	acc   [][]float32
	count []int64
}

func (a *vectorAcc) Grow(n int) {
	a.acc = growTo(a.acc, n)
	a.count = growTo(a.count, n)
}

func (a *vectorAcc) SizeBytes() int64 {
	n := int64(len(a.count)) * 32
	for _, v := range a.acc {
		n += int64(len(v)) * 4
	}
	return n
}

func (a *vectorAcc) Update(groups []uint32, args []arrow.Array) error {
	arr := args[0]
	for i, g := range groups {
		if arr.IsNull(i) {
			continue
		}
		xs, ok := floatElems(ValueAt(arr, i, a.in).([]any))
		if !ok {
			continue
		}
		n := a.count[g]
		if n == 0 {
			a.acc[g], a.count[g] = xs, 1
			continue
		}
		acc := a.acc[g]
		if len(acc) != len(xs) {
			return vectorDimensionMismatch(a.name, len(acc), len(xs))
		}
		n++
		a.count[g] = n
		if !a.avg {
			for j, x := range xs {
				acc[j] = float32(acc[j] + x)
			}
			continue
		}
		inv := float32(1) / float32(n)
		for j, x := range xs {
			acc[j] = float32(acc[j] + float32(float32(x-acc[j])*inv))
		}
	}
	return nil
}

func (a *vectorAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *vectorAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		if a.count[g] == 0 {
			continue
		}
		list := make([]any, len(a.acc[g]))
		for j, v := range a.acc[g] {
			list[j] = v
		}
		out[i] = list
	}
	return BuildArray(ctx.mem(), floatArrayType, ctx.tz(), out), nil
}
