package expr

import (
	"fmt"
	"math/rand/v2"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Seeded random functions beyond rand/randn: randstr, uniform, uuid and shuffle. Like rand(seed), each
// partition draws from Spark's XORShiftRandom seeded with seed + partition index; without a seed
// one is chosen at bind time (and not shown in the column name, as Spark hides it).

func init() {
	registerScalar(1, 2, bindRandStr, "randstr")
	registerScalar(2, 3, bindUniform, "uniform")
	registerScalar(0, 0, bindUUID, "uuid")
	registerScalar(1, 2, bindShuffle, "shuffle")
}

// partitionRandom is the generator of one expression: XORShiftRandom(seed + partition index).
func partitionRandom(seed int64) *perPartition[*xorShiftRandom] {
	return newPerPartition(func(p int) *xorShiftRandom { return newXORShiftRandom(seed + int64(p)) })
}

// nonFoldable is DATATYPE_MISMATCH.NON_FOLDABLE_INPUT for the argument called input.
func nonFoldable(call, input, inputType string, arg Expr) *sparkerr.Error {
	return typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(call),
		"the input `%s` should be a foldable %s expression; however, got %s.", input, inputType, quoteSQL(arg.String())).
		WithParams("inputName", "`"+input+"`", "inputType", inputType, "inputExpr", quoteSQL(arg.String()))
}

// randomSeed reads args[i], the seed of a random function: a constant INT or BIGINT (NULL is
// 0); without it a random seed. shown reports whether the column name shows the seed.
func randomSeed(name string, args []Expr, i int) (seed int64, err error) {
	if i >= len(args) {
		return rand.Int64(), nil
	}
	a := args[i]
	switch a.Type().Kind {
	case sqltypes.Integer, sqltypes.Long, sqltypes.Null:
	default:
		return 0, unexpectedInputType(quoteSQL(callString(name, args)), i, `("INT" or "BIGINT")`, a)
	}
	v, ok := literalValue(a)
	if !ok {
		return 0, nonFoldable(callString(name, args), "seed", "integer", a)
	}
	if v != nil {
		seed = toInt64(v)
	}
	return seed, nil
}

