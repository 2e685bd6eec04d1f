package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Fused CAST(integral AS DOUBLE) kernels: a comparison or a + - * over DOUBLE whose operands
// are CAST(x AS DOUBLE) of a TINYINT..BIGINT column and a constant reads x's values and
// converts each with float64(x) inside its own loop (that is what the cast kernel, castNum,
// writes), so no column of doubles is allocated, zeroed, written and read back per batch
// (`count(*) WHERE CAST(id AS DOUBLE) > 5.0` and `sum(CAST(id AS DOUBLE) * 0.95)` spent about
// half their CPU on that column and the constant's broadcast). The results are the unfused
// kernels' bit for bit: the randomized test compares them with the row-wise path.

// doubleOfIntegral returns x when e is CAST(x AS DOUBLE) (not try_cast) of an integral x.
func doubleOfIntegral(e Expr) (*castExpr, bool) {
	c, ok := e.(*castExpr)
	if !ok || c.try || c.to.Kind != sqltypes.Double {
		return nil, false
	}
	switch c.child.Type().Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		return c, !isConstantExpr(c.child)
	}
	return nil, false
}

// widened is the evaluated operands of a fused kernel: the cast, its child's values (arr, the
// caller releases it) and the constant k, on the left when constLeft.
type widened struct {
	cast      *castExpr
	arr       arrow.Array
	k         operand
	constLeft bool
}

// evalWidened evaluates left and right, in that order, when one is a widening cast of a
// column (doubleOfIntegral) and the other a constant; ok is false otherwise (nothing is
// evaluated then).
func evalWidened(ctx *Context, left, right Expr, batch arrow.RecordBatch) (w widened, ok bool, err error) {
	if batch.NumRows() == 0 {
		return w, false, nil
	}
	c, isCast := doubleOfIntegral(left)
	k := right
	if !isCast {
		c, isCast = doubleOfIntegral(right)
		k, w.constLeft = left, true
	}
	if !isCast || !isConstantExpr(k) {
		return w, false, nil
	}
	w.cast = c
	evalK := func() error {
		w.k, err = evalOperand(ctx, k, batch)
		return err
	}
	if w.constLeft {
		if err := evalK(); err != nil {
			return w, true, err
		}
	}
	if w.arr, err = c.child.Eval(ctx, batch); err != nil {
		return w, true, err
	}
	if !w.constLeft {
		if err := evalK(); err != nil {
			w.arr.Release()
			return w, true, err
		}
	}
	return w, true, nil
}

// runWidened evaluates left and right through evalWidened and computes them with fused (nil
// for an array layout it does not read), or with unfused over the cast column; a NULL
// constant gives n NULLs of t. ok is false when the operands are not of the fused shape.
func runWidened(ctx *Context, left, right Expr, batch arrow.RecordBatch, t sqltypes.DataType,
	fused func(arr arrow.Array, k float64, constLeft bool) arrow.Array,
	unfused func(l, r operand, n int) (arrow.Array, error)) (arrow.Array, bool, error) {
	w, ok, err := evalWidened(ctx, left, right, batch)
	if !ok || err != nil {
		return nil, ok, err
	}
	defer w.arr.Release()
	n := int(batch.NumRows())
	if w.k.k == nil {
		return array0Null(ctx, t, n), true, nil
	}
	if out := fused(w.arr, kernConst[float64](w.k.k), w.constLeft); out != nil {
		return out, true, nil
	}
	cast, err := w.cast.castArray(ctx, w.arr)
	if err != nil {
		return nil, true, err
	}
	defer cast.Release()
	l, r := operand{arr: cast}, w.k
	if w.constLeft {
		l, r = w.k, operand{arr: cast}
	}
	out, err := unfused(l, r, n)
	return out, true, err
}

// widenedKernel is the fused comparison (not <=>) of CAST(integral column AS DOUBLE) with a
// constant; ok is false for other shapes.
func (c *comparison) widenedKernel(ctx *Context, batch arrow.RecordBatch) (arrow.Array, bool, error) {
	if c.op == "<=>" || c.in.Kind != sqltypes.Double {
		return nil, false, nil
	}
	fused := func(arr arrow.Array, k float64, constLeft bool) arrow.Array {
		return compareWidened(ctx, c.op, arr, k, constLeft)
	}
	unfused := func(l, r operand, n int) (arrow.Array, error) {
		out, _ := c.kernel(ctx, l, r, n) // DOUBLE operands: the typed kernel always applies
		return out, nil
	}
	return runWidened(ctx, c.left, c.right, batch, sqltypes.BooleanType, fused, unfused)
}

// compareWidened dispatches compareWithConst on the integral layout of arr (nil for another).
func compareWidened(ctx *Context, op string, arr arrow.Array, k float64, constLeft bool) arrow.Array {
	if xs, ok := numSlice[int64](arr); ok {
		return compareWithConst(ctx, op, xs, k, constLeft, arr)
	}
	if xs, ok := numSlice[int32](arr); ok {
		return compareWithConst(ctx, op, xs, k, constLeft, arr)
	}
	if xs, ok := numSlice[int16](arr); ok {
		return compareWithConst(ctx, op, xs, k, constLeft, arr)
	}
	if xs, ok := numSlice[int8](arr); ok {
		return compareWithConst(ctx, op, xs, k, constLeft, arr)
	}
	return nil
}

// widenedKernel is the fused + - * % pmod of CAST(integral column AS DOUBLE) and a constant
// (not try_; a remainder by a constant divisor other than zero, else unfused); ok is false
// for other shapes.
func (a *arith) widenedKernel(ctx *Context, batch arrow.RecordBatch) (arrow.Array, bool, error) {
	if a.try || a.t.Kind != sqltypes.Double || !a.in.Equal(a.t) || !floatConstOp(a.op) {
		return nil, false, nil
	}
	unfused := func(l, r operand, n int) (arrow.Array, error) {
		out, _, err := a.kernel(ctx, l, r, n) // DOUBLE operands: the typed kernel always applies
		return out, err
	}
	return runWidened(ctx, a.left, a.right, batch, a.t, func(arr arrow.Array, k float64, constLeft bool) arrow.Array {
		return a.arithWidened(ctx, arr, k, constLeft)
	}, unfused)
}

// arithWidened dispatches floatArithConstOf on the integral layout of arr (nil for another).
func (a *arith) arithWidened(ctx *Context, arr arrow.Array, k float64, constLeft bool) arrow.Array {
	if !floatConstApplies(a.op, constLeft, k) {
		return nil
	}
	if xs, ok := numSlice[int64](arr); ok {
		return floatArithConstOf[int64, float64](ctx, a, xs, k, constLeft, arr)
	}
	if xs, ok := numSlice[int32](arr); ok {
		return floatArithConstOf[int32, float64](ctx, a, xs, k, constLeft, arr)
	}
	if xs, ok := numSlice[int16](arr); ok {
		return floatArithConstOf[int16, float64](ctx, a, xs, k, constLeft, arr)
	}
	if xs, ok := numSlice[int8](arr); ok {
		return floatArithConstOf[int8, float64](ctx, a, xs, k, constLeft, arr)
	}
	return nil
}
