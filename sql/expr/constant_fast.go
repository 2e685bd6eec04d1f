package expr

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Column-against-constant kernels. When one operand of an arithmetic operator or a comparison
// is a non-NULL literal (possibly under an implicit widening cast), only the other operand is
// evaluated; the constant is applied in a tight loop that writes straight into the result's
// Arrow buffer (no repeated-literal array, no intermediate Go slice). Results, errors and NULLs
// are exactly those of the general kernels (arithFast, compareFast), which remain the fallback
// for every case not handled here.

// intNum is the integral subset of fastNum.
type intNum interface{ ~int32 | ~int64 }

// constantOf returns e's value when e is a non-NULL INT/BIGINT/DOUBLE literal, or an implicit
// (widening, never failing) cast of an integral literal to one of those types.
func constantOf(e Expr) (any, bool) {
	switch x := e.(type) {
	case *Literal:
		if x.Value == nil {
			return nil, false
		}
		switch x.T.Kind {
		case sqltypes.Integer, sqltypes.Long, sqltypes.Double:
			return x.Value, true
		}
	case *castExpr:
		l, ok := x.child.(*Literal)
		if !x.implicit || !ok || l.Value == nil {
			return nil, false
		}
		from := l.T.Kind
		small := from == sqltypes.Byte || from == sqltypes.Short || from == sqltypes.Integer
		switch {
		case x.to.Kind == sqltypes.Long && (small || from == sqltypes.Long):
			return toInt64(l.Value), true
		case x.to.Kind == sqltypes.Integer && small:
			return int32(toInt64(l.Value)), true
		case x.to.Kind == sqltypes.Double && (small || from == sqltypes.Long):
			return float64(toInt64(l.Value)), true
		}
	}
	return nil, false
}

// splitConstant finds a constant operand: it returns the other operand, the constant, and
// whether the constant is the right one.
func splitConstant(left, right Expr) (Expr, any, bool, bool) {
	if v, ok := constantOf(right); ok {
		return left, v, true, true
	}
	if v, ok := constantOf(left); ok {
		return right, v, false, true
	}
	return nil, nil, false, false
}

// newValues allocates an Arrow buffer of n values of T and returns it with its values.
func newValues[T fastNum](mem memory.Allocator, n int) (*memory.Buffer, []T) {
	var zero T
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	if n == 0 {
		return buf, nil
	}
	return buf, unsafe.Slice((*T)(unsafe.Pointer(&buf.Bytes()[0])), n)
}

