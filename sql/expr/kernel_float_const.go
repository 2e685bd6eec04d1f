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
	if l.isConst == r.isConst || !floatConstOp(a.op) {
		return nil, false
	}
	col, k := splitConst(l, r)
	c := float64(kernConst[T](k.k))
	xs, ok := numSlice[T](col.arr)
	if !ok || !floatConstApplies(a.op, l.isConst, c) {
		return nil, false
	}
	return floatArithConstOf[T, T](ctx, a, xs[:n], c, l.isConst, col.arr), true
}

// floatConstOp reports whether floatArithConstOf may compute op (see floatConstApplies).
func floatConstOp(op string) bool {
	return op == "+" || op == "-" || op == "*" || op == "%" || op == "pmod"
}

// floatConstApplies reports whether floatArithConstOf computes op with the constant c: + - *
// always, % and pmod by a non-zero constant divisor (a zero one, or a column divisor, needs
// floatArith's division-by-zero handling).
func floatConstApplies(op string, constLeft bool, c float64) bool {
	if op == "%" || op == "pmod" {
		return !constLeft && c != 0
	}
	return floatConstOp(op)
}

// floatArithConstOf computes float64(x) op c (c op float64(x) when constLeft; op as
// floatConstApplies allows) for each x of
// xs, rounded to T; col is the column's array (for its NULLs). S is T, or an integral type
// whose CAST AS DOUBLE is float64(x) (the fused cast of kernel_widen.go, T = float64).
func floatArithConstOf[S kernNum, T float32 | float64](ctx *Context, a *arith, xs []S, c float64, constLeft bool, col arrow.Array) arrow.Array {
	n := len(xs)
	mem := ctx.mem()
	buf, out := kernValues[T](mem, n)
	switch op := a.op; {
	case op == "*" && !constLeft:
		for i, x := range xs {
			out[i] = T(float64(x) * c)
		}
	case op == "*":
		for i, x := range xs {
			out[i] = T(c * float64(x))
		}
	case op == "+" && !constLeft:
		for i, x := range xs {
			out[i] = T(float64(x) + c)
		}
	case op == "+":
		for i, x := range xs {
			out[i] = T(c + float64(x))
		}
	case op == "%" || op == "pmod": // constant divisor (floatConstApplies)
		pmod, f := op == "pmod", newConstFmod(c)
		for i, x := range xs {
			z := f.mod(float64(x))
			if pmod && z < 0 {
				z = f.mod(z + c)
			}
			out[i] = T(z)
		}
	case !constLeft:
		for i, x := range xs {
			out[i] = T(float64(x) - c)
		}
	default:
		for i, x := range xs {
			out[i] = T(c - float64(x))
		}
	}
	return makeArray(sqltypes.ToArrow(a.t, ""), n, andValidity(mem, n, col), buf)
}
