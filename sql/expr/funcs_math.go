package expr

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Math functions.

func init() {
	registerScalar(1, 1, bindAbs, "abs")
	registerScalar(1, 2, bindCeilFloor, "ceil", "ceiling", "floor")
	registerScalar(1, 2, bindRound, "round", "bround")
	for name, fn := range map[string]func(float64) float64{
		"sqrt": math.Sqrt, "exp": math.Exp, "cbrt": math.Cbrt, "sin": math.Sin, "cos": math.Cos,
		"tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan, "sinh": math.Sinh,
		"cosh": math.Cosh, "tanh": math.Tanh, "asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh,
		"degrees": func(x float64) float64 { return x * 180 / math.Pi },
		"radians": func(x float64) float64 { return x * math.Pi / 180 },
		"expm1":   math.Expm1, "rint": math.RoundToEven,
		"cot": func(x float64) float64 { return 1 / math.Tan(x) },
		"sec": func(x float64) float64 { return 1 / math.Cos(x) },
		"csc": func(x float64) float64 { return 1 / math.Sin(x) },
	} {
		registerScalar(1, 1, unaryDouble(fn, false), name)
	}
	registerScalar(1, 1, unaryDouble(math.Log, true), "ln")
	registerScalar(1, 1, unaryDouble(math.Log10, true), "log10")
	registerScalar(1, 1, unaryDouble(math.Log2, true), "log2")
	registerScalar(1, 1, unaryDouble(math.Log1p, true), "log1p")
	registerScalar(1, 2, bindLog, "log")
	registerScalar(1, 1, unaryDouble(signum, false), "sign", "signum")
	registerScalar(2, 2, binaryDouble(math.Pow), "pow", "power")
	registerScalar(2, 2, binaryDouble(math.Atan2), "atan2")
	registerScalar(2, 2, binaryDouble(math.Hypot), "hypot")
	registerScalar(0, 1, bindRand, "rand", "random", "randn")
	registerScalar(2, -1, bindGreatestLeast, "greatest", "least")
	registerScalar(0, 0, bindConstant, "pi", "e")
	registerScalar(2, 2, bindNanvl, "nanvl")
	registerScalar(2, 2, bindBitwise, "&", "|", "^", "bitwise_and", "bitwise_or", "bitwise_xor")
	registerScalar(1, 1, bindBitwiseNot, "~", "bitwise_not")
	registerScalar(2, 2, bindShift, "shiftleft", "shiftright", "shiftrightunsigned", "<<", ">>", ">>>")
	registerScalar(2, 2, bindTryArith, "try_add", "try_subtract", "try_multiply", "try_divide", "try_mod")
	registerScalar(1, 1, bindZeroNull, "zeroifnull", "nullifzero")
	registerScalar(1, 1, bindFactorial, "factorial")
	registerScalar(1, 1, bindHex, "hex")
	registerScalar(1, 1, bindUnhex, "unhex")
	registerScalar(1, 1, bindBin, "bin")
	registerScalar(3, 3, bindConv, "conv")
}

// mathNames is Spark's rendering name for functions whose prettyName differs from the call name.
var mathNames = map[string]string{
	"sqrt": "SQRT", "exp": "EXP", "cbrt": "CBRT", "sin": "SIN", "cos": "COS", "tan": "TAN",
	"asin": "ASIN", "acos": "ACOS", "atan": "ATAN", "sinh": "SINH", "cosh": "COSH", "tanh": "TANH",
	"asinh": "ASINH", "acosh": "ACOSH", "atanh": "ATANH", "degrees": "DEGREES", "radians": "RADIANS",
	"expm1": "EXPM1", "log10": "LOG10", "log2": "LOG2", "log1p": "LOG1P", "signum": "SIGNUM",
	"pow": "POWER", "power": "POWER", "atan2": "ATAN2", "hypot": "HYPOT", "ceil": "CEIL", "floor": "FLOOR",
	"cot": "COT", "sec": "SEC", "csc": "CSC", "pi": "PI", "e": "E",
}

func prettyName(name string) string {
	if p, ok := mathNames[name]; ok {
		return p
	}
	return name
}

