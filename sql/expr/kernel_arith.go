package expr

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Typed arithmetic kernels: + - * % pmod over TINYINT..BIGINT, div over BIGINT, + - * / %
// pmod over FLOAT and DOUBLE, column-column and column-constant in either order, and their
// try_ forms (a row that overflows or divides by zero is NULL). Values are computed for every
// row, NULL rows included (their slots hold whatever the inputs held); overflow and zero
// divisors are flagged without branching on validity, and only when a flag is raised are the
// rows looked at again to see whether a valid row caused it.

// kernelKind reports whether the typed kernel computes a (not try_, input type = result type).
func (a *arith) kernelKind() bool {
	if !a.in.Equal(a.t) || (a.try && a.t.Kind == sqltypes.Decimal) {
		return a.decimalKernelPlan() != nil
	}
	switch a.t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		switch a.op {
		case "+", "-", "*", "%", "pmod":
			return true
		case "div":
			return a.t.Kind == sqltypes.Long
		}
	case sqltypes.Float, sqltypes.Double:
		switch a.op {
		case "+", "-", "*", "/", "%", "pmod":
			return true
		}
	case sqltypes.Decimal:
		return a.decimalKernelPlan() != nil
	}
	return false
}

// evalKernel evaluates both operands and runs the typed kernel; operands whose arrays are not
// of the plain layout go to the general path.
func (a *arith) evalKernel(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	if out, ok, err := a.widenedKernel(ctx, batch); ok {
		return out, err
	}
	l, err := evalOperand(ctx, a.left, batch)
	if err != nil {
		return nil, err
	}
	defer l.release()
	r, err := evalOperand(ctx, a.right, batch)
	if err != nil {
		return nil, err
	}
	defer r.release()
	n := int(batch.NumRows())
	if out, ok, err := a.kernel(ctx, l, r, n); ok {
		return out, err
	}
	la, ra := l.materialize(ctx, a.left.Type(), n), r.materialize(ctx, a.right.Type(), n)
	defer la.Release()
	defer ra.Release()
	return a.evalArrays(ctx, la, ra)
}

// kernel dispatches on the result type; ok is false when an operand is not a plain array.
func (a *arith) kernel(ctx *Context, l, r operand, n int) (arrow.Array, bool, error) {
	if (l.isConst && l.k == nil) || (r.isConst && r.k == nil) {
		return array0Null(ctx, a.t, n), true, nil
	}
	if p := a.decimalKernelPlan(); p != nil {
		return decimalKernel(ctx, a, p, l, r, n)
	}
	switch a.t.Kind {
	case sqltypes.Byte:
		return intArith[int8](ctx, a, l, r, n)
	case sqltypes.Short:
		return intArith[int16](ctx, a, l, r, n)
	case sqltypes.Integer:
		return intArith[int32](ctx, a, l, r, n)
	case sqltypes.Long:
		return intArith[int64](ctx, a, l, r, n)
	case sqltypes.Float:
		return floatArith[float32](ctx, a, l, r, n)
	case sqltypes.Double:
		return floatArith[float64](ctx, a, l, r, n)
	}
	return nil, false, nil
}

// array0Null is n NULLs of t.
func array0Null(ctx *Context, t sqltypes.DataType, n int) arrow.Array {
	return repeatValue(ctx, nil, t, n)
}

// operandSlice is o's values as []T (a constant broadcast to n rows) and its array (nil for a
// constant).
func operandSlice[T kernNum](o operand, n int) ([]T, arrow.Array, bool) {
	if o.isConst {
		return broadcast(kernConst[T](o.k), n), nil, true
	}
	xs, ok := numSlice[T](o.arr)
	return xs, o.arr, ok
}