// withValidityOf makes an array of type dt over values buf (n rows) with col's NULLs.
func withValidityOf(mem memory.Allocator, dt arrow.DataType, buf *memory.Buffer, col arrow.Array, n int) arrow.Array {
	var bitmap *memory.Buffer
	nulls := 0
	if col.NullN() > 0 {
		bitmap, nulls = packBits(mem, validity(col))
	}
	data := array.NewData(dt, n, []*memory.Buffer{bitmap, buf}, nil, nulls, 0)
	buf.Release()
	if bitmap != nil {
		bitmap.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

func numericType[T fastNum]() arrow.DataType {
	switch any(T(0)).(type) {
	case int32:
		return arrow.PrimitiveTypes.Int32
	case int64:
		return arrow.PrimitiveTypes.Int64
	}
	return arrow.PrimitiveTypes.Float64
}

// evalConstant is arith.Eval when one operand is a constant; ok is false when the general
// kernel must run.
func (a *arith) evalConstant(ctx *Context, batch arrow.RecordBatch) (out arrow.Array, ok bool, err error) {
	if !a.in.Equal(a.t) || a.try {
		return nil, false, nil
	}
	switch a.op {
	case "+", "-", "*", "%":
	default:
		return nil, false, nil
	}
	colExpr, k, constRight, found := splitConstant(a.left, a.right)
	if !found {
		return nil, false, nil
	}
	if a.op == "%" && (!constRight || a.t.Kind == sqltypes.Double) {
		return nil, false, nil
	}
	switch a.t.Kind {
	case sqltypes.Long, sqltypes.Integer, sqltypes.Double:
	default:
		return nil, false, nil
	}
	col, err := colExpr.Eval(ctx, batch)
	if err != nil {
		return nil, true, err
	}
	defer col.Release()
	switch a.t.Kind {
	case sqltypes.Long:
		out, ok, err = arithConstInt(ctx, a, col, toInt64(k), constRight)
	case sqltypes.Integer:
		out, ok, err = arithConstInt(ctx, a, col, int32(toInt64(k)), constRight)
	default:
		out, ok = arithConstFloat(ctx, a, col, toFloat64(k), constRight)
	}
	if ok || err != nil {
		return out, true, err
	}
	// Not a plain array of the expected layout: the general kernel over a repeated constant.
	rep := repeatValue(ctx, k, a.in, col.Len())
	defer rep.Release()
	if constRight {
		out, err = a.evalArrays(ctx, col, rep)
	} else {
		out, err = a.evalArrays(ctx, rep, col)
	}
	return out, true, err
}

// arithConstInt computes col op y (or y op col) for integers with Spark's ANSI overflow and
// division-by-zero errors.
func arithConstInt[T intNum](ctx *Context, a *arith, col arrow.Array, y T, constRight bool) (arrow.Array, bool, error) {
	xs := rawValues[T](col)
	if xs == nil {
		return nil, false, nil
	}
	mem := ctx.mem()
	if a.op == "%" && y == 0 {
		if a.ansi && col.NullN() < col.Len() {
			return nil, true, sparkerr.DivideByZero()
		}
		return array.MakeArrayOfNull(mem, numericType[T](), col.Len()), true, nil
	}
	n := len(xs)
	buf, out := newValues[T](mem, n)
	var lo, hi int64 = math.MinInt64, math.MaxInt64
	if _, is32 := any(y).(int32); is32 {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	// xlo..xhi is the range of x for which x op y (or y op x) does not overflow.
	xlo, xhi := lo, hi
	yy := int64(y)
	switch a.op {
	case "+":
		for i, x := range xs {
			out[i] = x + y
		}
		if yy >= 0 {
			xhi = hi - yy
		} else {
			xlo = lo - yy
		}
	case "-":
		if constRight {
			for i, x := range xs {
				out[i] = x - y
			}
			if yy >= 0 {
				xlo = lo + yy
			} else {
				xhi = hi + yy
			}
		} else {
			for i, x := range xs {
				out[i] = y - x
			}
			if yy >= 0 {
				xlo = yy - hi
			} else {
				xhi = yy - lo
			}
		}
	case "*":
		for i, x := range xs {
			out[i] = x * y
		}
		switch {
		case yy == -1:
			xlo = lo + 1
		case yy > 1:
			xlo, xhi = lo/yy, hi/yy
		case yy < -1:
			xlo, xhi = hi/yy, lo/yy
		}
	case "%":
		remConst(out, xs, y)
	}
	if a.ansi && a.op != "%" && (xlo != lo || xhi != hi) {
		tlo, thi := T(xlo), T(xhi)
		bad := false
		for _, x := range xs {
			if x < tlo || x > thi {
				bad = true
			}
		}
		if bad && overflowsAt(col, xs, tlo, thi) {
			buf.Release()
			return nil, true, intOverflow(a.t.Kind, a.op)
		}
	}
	return withValidityOf(mem, numericType[T](), buf, col, n), true, nil
}

// overflowsAt reports whether a non-NULL row of col lies outside [lo, hi] (NULL rows may hold
// any value).
func overflowsAt[T intNum](col arrow.Array, xs []T, lo, hi T) bool {
	for i, x := range xs {
		if (x < lo || x > hi) && col.IsValid(i) {
			return true
		}
	}
	return false
}

// arithConstFloat computes col op y (or y op col) for doubles (+ - *).
func arithConstFloat(ctx *Context, a *arith, col arrow.Array, y float64, constRight bool) (arrow.Array, bool) {
	xs := rawValues[float64](col)
	if xs == nil {
		return nil, false
	}
	mem := ctx.mem()
	buf, out := newValues[float64](mem, len(xs))
	switch {
	case a.op == "+":
		for i, x := range xs {
			out[i] = x + y
		}
	case a.op == "-" && constRight:
		for i, x := range xs {
			out[i] = x - y
		}
	case a.op == "-":
		for i, x := range xs {
			out[i] = y - x
		}
	default:
		for i, x := range xs {
			out[i] = x * y
		}
	}
	return withValidityOf(mem, arrow.PrimitiveTypes.Float64, buf, col, len(xs)), true
}

// evalConstant is comparison.Eval for integer comparisons against a constant; ok is false when
// the general kernel must run.
func (c *comparison) evalConstant(ctx *Context, batch arrow.RecordBatch) (arrow.Array, bool, error) {
	switch c.op {
	case "=", "<", "<=", ">", ">=":
	default:
		return nil, false, nil
	}
	if c.in.Kind != sqltypes.Long && c.in.Kind != sqltypes.Integer {
		return nil, false, nil
	}
	colExpr, k, constRight, found := splitConstant(c.left, c.right)
	if !found {
		return nil, false, nil
	}
	op := c.op
	if !constRight {
		op = flipComparison(op)
	}
	if dividend, divisor, ok := moduloOf(colExpr); ok {
		// (x % divisor) op k in one pass, without the remainders' array.
		x, err := dividend.Eval(ctx, batch)
		if err != nil {
			return nil, true, err
		}
		defer x.Release()
		var out arrow.Array
		if c.in.Kind == sqltypes.Long {
			out = compareModConst(ctx, op, x, divisor, toInt64(k))
		} else {
			out = compareModConst(ctx, op, x, int32(divisor), int32(toInt64(k)))
		}
		if out != nil {
			return out, true, nil
		}
	}
	col, err := colExpr.Eval(ctx, batch)
	if err != nil {
		return nil, true, err
	}
	defer col.Release()
	var out arrow.Array
	if c.in.Kind == sqltypes.Long {
		out = compareConst(ctx, op, col, toInt64(k))
	} else {
		out = compareConst(ctx, op, col, int32(toInt64(k)))
	}
	if out != nil {
		return out, true, nil
	}
	rep := repeatValue(ctx, k, c.in, col.Len())
	defer rep.Release()
	if constRight {
		return c.evalArrays(ctx, col, rep), true, nil
	}
	return c.evalArrays(ctx, rep, col), true, nil
}

// flipComparison is the operator with its operands swapped (k op x ≡ x flip(op) k).
func flipComparison(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// compareConst compares col op y into a boolean array with col's NULLs; nil when col is not a
// plain array of T.
func compareConst[T intNum](ctx *Context, op string, col arrow.Array, y T) arrow.Array {
	xs := rawValues[T](col)
	if xs == nil {
		return nil
	}
	return compareWithConst(ctx, op, xs, y, false, col)
}

// moduloOf matches e = x % divisor for an integer x and a constant divisor other than 0 and -1
// (a remainder that can neither fail nor overflow), returning x and the divisor.
func moduloOf(e Expr) (Expr, int64, bool) {
	a, ok := e.(*arith)
	if !ok || a.op != "%" || a.try || !a.in.Equal(a.t) ||
		(a.t.Kind != sqltypes.Long && a.t.Kind != sqltypes.Integer) {
		return nil, 0, false
	}
	v, ok := constantOf(a.right)
	if !ok {
		return nil, 0, false
	}
	d := toInt64(v)
	if d == 0 || d == -1 {
		return nil, 0, false
	}
	return a.left, d, true
}

// compareModConst compares (col % divisor) op y into a boolean array with col's NULLs; nil
// when col is not a plain array of T.
func compareModConst[T intNum](ctx *Context, op string, col arrow.Array, divisor, y T) arrow.Array {
	xs := rawValues[T](col)
	if xs == nil {
		return nil
	}
	mem := ctx.mem()
	n := len(xs)
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	packModCompare(bits, xs, divisor, y, op)
	return withValidityOf(mem, arrow.FixedWidthTypes.Boolean, buf, col, n)
}