func signum(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func unaryDouble(fn func(float64) float64, logLike bool) func(string, []Expr, Options) (Expr, error) {
	return func(name string, args []Expr, opts Options) (Expr, error) {
		cs, err := coerceArgs(name, args, opts, sqltypes.DoubleType)
		if err != nil {
			return nil, err
		}
		f := strict(name, cs, sqltypes.DoubleType, func(_ *Context, a []any) (any, error) {
			x := a[0].(float64)
			if logLike && x <= 0 && !(name == "log1p" && x > -1) {
				return nil, nil
			}
			return fn(x), nil
		})
		f.null = f.null || logLike
		f.text = callText(prettyName(name), args)
		return f, nil
	}
}

func binaryDouble(fn func(float64, float64) float64) func(string, []Expr, Options) (Expr, error) {
	return func(name string, args []Expr, opts Options) (Expr, error) {
		cs, err := coerceArgs(name, args, opts, sqltypes.DoubleType)
		if err != nil {
			return nil, err
		}
		f := strict(name, cs, sqltypes.DoubleType, func(_ *Context, a []any) (any, error) {
			return fn(a[0].(float64), a[1].(float64)), nil
		})
		f.text = callText(prettyName(name), args)
		return f, nil
	}
}

func bindLog(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 1 {
		e, err := unaryDouble(math.Log, true)("ln", args, opts)
		if err == nil {
			e.(*rowFunc).text = callText("log", args)
		}
		return e, err
	}
	cs, err := coerceArgs(name, args, opts, sqltypes.DoubleType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, cs, sqltypes.DoubleType, func(_ *Context, a []any) (any, error) {
		b, x := a[0].(float64), a[1].(float64)
		if b <= 0 || x <= 0 {
			return nil, nil
		}
		return math.Log(x) / math.Log(b), nil
	})
	f.text = callText("LOG", args)
	return f, nil
}

func bindAbs(name string, args []Expr, opts Options) (Expr, error) {
	x, err := numericArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	ansi := opts.ANSI
	f := strict(name, []Expr{x}, t, func(_ *Context, a []any) (any, error) {
		switch t.Kind {
		case sqltypes.Float:
			return float32(math.Abs(float64(a[0].(float32)))), nil
		case sqltypes.Double:
			return math.Abs(a[0].(float64)), nil
		case sqltypes.Decimal:
			return a[0].(decimal128.Num).Abs(), nil
		}
		n := toInt64(a[0])
		if n < 0 {
			lo, _ := integralBounds(t.Kind)
			if n == lo {
				if ansi {
					return nil, intOverflow(t.Kind, "abs")
				}
				return narrow(n, t.Kind), nil
			}
			n = -n
		}
		return narrow(n, t.Kind), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindCeilFloor(name string, args []Expr, opts Options) (Expr, error) {
	x, err := numericArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	isCeil := name != "floor"
	disp := prettyName(name)
	if len(args) == 2 {
		disp = name
		s, ok := literalValue(args[1])
		if !ok || s == nil {
			return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)), "the input scale should be a foldable \"INT\" expression")
		}
		mode := "floor"
		if isCeil {
			mode = "ceil"
		}
		e, err := bindRoundMode(mode, x, int32(toInt64(s)), opts)
		if err != nil {
			return nil, err
		}
		return &renamed{Expr: e, text: callText(disp, args)}, nil
	}
	t := x.Type()
	var rt sqltypes.DataType
	switch t.Kind {
	case sqltypes.Decimal:
		rt = boundedDecimal(t.Precision-t.Scale+1, 0)
	default:
		rt = sqltypes.LongType
	}
	f := strict(name, []Expr{x}, rt, func(_ *Context, a []any) (any, error) {
		switch t.Kind {
		case sqltypes.Decimal:
			b := a[0].(decimal128.Num).BigInt()
			q, r := new(big.Int).QuoRem(b, pow10(t.Scale), new(big.Int))
			if isCeil && r.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			} else if !isCeil && r.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			}
			return bigToNum(q), nil
		case sqltypes.Float, sqltypes.Double:
			v := toFloat64(a[0])
			if isCeil {
				v = math.Ceil(v)
			} else {
				v = math.Floor(v)
			}
			return saturate(v, math.MinInt64, math.MaxInt64), nil
		}
		return toInt64(a[0]), nil
	})
	f.text = callText(disp, args)
	return f, nil
}

