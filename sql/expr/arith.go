package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// arith is a binary arithmetic operator (+ - * / % div pmod) over operands already coerced to
// a common input type; t is the result type.
type arith struct {
	op          string
	left, right Expr
	in, t       sqltypes.DataType
	ansi        bool
	// try turns every error (overflow, division by zero) into NULL (try_add etc.).
	try bool
}

func (a *arith) Type() sqltypes.DataType { return a.t }
func (a *arith) Children() []Expr        { return []Expr{a.left, a.right} }

func (a *arith) Nullable() bool {
	switch a.op {
	case "/", "%", "div", "pmod":
		return true
	}
	return a.left.Nullable() || a.right.Nullable() || (!a.ansi && a.t.Kind == sqltypes.Decimal)
}

func (a *arith) String() string { return renderSQL(a) }

func (a *arith) writeSQL(b *strings.Builder) {
	if a.op == "pmod" || a.op == "mod" {
		writeCall(b, "pmod", []Expr{a.left, a.right})
		return
	}
	b.WriteByte('(')
	writeSQL(b, a.left)
	b.WriteString(" " + a.op + " ")
	writeSQL(b, a.right)
	b.WriteByte(')')
}

func (a *arith) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	if out, ok, err := a.evalConstant(ctx, batch); ok {
		return out, err
	}
	if a.kernelKind() {
		return a.evalKernel(ctx, batch)
	}
	cols, err := evalAll(ctx, []Expr{a.left, a.right}, batch)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	return a.evalArrays(ctx, cols[0], cols[1])
}

// evalArrays applies the operator to evaluated operands.
func (a *arith) evalArrays(ctx *Context, l, r arrow.Array) (arrow.Array, error) {
	cols := [2]arrow.Array{l, r}
	if a.in.Equal(a.t) && !a.try {
		switch a.t.Kind {
		case sqltypes.Integer:
			return arithFast[int32](ctx, a, cols[0], cols[1])
		case sqltypes.Long:
			return arithFast[int64](ctx, a, cols[0], cols[1])
		case sqltypes.Double:
			return arithFast[float64](ctx, a, cols[0], cols[1])
		}
	}
	if a.t.Kind == sqltypes.Decimal {
		if out, ok, err := a.decimalFast(ctx, cols[0], cols[1]); ok || err != nil {
			return out, err
		}
	}
	return a.evalRows(ctx, cols[0], cols[1])
}

func (a *arith) evalRows(ctx *Context, l, r arrow.Array) (arrow.Array, error) {
	n := l.Len()
	out := make([]any, n)
	for i := 0; i < n; i++ {
		x, y := ValueAt(l, i, a.in), ValueAt(r, i, a.in)
		if x == nil || y == nil {
			continue
		}
		v, err := a.apply(x, y)
		if err != nil {
			if a.try {
				continue
			}
			return nil, err
		}
		out[i] = v
	}
	return BuildArray(ctx.mem(), a.t, ctx.tz(), out), nil
}