// bindRandStr is randstr(length[, seed]): length characters drawn uniformly from 0-9, a-z,
// A-Z (ExpressionImplUtils.randStr). length is a constant integer; NULL is 0, a negative one
// fails with INVALID_PARAMETER_VALUE.LENGTH when evaluated.
func bindRandStr(name string, args []Expr, opts Options) (Expr, error) {
	lenArg := args[0]
	switch {
	case lenArg.Type().IsNumeric() || lenArg.Type().Kind == sqltypes.String || lenArg.Type().Kind == sqltypes.Null:
	default:
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"INT"`, lenArg)
	}
	lv, ok := literalValue(lenArg)
	if !ok {
		return nil, nonFoldable(callString(name, args), "length", "integer", lenArg)
	}
	var length int32
	if lv != nil {
		v, err := castValue(lv, lenArg.Type(), sqltypes.IntegerType, opts.ANSI, nil2utc())
		if err != nil {
			return nil, err
		}
		length = v.(int32)
	}
	seed, err := randomSeed(name, args, 1)
	if err != nil {
		return nil, err
	}
	src := partitionRandom(seed)
	return &rowFunc{name: name, t: sqltypes.StringType, str: callString(name, args),
		fn: func(ctx *Context, _ []any) (any, error) {
			if length < 0 {
				return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.LENGTH", "22023",
					"The value of parameter(s) `length` in `randstr` is invalid: Expects `length` greater than or equal to 0, but got %d.", length).
					WithParams("parameter", "`length`", "functionName", "`randstr`", "length", fmt.Sprint(length))
			}
			return randStr(src.get(ctx), int(length)), nil
		}}, nil
}

// randStr is Spark's ExpressionImplUtils.randStr: each character from |nextInt() % 62|.
func randStr(r *xorShiftRandom, n int) string {
	b := make([]byte, n)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range b {
		v := r.next(32) % 62
		if v < 0 {
			v = -v
		}
		switch {
		case v < 10:
			b[i] = byte('0' + v)
		case v < 36:
			b[i] = byte('a' + v - 10)
		default:
			b[i] = byte('A' + v - 36)
		}
	}
	return string(b)
}

// bindUniform is uniform(min, max[, seed]): min + (max - min) * rand(seed) in doubles, cast to
// the result type (Spark's Uniform.dataType: the wider integral type, else float/double, else
// the wider decimal). A NULL bound gives NULL (as a DOUBLE).
func bindUniform(name string, args []Expr, opts Options) (Expr, error) {
	call := callString(name, args)
	for i, role := range []string{"min", "max"} {
		a := args[i]
		if !a.Type().IsNumeric() && a.Type().Kind != sqltypes.Null {
			return nil, unexpectedInputType(quoteSQL(call), i, `"NUMERIC"`, a)
		}
		if _, ok := literalValue(a); !ok {
			return nil, nonFoldable(call, role, "integer or floating-point", a)
		}
	}
	seed, err := randomSeed(name, args, 2)
	if err != nil {
		return nil, err
	}
	text := call
	if len(args) == 2 {
		text = callString(name, args[:2])
	}
	lo, _ := literalValue(args[0])
	hi, _ := literalValue(args[1])
	if lo == nil || hi == nil {
		return &renamed{Expr: NewLiteral(nil, sqltypes.DoubleType), name: text}, nil
	}
	t := uniformType(args[0].Type(), args[1].Type())
	loV, err := castValue(lo, args[0].Type(), sqltypes.DoubleType, false, nil2utc())
	if err != nil {
		return nil, err
	}
	hiV, err := castValue(hi, args[1].Type(), sqltypes.DoubleType, false, nil2utc())
	if err != nil {
		return nil, err
	}
	loF, hiF := loV.(float64), hiV.(float64)
	src := partitionRandom(seed)
	return &rowFunc{name: name, t: t, str: text,
		fn: func(ctx *Context, _ []any) (any, error) {
			v := loF + (hiF-loF)*src.get(ctx).Float64()
			return castValue(v, sqltypes.DoubleType, t, true, nil2utc())
		}}, nil
}

// uniformType is Spark's Uniform.dataType over numeric min and max types.
func uniformType(l, r sqltypes.DataType) sqltypes.DataType {
	switch {
	case l.IsIntegral() && r.IsIntegral():
		if numericRank(l.Kind) <= numericRank(r.Kind) {
			return r
		}
		return l
	case l.Kind == sqltypes.Double || r.Kind == sqltypes.Double:
		return sqltypes.DoubleType
	case l.Kind == sqltypes.Float || r.Kind == sqltypes.Float:
		return sqltypes.FloatType
	case l.Kind == sqltypes.Decimal && r.Kind == sqltypes.Decimal:
		if l.Precision-l.Scale >= r.Precision-r.Scale && l.Scale >= r.Scale {
			return l
		}
		return r
	case r.Kind == sqltypes.Decimal:
		return r
	}
	return l
}

// bindUUID is uuid(): a version 4 UUID string from the partition's XORShiftRandom (Spark's
// RandomUUIDGenerator), seeded at random.
func bindUUID(name string, args []Expr, opts Options) (Expr, error) {
	src := partitionRandom(rand.Int64())
	return &rowFunc{name: name, t: sqltypes.StringType, str: "uuid()",
		fn: func(ctx *Context, _ []any) (any, error) {
			r := src.get(ctx)
			hi := uint64(r.Int64())&0xFFFFFFFFFFFF0FFF | 0x0000000000004000
			lo := (uint64(r.Int64()) | 0x8000000000000000) & 0xBFFFFFFFFFFFFFFF
			return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xFFFF, hi&0xFFFF, lo>>48, lo&0xFFFFFFFFFFFF), nil
		}}, nil
}

// bindShuffle is shuffle(array[, seed]): Spark's Shuffle, an "inside-out" Fisher-Yates
// permutation (RandomIndicesGenerator) drawn from a MersenneTwister(seed + partition index). The
// column name never shows the seed; a NULL seed is a random one, as no seed.
func bindShuffle(name string, args []Expr, opts Options) (Expr, error) {
	a := args[0]
	if a.Type().Kind != sqltypes.Array && a.Type().Kind != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(callString(name, args[:1])), 0, `"ARRAY"`, a)
	}
	var seed int64
	if len(args) == 2 {
		v, ok := literalValue(args[1])
		if !ok || (v != nil && !args[1].Type().IsIntegral()) {
			return nil, sparkerr.Newf(sparkerr.AnalysisException, "INVALID_PARAMETER_VALUE.LONG", "22023",
				"The value of parameter(s) `seed` in `shuffle` is invalid: expects a long literal, but got \"%s\".", args[1]).
				WithParams("parameter", "`seed`", "functionName", "`shuffle`", "invalidValue", quoteSQL(args[1].String()))
		}
		seed = rand.Int64()
		if v != nil {
			seed = toInt64(v)
		}
	} else {
		seed = rand.Int64()
	}
	t := a.Type()
	if t.Kind == sqltypes.Null {
		t = sqltypes.ArrayType(sqltypes.NullType, true)
	}
	src := newPerPartition(func(p int) *mersenneTwister { return newMersenneTwister(seed + int64(p)) })
	f := strict(name, args[:1], t, func(ctx *Context, v []any) (any, error) {
		in := v[0].([]any)
		r := src.get(ctx)
		r.mu.Lock()
		defer r.mu.Unlock()
		idx := make([]int32, len(in))
		for i := int32(0); i < int32(len(in)); i++ {
			j := r.nextInt(i + 1)
			if j != i {
				idx[i] = idx[j]
			}
			idx[j] = i
		}
		out := make([]any, len(in))
		for i, k := range idx {
			out[i] = in[k]
		}
		return out, nil
	})
	f.str = callString(name, args[:1])
	return f, nil
}