func bindRound(name string, args []Expr, opts Options) (Expr, error) {
	x, err := numericArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	scale := int32(0)
	if len(args) == 2 {
		s, ok := literalValue(args[1])
		if !ok || s == nil {
			return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)), "the input scale should be a foldable \"INT\" expression")
		}
		scale = int32(toInt64(s))
	}
	e, err := bindRoundMode(name, x, scale, opts)
	if err != nil {
		return nil, err
	}
	shown := args
	if len(args) == 1 {
		shown = []Expr{args[0], NewLiteral(int32(0), intType)}
	}
	return &renamed{Expr: e, name: callString(name, shown)}, nil
}

// bindRoundMode rounds x to scale with mode round (HALF_UP), bround (HALF_EVEN), ceil or floor.
func bindRoundMode(mode string, x Expr, scale int32, opts Options) (Expr, error) {
	t := x.Type()
	rt := t
	if t.Kind == sqltypes.Decimal {
		intDigits := t.Precision - t.Scale + 1
		if scale < 0 {
			rt = boundedDecimal(max(intDigits, -scale+1), 0)
		} else {
			ns := min(t.Scale, scale)
			rt = boundedDecimal(intDigits+ns, ns)
		}
		if mode == "round" || mode == "bround" {
			if scale < 0 {
				rt = boundedDecimal(max(t.Precision-t.Scale+1, -scale+1), 0)
			} else {
				ns := min(t.Scale, scale)
				rt = boundedDecimal(t.Precision-t.Scale+ns+1, ns)
			}
		}
	} else if (mode == "ceil" || mode == "floor") && t.Kind != sqltypes.Decimal {
		if t.IsIntegral() && scale >= 0 {
			rt = sqltypes.LongType
		} else {
			rt = sqltypes.DecimalType(min(38, 20+max(scale, 0)), max(scale, 0))
			if t.IsFractional() {
				rt = sqltypes.DecimalType(38, min(max(scale, 0), 38))
			}
		}
	}
	// Round and BRound follow ANSI (integral results that overflow fail); ceil and floor do not.
	ansi := opts.ANSI && (mode == "round" || mode == "bround")
	f := strict(mode, []Expr{x}, rt, func(_ *Context, a []any) (any, error) {
		return roundValue(a[0], t, rt, scale, mode, ansi)
	})
	// Decimal results that overflow their precision become NULL.
	f.null = f.null || rt.Kind == sqltypes.Decimal
	return f, nil
}