// arithFast is the vectorized kernel for int32/int64/float64.
func arithFast[T fastNum](ctx *Context, a *arith, l, r arrow.Array) (arrow.Array, error) {
	xs, ys := rawValues[T](l), rawValues[T](r)
	if xs == nil || ys == nil {
		return a.evalRows(ctx, l, r)
	}
	valid := validity(l, r)
	out := make([]T, len(xs))
	isFloat := a.t.Kind == sqltypes.Double
	var lo, hi int64 = math.MinInt64, math.MaxInt64
	if a.t.Kind == sqltypes.Integer {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	setNull := func(i int) {
		if valid == nil {
			valid = make([]bool, len(xs))
			for j := range valid {
				valid[j] = true
			}
		}
		valid[i] = false
	}
	switch a.op {
	case "+", "-", "*":
		for i := range xs {
			x, y := xs[i], ys[i]
			var z T
			switch a.op {
			case "+":
				z = x + y
			case "-":
				z = x - y
			default:
				z = x * y
			}
			out[i] = z
			if !isFloat && a.ansi && (valid == nil || valid[i]) {
				if overflowed(int64(x), int64(y), int64(z), a.op, lo, hi) {
					return nil, intOverflow(a.t.Kind, a.op)
				}
			}
		}
	case "%":
		if isFloat {
			return a.evalRows(ctx, l, r)
		}
		// Integer remainder: Java's sign rules are Go's; x % -1 is 0 (also for the minimum).
		for i := range xs {
			if valid != nil && !valid[i] {
				continue
			}
			y := ys[i]
			switch y {
			case 0:
				if a.ansi {
					return nil, sparkerr.DivideByZero()
				}
				setNull(i)
			case -1:
				out[i] = 0
			default:
				out[i] = remainder(xs[i], y)
			}
		}
	default:
		for i := range xs {
			if valid != nil && !valid[i] {
				continue
			}
			v, err := a.apply(any(xs[i]), any(ys[i]))
			if err != nil {
				return nil, err
			}
			if v == nil {
				setNull(i)
				continue
			}
			out[i] = v.(T)
		}
	}
	return buildNumeric(ctx.mem(), out, valid), nil
}

// overflowed reports whether z = x op y overflowed the range [lo, hi] (z computed with wrapping
// in the operand width).
func overflowed(x, y, z int64, op string, lo, hi int64) bool {
	if lo == math.MinInt32 {
		var w int64
		switch op {
		case "+":
			w = x + y
		case "-":
			w = x - y
		default:
			w = x * y
		}
		return w < lo || w > hi
	}
	switch op {
	case "+":
		return (x >= 0) == (y >= 0) && (z >= 0) != (x >= 0)
	case "-":
		return (x >= 0) != (y >= 0) && (z >= 0) != (x >= 0)
	}
	if x == 0 || y == 0 {
		return false
	}
	return z/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64)
}

// apply computes one row; nil means NULL.
func (a *arith) apply(x, y any) (any, error) {
	switch a.in.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		return a.applyInt(toInt64(x), toInt64(y))
	case sqltypes.Float, sqltypes.Double:
		return a.applyFloat(toFloat64(x), toFloat64(y))
	case sqltypes.Decimal:
		return a.applyDecimal(x.(decimal128.Num), y.(decimal128.Num))
	}
	return nil, sparkerr.Internal("arithmetic over %s", a.in)
}

func (a *arith) divByZero() (any, error) {
	if a.ansi {
		return nil, sparkerr.DivideByZero()
	}
	return nil, nil
}

func (a *arith) applyInt(x, y int64) (any, error) {
	lo, hi := integralBounds(a.in.Kind)
	var z int64
	switch a.op {
	case "+", "-", "*":
		var ov bool
		switch a.op {
		case "+":
			z = x + y
		case "-":
			z = x - y
		default:
			z = x * y
		}
		ov = overflowed(x, y, z, a.op, math.MinInt64, math.MaxInt64) || z < lo || z > hi
		if ov && a.ansi {
			return nil, intOverflow(a.in.Kind, a.op)
		}
	case "div":
		if y == 0 {
			return a.divByZero()
		}
		if x == math.MinInt64 && y == -1 {
			if a.ansi {
				return nil, intOverflow(sqltypes.Long, "div")
			}
			return int64(math.MinInt64), nil
		}
		return x / y, nil
	case "%":
		if y == 0 {
			return a.divByZero()
		}
		if y == -1 {
			z = 0
		} else {
			z = x % y
		}
	case "pmod":
		if y == 0 {
			return a.divByZero()
		}
		if y == -1 {
			z = 0
		} else {
			z = x % y
			if z < 0 {
				z = (z + y) % y
			}
		}
	}
	return narrow(z, a.t.Kind), nil
}

func (a *arith) applyFloat(x, y float64) (any, error) {
	var z float64
	switch a.op {
	case "+":
		z = x + y
	case "-":
		z = x - y
	case "*":
		z = x * y
	case "/":
		if y == 0 {
			return a.divByZero()
		}
		z = x / y
	case "%":
		if y == 0 {
			return a.divByZero()
		}
		z = math.Mod(x, y)
	case "pmod":
		if y == 0 {
			return a.divByZero()
		}
		z = math.Mod(x, y)
		if z < 0 {
			z = math.Mod(z+y, y)
		}
	case "div":
		if y == 0 {
			return a.divByZero()
		}
		return int64(x / y), nil
	}
	if a.t.Kind == sqltypes.Float {
		return float32(z), nil
	}
	return z, nil
}

