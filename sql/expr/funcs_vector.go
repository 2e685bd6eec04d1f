package expr

import (
	"math"
	"strconv"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Vector functions over ARRAY<FLOAT> (Spark 4.2's VectorFunctionImplUtils): vector_norm,
// vector_normalize, vector_inner_product, vector_cosine_similarity, vector_l2_distance. Only
// ARRAY<FLOAT> (and a FLOAT degree) is accepted, without implicit casts, as in Spark. A NULL
// element makes the result NULL. The arithmetic is Java's float arithmetic in Spark's order:
// sums run over blocks of 8 elements (each block summed left to right, then added to the
// running total), then the tail one element at a time; square roots are taken in double and
// rounded to float. Every intermediate is converted to float32 explicitly so Go never fuses a
// multiply-add.

func init() {
	registerScalar(2, 2, bindVectorPair, "vector_inner_product", "vector_cosine_similarity", "vector_l2_distance")
	registerScalar(1, 2, bindVectorNorm, "vector_norm", "vector_normalize")
}

var floatArrayType = sqltypes.ArrayType(sqltypes.FloatType, true)

// isFloatArray reports whether t is ARRAY<FLOAT> (element nullability aside).
func isFloatArray(t sqltypes.DataType) bool {
	return t.Kind == sqltypes.Array && t.Elem != nil && t.Elem.Kind == sqltypes.Float
}

func requireFloatArray(name string, shown []Expr, i int) error {
	if !isFloatArray(shown[i].Type()) {
		return unexpectedInputType(quoteSQL(callString(name, shown)), i, `"ARRAY<FLOAT>"`, shown[i])
	}
	return nil
}

func vectorDimensionMismatch(name string, a, b int) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "VECTOR_DIMENSION_MISMATCH", "22000",
		"Vectors passed to `%s` must have the same dimension, but got %d and %d.", name, a, b).
		WithParams("functionName", "`"+name+"`", "leftDim", strconv.Itoa(a), "rightDim", strconv.Itoa(b))
}

func bindVectorPair(name string, args []Expr, _ Options) (Expr, error) {
	for i := range args {
		if err := requireFloatArray(name, args, i); err != nil {
			return nil, err
		}
	}
	null := anyNullable(args) || args[0].Type().ElemNullable || args[1].Type().ElemNullable ||
		name == "vector_cosine_similarity"
	return &rowFunc{name: name, args: args, t: sqltypes.FloatType, null: null, strict: true,
		fn: func(_ *Context, a []any) (any, error) {
			x, y := a[0].([]any), a[1].([]any)
			if len(x) != len(y) {
				return nil, vectorDimensionMismatch(name, len(x), len(y))
			}
			xs, ok1 := floatElems(x)
			ys, ok2 := floatElems(y)
			if !ok1 || !ok2 {
				return nil, nil
			}
			switch name {
			case "vector_inner_product":
				return vectorDot(xs, ys), nil
			case "vector_l2_distance":
				return vectorL2Distance(xs, ys), nil
			}
			return vectorCosine(xs, ys), nil
		}}, nil
}

// bindVectorNorm binds vector_norm(v[, degree]) and vector_normalize(v[, degree]); degree
// defaults to 2.0 and is shown in the column name as Spark shows it.
func bindVectorNorm(name string, args []Expr, _ Options) (Expr, error) {
	if len(args) == 1 {
		args = []Expr{args[0], &Literal{Value: float32(2), T: sqltypes.FloatType}}
	}
	if err := requireFloatArray(name, args, 0); err != nil {
		return nil, err
	}
	if args[1].Type().Kind != sqltypes.Float {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 1, `"FLOAT"`, args[1])
	}
	t := sqltypes.FloatType
	if name == "vector_normalize" {
		t = floatArrayType
	}
	null := anyNullable(args) || args[0].Type().ElemNullable || name == "vector_normalize"
	return &rowFunc{name: name, args: args, t: t, null: null, strict: true,
		fn: func(_ *Context, a []any) (any, error) {
			degree := a[1].(float32)
			xs, ok := floatElems(a[0].([]any))
			var norm float32
			switch {
			case degree == 1:
				norm = vectorL1Norm(xs)
			case degree == 2:
				norm = vectorL2Norm(xs)
			case math.IsInf(float64(degree), 1):
				norm = vectorInfNorm(xs)
			default:
				return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_VECTOR_NORM_DEGREE", "22023",
					"For the `%s` function, degree must be 1.0, 2.0, or float('inf'), but got %s.", name, formatFloat(degree)).
					WithParams("functionName", "`"+name+"`", "degree", formatFloat(degree))
			}
			if !ok {
				return nil, nil
			}
			if name == "vector_norm" {
				return norm, nil
			}
			if len(xs) == 0 {
				return []any{}, nil
			}
			if norm < minNormalFloat {
				return nil, nil
			}
			out := make([]any, len(xs))
			for i, v := range xs {
				out[i] = float32(v / norm)
			}
			return out, nil
		}}, nil
}

// minNormalFloat is Java's Float.MIN_NORMAL: a norm below it normalizes to NULL.
const minNormalFloat = float32(1.17549435e-38)

// floatElems unboxes an ARRAY<FLOAT> value; ok is false when an element is NULL.
func floatElems(a []any) ([]float32, bool) {
	out := make([]float32, len(a))
	for i, v := range a {
		f, isFloat := v.(float32)
		if !isFloat {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

// blocks8 is the length of the prefix of n elements Spark sums in blocks of 8.
func blocks8(n int) int { return n / 8 * 8 }

// vectorSum8 adds f(i) for i in 0..n-1 in Spark's order.
func vectorSum8(n int, f func(i int) float32) float32 {
	var s float32
	end := blocks8(n)
	i := 0
	for ; i < end; i += 8 {
		b := f(i)
		for j := 1; j < 8; j++ {
			b = float32(b + f(i+j))
		}
		s = float32(s + b)
	}
	for ; i < n; i++ {
		s = float32(s + f(i))
	}
	return s
}

func vectorDot(x, y []float32) float32 {
	return vectorSum8(len(x), func(i int) float32 { return float32(x[i] * y[i]) })
}

func vectorL2Distance(x, y []float32) float32 {
	s := vectorSum8(len(x), func(i int) float32 {
		d := float32(x[i] - y[i])
		return float32(d * d)
	})
	return float32(math.Sqrt(float64(s)))
}

// vectorCosine is NULL for empty vectors and when the product of the norms is below
// Float.MIN_NORMAL.
func vectorCosine(x, y []float32) any {
	if len(x) == 0 {
		return nil
	}
	dot := vectorDot(x, y)
	nx := vectorSum8(len(x), func(i int) float32 { return float32(x[i] * x[i]) })
	ny := vectorSum8(len(y), func(i int) float32 { return float32(y[i] * y[i]) })
	denom := float32(math.Sqrt(float64(float32(nx * ny))))
	if denom < minNormalFloat {
		return nil
	}
	return float32(dot / denom)
}

func vectorL1Norm(x []float32) float32 {
	return vectorSum8(len(x), func(i int) float32 { return float32(math.Abs(float64(x[i]))) })
}

func vectorL2Norm(x []float32) float32 {
	s := vectorSum8(len(x), func(i int) float32 { return float32(x[i] * x[i]) })
	return float32(math.Sqrt(float64(s)))
}

// vectorInfNorm is the largest absolute value (NaN never replaces the maximum, as Java's >).
func vectorInfNorm(x []float32) float32 {
	var m float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > m {
			m = a
		}
	}
	return m
}