// roundDecimal rounds unscaled b at scale s to scale d with mode. Like Java's
// BigDecimal.setScale it fails with "Underflow" when the number of digits to drop does not fit
// an int; a value dropped entirely is not divided by a power of ten of that size.
func roundDecimal(b *big.Int, s, d int32, mode string) (*big.Int, error) {
	if d >= s {
		return b, nil
	}
	drop := int64(s) - int64(d)
	if b.Sign() == 0 {
		return b, nil
	}
	if drop > math.MaxInt32 {
		return nil, javaArithmetic("Underflow")
	}
	// |b| < 2^BitLen ≤ 10^(BitLen/3+1): when drop is larger by 2, |b| < 10^drop / 2.
	if drop > int64(b.BitLen())/3+2 {
		switch {
		case mode == "ceil" && b.Sign() > 0:
			return big.NewInt(1), nil
		case mode == "floor" && b.Sign() < 0:
			return big.NewInt(-1), nil
		}
		return new(big.Int), nil
	}
	div := pow10(int32(drop))
	q, r := new(big.Int).QuoRem(b, div, new(big.Int))
	if r.Sign() == 0 {
		return q, nil
	}
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	c := twice.Cmp(div)
	up := false
	switch mode {
	case "round":
		up = c >= 0
	case "bround":
		up = c > 0 || (c == 0 && q.Bit(0) == 1)
	case "ceil":
		up = r.Sign() > 0
	case "floor":
		up = r.Sign() < 0
	}
	if up {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q, nil
}

// maxRoundExponent bounds the power of ten a non-zero rounded value may be scaled by: past it
// the value overflows every result type (doubles end at 10^309, decimals at 10^38).
const maxRoundExponent = 400

// rescaleRounded is q (unscaled at scale qs) at scale to, or false when it cannot fit.
func rescaleRounded(q *big.Int, qs, to int32) (*big.Int, bool) {
	if q.Sign() == 0 {
		return q, true
	}
	if int64(to)-int64(qs) > maxRoundExponent {
		return nil, false
	}
	return rescale(q, qs, to), true
}

func roundValue(v any, t, rt sqltypes.DataType, scale int32, mode string, ansi bool) (any, error) {
	switch t.Kind {
	case sqltypes.Float, sqltypes.Double:
		f := toFloat64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			if rt.Kind == sqltypes.Decimal {
				return nil, nil
			}
			return v, nil
		}
		b, s, _ := parseDecimalString(strconv.FormatFloat(f, 'g', -1, 64))
		q, err := roundDecimal(b, s, scale, mode)
		if err != nil {
			return nil, err
		}
		qs := min(s, scale)
		if rt.Kind == sqltypes.Decimal {
			r, ok := rescaleRounded(q, qs, rt.Scale)
			if !ok || !fitsPrecision(r, rt.Precision) {
				return nil, nil
			}
			return bigToNum(r), nil
		}
		var out float64
		switch {
		case q.Sign() == 0:
		case -int64(qs) > maxRoundExponent:
			out = math.Inf(q.Sign())
		default:
			out, _ = strconv.ParseFloat(formatDecimal(bigToNum(q), qs), 64)
		}
		if t.Kind == sqltypes.Float {
			return float32(out), nil
		}
		return out, nil
	case sqltypes.Decimal:
		b := v.(decimal128.Num).BigInt()
		q, err := roundDecimal(b, t.Scale, scale, mode)
		if err != nil {
			return nil, err
		}
		r, ok := rescaleRounded(q, min(t.Scale, scale), rt.Scale)
		if !ok || !fitsPrecision(r, rt.Precision) {
			return nil, nil
		}
		return bigToNum(r), nil
	}
	n := toInt64(v)
	if scale >= 0 {
		if rt.Kind == sqltypes.Long {
			return n, nil
		}
		return narrow(n, t.Kind), nil
	}
	q, err := roundDecimal(big.NewInt(n), 0, scale, mode)
	if err != nil {
		if ansi {
			return nil, roundOverflow(err.(*sparkerr.Error).Message, mode)
		}
		return nil, err
	}
	r, ok := rescaleRounded(q, scale, 0)
	if rt.Kind == sqltypes.Decimal {
		if !ok {
			return nil, nil
		}
		return bigToNum(r), nil
	}
	if !ok {
		// 10^k for k ≥ 64 has no low 64 bits: Java's longValue()/intValue() of it is 0.
		if ansi {
			return nil, roundOverflow("Overflow", mode)
		}
		return narrow(0, rt.Kind), nil
	}
	if lo, hi := integralBounds(rt.Kind); ansi && (!r.IsInt64() || r.Int64() < lo || r.Int64() > hi) {
		return nil, roundOverflow("Overflow", mode)
	}
	return narrow(r.Int64(), rt.Kind), nil
}

// roundOverflow is ARITHMETIC_OVERFLOW from an integral round/bround under ANSI
// (MathUtils.withOverflow around BigDecimal's exact conversions).
func roundOverflow(msg, mode string) *sparkerr.Error {
	alt := fmt.Sprintf(" Use 'try_%s' to tolerate overflow and return NULL instead.", mode)
	return sparkerr.Newf(sparkerr.ArithmeticException, "ARITHMETIC_OVERFLOW", "22003",
		"%s.%s If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", msg, alt).
		WithParams("message", msg, "alternative", alt, "config", `"spark.sql.ansi.enabled"`)
}

func bindRand(name string, args []Expr, opts Options) (Expr, error) {
	var seed int64
	if len(args) == 1 {
		v, ok := literalValue(args[0])
		if !ok {
			return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)), "the input seed should be a foldable \"INT\" or \"BIGINT\" expression")
		}
		if v != nil {
			seed = toInt64(v)
		}
	} else {
		seed = rand.Int64()
		args = []Expr{NewLiteral(seed, sqltypes.LongType)}
	}
	gauss := name == "randn"
	src := partitionRandom(seed)
	return &rowFunc{name: name, args: nil, t: sqltypes.DoubleType, text: callText(name, args),
		fn: func(ctx *Context, _ []any) (any, error) {
			if gauss {
				return src.get(ctx).NormFloat64(), nil
			}
			return src.get(ctx).Float64(), nil
		}}, nil
}