func (a *arith) applyDecimal(xn, yn decimal128.Num) (any, error) {
	x, y := xn.BigInt(), yn.BigInt()
	s1, s2 := a.leftScale(), a.rightScale()
	var z *big.Int
	var zs int32
	switch a.op {
	case "+", "-":
		zs = max(s1, s2)
		xa, ya := rescale(x, s1, zs), rescale(y, s2, zs)
		if a.op == "+" {
			z = xa.Add(xa, ya)
		} else {
			z = xa.Sub(xa, ya)
		}
	case "*":
		z, zs = new(big.Int).Mul(x, y), s1+s2
	case "/":
		if y.Sign() == 0 {
			return a.divByZero()
		}
		s := a.t.Scale
		num := new(big.Int).Mul(x, pow10(s+s2))
		den := new(big.Int).Mul(y, pow10(s1))
		z, zs = divHalfUp(num, den), s
	case "%", "pmod":
		if y.Sign() == 0 {
			return a.divByZero()
		}
		zs = max(s1, s2)
		xa, ya := rescale(x, s1, zs), rescale(y, s2, zs)
		z = new(big.Int).Rem(xa, ya)
		if a.op == "pmod" && z.Sign() < 0 {
			z.Add(z, ya)
			z.Rem(z, ya)
		}
	case "div":
		if y.Sign() == 0 {
			return a.divByZero()
		}
		zs = max(s1, s2)
		xa, ya := rescale(x, s1, zs), rescale(y, s2, zs)
		q := new(big.Int).Quo(xa, ya)
		if !q.IsInt64() {
			if a.ansi {
				return nil, intOverflow(sqltypes.Long, "div")
			}
			return nil, nil
		}
		return q.Int64(), nil
	}
	r := rescale(z, zs, a.t.Scale)
	if !fitsPrecision(r, a.t.Precision) {
		if a.ansi {
			return nil, decimalOverflow(formatBigDecimal(new(big.Int).Set(r), a.t.Scale), a.t.Precision, a.t.Scale)
		}
		return nil, nil
	}
	return bigToNum(r), nil
}

// Decimal operands keep their own scales: in is the left type, rightIn the right's.
func (a *arith) leftScale() int32  { return a.left.Type().Scale }
func (a *arith) rightScale() int32 { return a.right.Type().Scale }

// decimalOperandType is the decimal type an operand takes in decimal arithmetic (Spark's
// DecimalPrecision: integral literals use their digit count).
func decimalOperandType(e Expr) sqltypes.DataType {
	t := e.Type()
	if t.Kind == sqltypes.Decimal {
		return t
	}
	if l, ok := e.(*Literal); ok && l.Value != nil && t.IsIntegral() {
		n := toInt64(l.Value)
		if n < 0 {
			n = -n
		}
		p := int32(len(strconv.FormatInt(n, 10)))
		return sqltypes.DecimalType(p, 0)
	}
	return decimalForIntegral(t)
}

// decimalResultType is Spark's DecimalPrecision result type for op.
func decimalResultType(op string, l, r sqltypes.DataType) sqltypes.DataType {
	p1, s1, p2, s2 := l.Precision, l.Scale, r.Precision, r.Scale
	switch op {
	case "+", "-":
		s := max(s1, s2)
		return adjustPrecisionScale(max(p1-s1, p2-s2)+s+1, s)
	case "*":
		return adjustPrecisionScale(p1+p2+1, s1+s2)
	case "/":
		s := max(6, s1+p2+1)
		return adjustPrecisionScale(p1-s1+s2+s, s)
	case "%", "pmod":
		s := max(s1, s2)
		return adjustPrecisionScale(min(p1-s1, p2-s2)+s, s)
	}
	return sqltypes.LongType
}

// remainder is x % y for the integer instantiations of fastNum (the float one never calls it).
func remainder[T fastNum](x, y T) T {
	switch xv := any(x).(type) {
	case int64:
		return T(xv % int64(y))
	case int32:
		return T(xv % int32(y))
	}
	return 0
}