func intArith[T int8 | int16 | int32 | int64](ctx *Context, a *arith, l, r operand, n int) (arrow.Array, bool, error) {
	xs, la, ok1 := operandSlice[T](l, n)
	ys, ra, ok2 := operandSlice[T](r, n)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	mem := ctx.mem()
	buf, out := kernValues[T](mem, n)
	valid := andValidity(mem, n, la, ra)
	var ov bool
	switch a.op {
	case "+", "-", "*":
		ov = intAddSubMul(a.op, xs, ys, out)
		bad := func(i int) bool { return intOverflows(a.op, xs[i], ys[i]) }
		switch {
		case ov && a.try:
			valid = clearFlagged(mem, valid, n, bad)
		case ov && a.ansi && anyValidFlagged(valid, n, bad):
			buf.Release()
			releaseBuf(valid)
			return nil, true, intOverflow(a.t.Kind, a.op)
		}
	case "div":
		zero, minus := false, false
		for i := range out {
			x, y := int64(xs[i]), int64(ys[i])
			d := y
			if d == 0 || d == -1 {
				d = 1
				zero = zero || y == 0
				minus = minus || y == -1
			}
			q := x / d
			if y == -1 {
				q = -x // wraps for MinInt64, as the legacy row path returns
			}
			out[i] = T(q)
		}
		overflows := func(i int) bool { return ys[i] == -1 && int64(xs[i]) == math.MinInt64 }
		if (zero || minus) && a.ansi && !a.try {
			// The first valid row that fails gives the error, as row by row.
			for i := 0; i < n; i++ {
				if !isValidBit(valid, i) || (ys[i] != 0 && !overflows(i)) {
					continue
				}
				buf.Release()
				releaseBuf(valid)
				if ys[i] == 0 {
					return nil, true, sparkerr.DivideByZero()
				}
				return nil, true, intOverflow(sqltypes.Long, "div")
			}
		}
		if minus && a.try {
			valid = clearFlagged(mem, valid, n, overflows)
		}
		if zero {
			var err error
			valid, err = a.zeroDivisors(mem, valid, n, func(i int) bool { return ys[i] == 0 })
			if err != nil {
				buf.Release()
				return nil, true, err
			}
		}
	default:
		pmod := a.op == "pmod"
		zero := false
		for i := range out {
			x, y := int64(xs[i]), int64(ys[i])
			d := y
			if d == 0 || d == -1 {
				d = 1
				zero = zero || y == 0
			}
			z := x % d
			if pmod && z < 0 {
				z = (z + d) % d
			}
			out[i] = T(z)
		}
		if zero {
			var err error
			valid, err = a.zeroDivisors(mem, valid, n, func(i int) bool { return ys[i] == 0 })
			if err != nil {
				buf.Release()
				return nil, true, err
			}
		}
	}
	return makeArray(sqltypes.ToArrow(a.t, ""), n, valid, buf), true, nil
}

// intAddSubMul computes out = xs op ys with wrapping and reports whether any row overflowed T.
func intAddSubMul[T int8 | int16 | int32 | int64](op string, xs, ys, out []T) bool {
	var flag T
	var zero T
	if _, wide := any(zero).(int64); wide {
		switch op {
		case "+":
			for i := range out {
				x, y := xs[i], ys[i]
				z := x + y
				out[i] = z
				flag |= (x ^ z) & (y ^ z)
			}
			return flag < 0
		case "-":
			for i := range out {
				x, y := xs[i], ys[i]
				z := x - y
				out[i] = z
				flag |= (x ^ y) & (x ^ z)
			}
			return flag < 0
		}
		var bad uint64
		for i := range out {
			x, y := int64(xs[i]), int64(ys[i])
			hi, lo := bits.Mul64(uint64(x), uint64(y))
			hi -= uint64(y) & uint64(x>>63)
			hi -= uint64(x) & uint64(y>>63)
			out[i] = T(int64(lo))
			bad |= hi ^ uint64(int64(lo)>>63)
		}
		return bad != 0
	}
	var bad int64
	switch op {
	case "+":
		for i := range out {
			w := int64(xs[i]) + int64(ys[i])
			out[i] = T(w)
			bad |= w ^ int64(T(w))
		}
	case "-":
		for i := range out {
			w := int64(xs[i]) - int64(ys[i])
			out[i] = T(w)
			bad |= w ^ int64(T(w))
		}
	default:
		for i := range out {
			w := int64(xs[i]) * int64(ys[i])
			out[i] = T(w)
			bad |= w ^ int64(T(w))
		}
	}
	return bad != 0
}

// intOverflows reports whether x op y overflows T (the exact check, for one row).
func intOverflows[T int8 | int16 | int32 | int64](op string, x, y T) bool {
	var out [1]T
	return intAddSubMul(op, []T{x}, []T{y}, out[:])
}

// anyValidFlagged reports whether a valid row (valid nil: every row) satisfies bad.
func anyValidFlagged(valid *memory.Buffer, n int, bad func(int) bool) bool {
	for i := 0; i < n; i++ {
		if isValidBit(valid, i) && bad(i) {
			return true
		}
	}
	return false
}

// clearFlagged makes NULL the valid rows that satisfy bad (valid nil: every row valid; the
// bitmap is allocated when a row is cleared).
func clearFlagged(mem memory.Allocator, valid *memory.Buffer, n int, bad func(int) bool) *memory.Buffer {
	for i := 0; i < n; i++ {
		if isValidBit(valid, i) && bad(i) {
			if valid == nil {
				valid = allValid(mem, n)
			}
			bitutil.ClearBit(valid.Bytes(), i)
		}
	}
	return valid
}