func bindGreatestLeast(name string, args []Expr, opts Options) (Expr, error) {
	t, ok := commonTypeOf(args)
	if !ok {
		return nil, typeMismatch("DATA_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to `%s` should all be the same type, but it's [%s].", name, typesList(args))
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	greatest := name == "greatest"
	null := true
	for _, a := range cs {
		null = null && a.Nullable()
	}
	return &rowFunc{name: name, args: cs, t: t, null: null, text: callText(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			var best any
			for _, v := range a {
				if v == nil {
					continue
				}
				if best == nil {
					best = v
					continue
				}
				c := Compare(v, best, t)
				if (greatest && c > 0) || (!greatest && c < 0) {
					best = v
				}
			}
			return best, nil
		}}, nil
}

func bindConstant(name string, args []Expr, opts Options) (Expr, error) {
	v := math.Pi
	if name == "e" {
		v = math.E
	}
	return &renamed{Expr: NewLiteral(v, sqltypes.DoubleType), name: prettyName(name) + "()"}, nil
}

func bindNanvl(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.DoubleType)
	if err != nil {
		return nil, err
	}
	return &rowFunc{name: name, args: cs, t: sqltypes.DoubleType, null: anyNullable(cs), text: callText(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			if math.IsNaN(a[0].(float64)) {
				return a[1], nil
			}
			return a[0], nil
		}}, nil
}

