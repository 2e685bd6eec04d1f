package expr

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// KLL sketch functions over the sketches of sketch_kll.go (Spark's kllExpressions), each in a
// bigint, float and double form reading that item type: kll_sketch_get_n_*(s) (BIGINT),
// kll_sketch_to_string_*(s) (DataSketches' summary), kll_sketch_merge_*(a, b) (a with b merged
// in), kll_sketch_get_quantile_*(s, rank) (INCLUSIVE search; rank a foldable DOUBLE or
// ARRAY<DOUBLE>, outside [0, 1] KLL_SKETCH_INVALID_QUANTILE_RANGE) and
// kll_sketch_get_rank_*(s, q) (the normalized rank of q, a foldable item or array of items).
// Arguments are implicitly cast (a string to BINARY, an INT to BIGINT, a decimal to DOUBLE);
// a NULL argument gives NULL. Bytes that are not a KLL sketch of the function's item size, or
// an empty sketch asked for a quantile or rank, fail with KLL_INVALID_INPUT_SKETCH_BUFFER.

func init() {
	for _, t := range []string{"bigint", "float", "double"} {
		registerScalar(1, 1, bindKllFunc, "kll_sketch_get_n_"+t, "kll_sketch_to_string_"+t)
		registerScalar(2, 2, bindKllFunc, "kll_sketch_merge_"+t, "kll_sketch_get_quantile_"+t, "kll_sketch_get_rank_"+t)
	}
}

func bindKllFunc(name string, args []Expr, opts Options) (Expr, error) {
	switch name[strings.LastIndexByte(name, '_')+1:] {
	case "bigint":
		return bindKllTyped(name, args, opts, kllLongs, sqltypes.LongType)
	case "float":
		return bindKllTyped(name, args, opts, kllFloats, sqltypes.FloatType)
	}
	return bindKllTyped(name, args, opts, kllDoubles, sqltypes.DoubleType)
}

func bindKllTyped[T kllItem](name string, args []Expr, opts Options, codec kllCodec[T], itemType sqltypes.DataType) (Expr, error) {
	op := strings.TrimPrefix(name[:strings.LastIndexByte(name, '_')], "kll_sketch_")
	s, err := coerceArg(name, args, 0, sqltypes.BinaryType, opts)
	if err != nil {
		return nil, err
	}
	cargs := []Expr{s}
	read := func(v any) (*kllSketch[T], error) {
		sk, err := codec.read(v.([]byte))
		if err != nil {
			return nil, kllInvalidBuffer(name)
		}
		return sk, nil
	}
	var t sqltypes.DataType
	var fn func(a []any) (any, error)
	switch op {
	case "get_n":
		t = sqltypes.LongType
		fn = func(a []any) (any, error) {
			sk, err := read(a[0])
			if err != nil {
				return nil, err
			}
			return sk.n, nil
		}
	case "to_string":
		t = sqltypes.StringType
		fn = func(a []any) (any, error) {
			sk, err := read(a[0])
			if err != nil {
				return nil, err
			}
			return codec.String(sk), nil
		}
	case "merge":
		b, err := coerceArg(name, args, 1, sqltypes.BinaryType, opts)
		if err != nil {
			return nil, err
		}
		cargs, t = append(cargs, b), sqltypes.BinaryType
		fn = func(a []any) (any, error) {
			x, err := read(a[0])
			if err != nil {
				return nil, err
			}
			y, err := read(a[1])
			if err != nil {
				return nil, err
			}
			x.merge(y)
			return codec.bytes(x), nil
		}
	default:
		return bindKllSearch(name, op == "get_quantile", args, cargs[0], opts, read, itemType)
	}
	f := strict(name, cargs, t, func(_ *Context, a []any) (any, error) { return fn(a) })
	f.str = callString(name, args)
	return f, nil
}

// bindKllSearch binds get_quantile (ranks to items) and get_rank (items to ranks) over one
// value or an array of them.
func bindKllSearch[T kllItem](name string, quantile bool, args []Expr, sketch Expr, opts Options, read func(any) (*kllSketch[T], error), itemType sqltypes.DataType) (Expr, error) {
	call := quoteSQL(callString(name, args))
	in, out, inputName := sqltypes.DoubleType, itemType, "rank"
	if !quantile {
		in, out, inputName = itemType, sqltypes.DoubleType, "quantile"
	}
	p := args[1]
	isArray := p.Type().Kind == sqltypes.Array
	if _, ok := constantOperand(p); !ok {
		return nil, typeMismatch("NON_FOLDABLE_INPUT", call, "the input `%s` should be a foldable %s expression; however, got %s.", inputName, `"`+p.Type().SQL()+`"`, quoteSQL(p.String())).
			WithParams("inputName", "`"+inputName+"`", "inputType", `"`+p.Type().SQL()+`"`, "inputExpr", quoteSQL(p.String()))
	}
	want := in
	if isArray {
		want = sqltypes.ArrayType(in, false)
		out = sqltypes.ArrayType(out, false)
	}
	var c Expr
	var err error
	if isArray && p.Type().Elem.Kind != sqltypes.Null && !implicitlyCastable(*p.Type().Elem, in) || !isArray && !implicitlyCastable(p.Type(), in) {
		required := `("` + in.SQL() + `" or "ARRAY<` + in.SQL() + `>")`
		return nil, unexpectedInputType(call, 1, required, p)
	}
	if c, err = implicitCast(p, want, opts); err != nil {
		return nil, err
	}
	f := strict(name, []Expr{sketch, c}, out, func(_ *Context, a []any) (any, error) {
		sk, err := read(a[0])
		if err != nil {
			return nil, err
		}
		if sk.empty() {
			return nil, kllInvalidBuffer(name)
		}
		vals, cum := sk.sortedView()
		one := func(v any) (any, error) {
			if !quantile {
				q, _ := kllItemOf[T](v)
				return sk.rank(vals, cum, q), nil
			}
			r := v.(float64)
			if r < 0 || r > 1 {
				return nil, kllQuantileRange(name)
			}
			return kllValue(sk.quantile(vals, cum, r)), nil
		}
		list, ok := a[1].([]any)
		if !ok {
			return one(a[1])
		}
		res := make([]any, len(list))
		for i, v := range list {
			if v == nil {
				v = kllZero(quantile)
			}
			r, err := one(v)
			if err != nil {
				return nil, err
			}
			res[i] = r
		}
		return res, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func kllZero(quantile bool) any {
	if quantile {
		return 0.0
	}
	return int64(0)
}

// kllValue is an item as the Go value of its SQL type.
func kllValue[T kllItem](v T) any {
	switch x := any(v).(type) {
	case int64:
		return x
	case float32:
		return x
	}
	return any(v).(float64)
}

// kllQuantileRange is KLL_SKETCH_INVALID_QUANTILE_RANGE.
func kllQuantileRange(name string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "KLL_SKETCH_INVALID_QUANTILE_RANGE", "22003",
		"For function `%s`, the quantile value must be between 0.0 and 1.0 (inclusive).", name).
		WithParams("functionName", "`"+name+"`")
}