// zeroDivisors applies division by zero at the valid rows where isZero: Spark's error under
// ANSI (not for try_), else NULL (the rows are cleared from valid, allocated if nil).
func (a *arith) zeroDivisors(mem memory.Allocator, valid *memory.Buffer, n int, isZero func(int) bool) (*memory.Buffer, error) {
	for i := 0; i < n; i++ {
		if !isZero(i) || !isValidBit(valid, i) {
			continue
		}
		if a.ansi && !a.try {
			releaseBuf(valid)
			return nil, sparkerr.DivideByZero()
		}
		if valid == nil {
			valid = allValid(mem, n)
		}
		bitutil.ClearBit(valid.Bytes(), i)
	}
	return valid, nil
}

func releaseBuf(b *memory.Buffer) {
	if b != nil {
		b.Release()
	}
}

func floatArith[T float32 | float64](ctx *Context, a *arith, l, r operand, n int) (arrow.Array, bool, error) {
	if out, ok := floatArithConst[T](ctx, a, l, r, n); ok {
		return out, true, nil
	}
	xs, la, ok1 := operandSlice[T](l, n)
	ys, ra, ok2 := operandSlice[T](r, n)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	mem := ctx.mem()
	buf, out := kernValues[T](mem, n)
	valid := andValidity(mem, n, la, ra)
	divides := false
	switch a.op {
	case "+":
		for i := range out {
			out[i] = T(float64(xs[i]) + float64(ys[i]))
		}
	case "-":
		for i := range out {
			out[i] = T(float64(xs[i]) - float64(ys[i]))
		}
	case "*":
		for i := range out {
			out[i] = T(float64(xs[i]) * float64(ys[i]))
		}
	case "/":
		divides = true
		for i := range out {
			out[i] = T(float64(xs[i]) / float64(ys[i]))
		}
	default:
		divides = true
		pmod := a.op == "pmod"
		for i := range out {
			x, y := float64(xs[i]), float64(ys[i])
			z := fmod(x, y)
			if pmod && z < 0 {
				z = fmod(z+y, y)
			}
			out[i] = T(z)
		}
	}
	if divides {
		zero := false
		for _, y := range ys {
			zero = zero || y == 0
		}
		if zero {
			var err error
			valid, err = a.zeroDivisors(mem, valid, n, func(i int) bool { return ys[i] == 0 })
			if err != nil {
				buf.Release()
				return nil, true, err
			}
		}
	}
	return makeArray(sqltypes.ToArrow(a.t, ""), n, valid, buf), true, nil
}

// negateKernel is the vec of unary minus over integers (MIN overflows: an error under ANSI,
// raised by the row path, wrapping otherwise), floats and decimals (never past their
// precision).
func negateKernel(t sqltypes.DataType, ansi bool) func(*Context, []arrow.Array) (arrow.Array, bool) {
	return func(ctx *Context, cols []arrow.Array) (arrow.Array, bool) {
		in := cols[0]
		mem := ctx.mem()
		n := in.Len()
		switch t.Kind {
		case sqltypes.Byte:
			return negateInts[int8](ctx, in, t, ansi)
		case sqltypes.Short:
			return negateInts[int16](ctx, in, t, ansi)
		case sqltypes.Integer:
			return negateInts[int32](ctx, in, t, ansi)
		case sqltypes.Long:
			return negateInts[int64](ctx, in, t, ansi)
		case sqltypes.Float:
			return negateFloats[float32](ctx, in, t)
		case sqltypes.Double:
			return negateFloats[float64](ctx, in, t)
		case sqltypes.Decimal:
			d, ok := in.(*array.Decimal128)
			if !ok {
				return nil, false
			}
			buf, out := newDecimalValues(mem, n)
			for i, x := range d.Values() {
				out[i] = x.Negate()
			}
			return makeArray(sqltypes.ToArrow(t, ""), n, andValidity(mem, n, in), buf), true
		}
		return nil, false
	}
}

func negateInts[T int8 | int16 | int32 | int64](ctx *Context, in arrow.Array, t sqltypes.DataType, check bool) (arrow.Array, bool) {
	xs, ok := numSlice[T](in)
	if !ok {
		return nil, false
	}
	mem := ctx.mem()
	n := len(xs)
	valid := andValidity(mem, n, in)
	lo := T(1) << (8*unsafe.Sizeof(T(0)) - 1)
	if check && anyValidFlagged(valid, n, func(i int) bool { return xs[i] == lo }) {
		releaseBuf(valid)
		return nil, false
	}
	buf, out := kernValues[T](mem, n)
	for i, x := range xs {
		out[i] = -x
	}
	return makeArray(sqltypes.ToArrow(t, ""), n, valid, buf), true
}

func negateFloats[T float32 | float64](ctx *Context, in arrow.Array, t sqltypes.DataType) (arrow.Array, bool) {
	xs, ok := numSlice[T](in)
	if !ok {
		return nil, false
	}
	mem := ctx.mem()
	buf, out := kernValues[T](mem, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return makeArray(sqltypes.ToArrow(t, ""), len(xs), andValidity(mem, len(xs), in), buf), true
}