func bindBitwise(name string, args []Expr, opts Options) (Expr, error) {
	op := map[string]string{"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}[name]
	if op == "" {
		op = name
	}
	l, r := args[0], args[1]
	if !l.Type().IsIntegral() && l.Type().Kind != sqltypes.Null || !r.Type().IsIntegral() && r.Type().Kind != sqltypes.Null {
		return nil, typeMismatch("BINARY_OP_WRONG_TYPE", quoteSQL(binaryOpString(op, l, r)),
			"the binary operator requires the input type \"INTEGRAL\", not \"%s\".", l.Type().SQL())
	}
	t := widerNumeric(l.Type(), r.Type())
	if t.Kind == sqltypes.Null {
		t = intType
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	f := strict(op, cs, t, func(_ *Context, a []any) (any, error) {
		x, y := toInt64(a[0]), toInt64(a[1])
		switch op {
		case "&":
			return narrow(x&y, t.Kind), nil
		case "|":
			return narrow(x|y, t.Kind), nil
		}
		return narrow(x^y, t.Kind), nil
	})
	f.text = binaryOpText(op, args[0], args[1])
	return f, nil
}

func bindBitwiseNot(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if !t.IsIntegral() {
		return nil, unexpectedInputType(quoteSQL("~"+args[0].String()), 0, `"INTEGRAL"`, args[0])
	}
	f := strict(name, args, t, func(_ *Context, a []any) (any, error) {
		return narrow(^toInt64(a[0]), t.Kind), nil
	})
	f.text = sqlOf("~", args[0])
	return f, nil
}

// shiftOperators are the operator spellings of the shift functions: `a << b` is shiftleft(a, b)
// named (a << b).
var shiftOperators = map[string]string{"<<": "shiftleft", ">>": "shiftright", ">>>": "shiftrightunsigned"}

func bindShift(name string, args []Expr, opts Options) (Expr, error) {
	if fn, ok := shiftOperators[name]; ok {
		f, err := bindShift(fn, args, opts)
		if err != nil {
			return nil, err
		}
		f.(*rowFunc).text = binaryOpText(name, args[0], args[1])
		return f, nil
	}
	t := args[0].Type()
	if !t.IsIntegral() {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("INT" or "BIGINT")`, args[0])
	}
	if t.Kind != sqltypes.Long {
		t = intType
	}
	cs, err := coerceArgs(name, args, opts, t, intType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, t, func(_ *Context, a []any) (any, error) {
		n, s := toInt64(a[0]), uint(toInt64(a[1]))
		if t.Kind == sqltypes.Long {
			s &= 63
			switch name {
			case "shiftleft":
				return n << s, nil
			case "shiftright":
				return n >> s, nil
			}
			return int64(uint64(n) >> s), nil
		}
		s &= 31
		x := int32(n)
		switch name {
		case "shiftleft":
			return x << s, nil
		case "shiftright":
			return x >> s, nil
		}
		return int32(uint32(x) >> s), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindTryArith(name string, args []Expr, opts Options) (Expr, error) {
	op := map[string]string{"try_add": "+", "try_subtract": "-", "try_multiply": "*", "try_divide": "/", "try_mod": "%"}[name]
	e, err := bindArith(op, args, opts)
	if err != nil {
		return nil, err
	}
	if a, ok := e.(*arith); ok {
		a.ansi, a.try = true, true
	}
	if f, ok := e.(*rowFunc); ok && f.t.Kind == sqltypes.CalendarInterval {
		// Spark evaluates the interval arithmetic inside TryEval: its failures are NULL.
		fn := f.fn
		f.null, f.fn = true, func(ctx *Context, a []any) (any, error) {
			if v, err := fn(ctx, a); err == nil {
				return v, nil
			}
			return nil, nil
		}
	}
	return &renamed{Expr: e, text: callText(name, args)}, nil
}

func bindZeroNull(name string, args []Expr, opts Options) (Expr, error) {
	x, err := numericArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	zero, err := castValue(int64(0), sqltypes.LongType, t, false, nil2utc())
	if err != nil {
		return nil, err
	}
	toZero := name == "zeroifnull"
	return &rowFunc{name: name, args: []Expr{x}, t: t, null: !toZero, text: callText(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			if toZero {
				if a[0] == nil {
					return zero, nil
				}
				return a[0], nil
			}
			if a[0] != nil && Compare(a[0], zero, t) == 0 {
				return nil, nil
			}
			return a[0], nil
		}}, nil
}

func bindFactorial(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, intType)
	if err != nil {
		return nil, err
	}
	return nullableStrict(name, cs, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
		n := toInt64(a[0])
		if n < 0 || n > 20 {
			return nil, nil
		}
		r := int64(1)
		for i := int64(2); i <= n; i++ {
			r *= i
		}
		return r, nil
	}), nil
}

func bindHex(name string, args []Expr, opts Options) (Expr, error) {
	x := args[0]
	switch {
	case x.Type().IsIntegral():
		c, err := implicitCast(x, sqltypes.LongType, opts)
		if err != nil {
			return nil, err
		}
		f := strict(name, []Expr{c}, strType, func(_ *Context, a []any) (any, error) {
			return strings.ToUpper(strconv.FormatUint(uint64(a[0].(int64)), 16)), nil
		})
		f.text = callText(name, args)
		return f, nil
	case x.Type().Kind == sqltypes.Binary:
		f := strict(name, args, strType, func(_ *Context, a []any) (any, error) {
			return strings.ToUpper(hex.EncodeToString(a[0].([]byte))), nil
		})
		return f, nil
	}
	s, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{s}, strType, func(_ *Context, a []any) (any, error) {
		return strings.ToUpper(hex.EncodeToString([]byte(a[0].(string)))), nil
	})
	f.text = callText(name, args)
	return f, nil
}

// bindUnhex decodes hexadecimal text (an odd length gets a leading 0) to binary; NULL when the
// text is not hexadecimal.
func bindUnhex(name string, args []Expr, opts Options) (Expr, error) {
	s, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, []Expr{s}, sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
		in := a[0].(string)
		if len(in)%2 == 1 {
			in = "0" + in
		}
		b, err := hex.DecodeString(in)
		if err != nil {
			return nil, nil
		}
		return b, nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindBin(name string, args []Expr, opts Options) (Expr, error) {
	c, err := coerceArg(name, args, 0, sqltypes.LongType, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{c}, strType, func(_ *Context, a []any) (any, error) {
		return strconv.FormatUint(uint64(a[0].(int64)), 2), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindConv(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType, intType, intType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		from, to := int(toInt64(a[1])), int(toInt64(a[2]))
		if from < 2 || from > 36 || to < -36 || to > 36 || (to > -2 && to < 2) {
			return nil, nil
		}
		s := strings.TrimSpace(a[0].(string))
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		n, err := strconv.ParseUint(strings.ToLower(s), from, 64)
		if err != nil {
			// Spark reads the longest valid prefix.
			j := 0
			for j < len(s) {
				if _, e := strconv.ParseUint(strings.ToLower(s[:j+1]), from, 64); e != nil {
					break
				}
				j++
			}
			if j == 0 {
				return "0", nil
			}
			n, _ = strconv.ParseUint(strings.ToLower(s[:j]), from, 64)
		}
		if neg {
			n = -n
		}
		if to < 0 {
			v := int64(n)
			if v < 0 {
				return "-" + strings.ToUpper(strconv.FormatUint(uint64(-v), -to)), nil
			}
			return strings.ToUpper(strconv.FormatUint(uint64(v), -to)), nil
		}
		return strings.ToUpper(strconv.FormatUint(n, to)), nil
	})
	f.text = callText(name, args)
	return f, nil
}
