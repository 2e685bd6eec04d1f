package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// floatArithConst is floatArith's + - * of a float column and a constant (either side)
// without broadcasting the constant into a column of n copies first (a tenth of
// `sum(CAST(id AS DOUBLE) * 0.95)`'s CPU went to writing and reading that column). The
// constant is converted as operandSlice converts it and each operation keeps its operand
// order, so the results are floatArith's bit for bit. ok is false for other shapes.
func floatArithConst[T float32 | float64](ctx *Context, a *arith, l, r operand, n int) (arrow.Array, bool) {
	if l.isConst == r.isConst || (a.op != "+" && a.op != "-" && a.op != "*") {
		return nil, false
	}
	col, k := l, r
	if l.isConst {
		col, k = r, l
	}
	xs, ok := numSlice[T](col.arr)
	if !ok {
		return nil, false
	}
	xs = xs[:n]
	c := float64(kernConst[T](k.k))
	mem := ctx.mem()
	buf, out := kernValues[T](mem, n)
	switch op := a.op; {
	case op == "*" && r.isConst:
		for i, x := range xs {
			out[i] = T(float64(x) * c)
		}
	case op == "*":
		for i, x := range xs {
			out[i] = T(c * float64(x))
		}
	case op == "+" && r.isConst:
		for i, x := range xs {
			out[i] = T(float64(x) + c)
		}
	case op == "+":
		for i, x := range xs {
			out[i] = T(c + float64(x))
		}
	case r.isConst:
		for i, x := range xs {
			out[i] = T(float64(x) - c)
		}
	default:
		for i, x := range xs {
			out[i] = T(c - float64(x))
		}
	}
	return makeArray(sqltypes.ToArrow(a.t, ""), n, andValidity(mem, n, col.arr), buf), true
}
