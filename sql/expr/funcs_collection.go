package expr

import (
	"fmt"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Collection functions (Spark's collection_funcs and struct_funcs): the array and struct
// constructors, size/cardinality, element_at/get. Array functions are in funcs_array.go, map
// functions in funcs_map.go.

func init() {
	registerScalar(0, -1, bindArray, "array")
	registerScalar(0, -1, bindStruct, "struct")
	registerScalar(0, -1, bindNamedStruct, "named_struct")
	registerScalar(1, 1, bindSize, "size", "cardinality", "array_size")
	registerScalar(2, 2, bindElementAt, "element_at", "try_element_at", "get")
}

// fieldName is the struct field name Spark gives an expression inside struct(…).
func fieldName(e Expr, i int) string {
	switch x := e.(type) {
	case *Column:
		return x.Name
	case *Alias:
		return x.Name
	case *extractValue:
		if x.field != "" {
			return x.field
		}
	}
	return fmt.Sprintf("col%d", i+1)
}

func bindArray(name string, args []Expr, opts Options) (Expr, error) {
	t, ok := commonTypeOf(args)
	if !ok {
		return nil, typeMismatch("DATA_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to `array` should all be the same type, but it's [%s].", typesList(args))
	}
	if len(args) == 0 {
		t = sqltypes.NullType
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	at := sqltypes.ArrayType(t, anyNullable(cs))
	f := &rowFunc{name: name, args: cs, t: at, str: callString(name, args), fn: func(_ *Context, a []any) (any, error) {
		return append([]any{}, a...), nil
	}}
	return f, nil
}

func bindStruct(name string, args []Expr, opts Options) (Expr, error) {
	fs := make([]sqltypes.Field, len(args))
	for i, a := range args {
		fs[i] = sqltypes.Field{Name: fieldName(a, i), Type: a.Type(), Nullable: a.Nullable()}
	}
	return &rowFunc{name: name, args: args, t: sqltypes.StructType(fs...), str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) { return append([]any{}, a...), nil }}, nil
}

func bindNamedStruct(name string, args []Expr, opts Options) (Expr, error) {
	if len(args)%2 != 0 {
		return nil, wrongNumArgs(name, "2n (n > 0)", len(args))
	}
	var fs []sqltypes.Field
	var vals []Expr
	for i := 0; i < len(args); i += 2 {
		n, ok := literalValue(args[i])
		s, isStr := n.(string)
		if !ok || !isStr {
			return nil, typeMismatch("CREATE_NAMED_STRUCT_WITHOUT_FOLDABLE_STRING", quoteSQL(callString(name, args)),
				"Only foldable `STRING` expressions are allowed to appear at odd position, but they are [%s].", args[i].String())
		}
		fs = append(fs, sqltypes.Field{Name: s, Type: args[i+1].Type(), Nullable: args[i+1].Nullable()})
		vals = append(vals, args[i+1])
	}
	return &rowFunc{name: name, args: vals, t: sqltypes.StructType(fs...), str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) { return append([]any{}, a...), nil }}, nil
}

func bindSize(name string, args []Expr, opts Options) (Expr, error) {
	k := args[0].Type().Kind
	if k != sqltypes.Array && k != sqltypes.Map && k != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("ARRAY" or "MAP")`, args[0])
	}
	legacyNull := !opts.ANSI && name != "array_size"
	return &rowFunc{name: name, args: args, t: intType, null: !legacyNull, str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			switch v := a[0].(type) {
			case nil:
				if legacyNull {
					return int32(-1), nil
				}
				return nil, nil
			case []any:
				return int32(len(v)), nil
			case *sqltypes.MapValue:
				return int32(len(v.Keys)), nil
			}
			return nil, nil
		}}, nil
}

func invalidIndex(idx, size int64, fn string) *sparkerr.Error {
	return sparkerr.Newf(sparkArrayIndexOutOfBounds, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT", "22003",
		"The index %d is out of bounds. The array has %d elements. Use `try_element_at` to tolerate accessing element at invalid index and return NULL instead.", idx, size).
		WithParams("indexValue", fmt.Sprint(idx), "arraySize", fmt.Sprint(size))
}

// sparkArrayIndexOutOfBounds is the Java class of Spark's array index errors.
const sparkArrayIndexOutOfBounds = "org.apache.spark.SparkArrayIndexOutOfBoundsException"

// invalidArrayIndex is INVALID_ARRAY_INDEX: array[index] (0-based) out of bounds under ANSI.
func invalidArrayIndex(idx, size int64) *sparkerr.Error {
	return sparkerr.Newf(sparkArrayIndexOutOfBounds, "INVALID_ARRAY_INDEX", "22003",
		"The index %d is out of bounds. The array has %d elements. Use the SQL function `get()` to tolerate accessing element at invalid index and return NULL instead.", idx, size).
		WithParams("indexValue", fmt.Sprint(idx), "arraySize", fmt.Sprint(size))
}

func bindElementAt(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	fail := opts.ANSI && name == "element_at"
	switch t.Kind {
	case sqltypes.Array:
		idx, err := coerceArg(name, args, 1, intType, opts)
		if err != nil {
			return nil, err
		}
		zeroBased := name == "get"
		return nullableStrict(name, []Expr{args[0], idx}, *t.Elem, func(_ *Context, a []any) (any, error) {
			arr := a[0].([]any)
			i := toInt64(a[1])
			n := int64(len(arr))
			if zeroBased {
				if i < 0 || i >= n {
					return nil, nil
				}
				return arr[i], nil
			}
			if i == 0 {
				return nil, sparkerr.New(sparkerr.SparkRuntimeException, "INVALID_INDEX_OF_ZERO", "22003",
					"The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).")
			}
			if i > n || -i > n {
				if fail {
					return nil, invalidIndex(i, n, name)
				}
				return nil, nil
			}
			if i < 0 {
				return arr[n+i], nil
			}
			return arr[i-1], nil
		}), nil
	case sqltypes.Map:
		key, err := implicitCast(args[1], *t.Key, opts)
		if err != nil {
			return nil, err
		}
		return nullableStrict(name, []Expr{args[0], key}, *t.Value, func(_ *Context, a []any) (any, error) {
			m := a[0].(*sqltypes.MapValue)
			for i, k := range m.Keys {
				if Compare(k, a[1], *t.Key) == 0 {
					return m.Values[i], nil
				}
			}
			return nil, nil
		}), nil
	}
	return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("ARRAY" or "MAP")`, args[0])
}
