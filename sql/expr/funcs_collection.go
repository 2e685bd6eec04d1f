package expr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Array, map and struct constructors and accessors.

func init() {
	registerScalar(0, -1, bindArray, "array")
	registerScalar(0, -1, bindStruct, "struct")
	registerScalar(0, -1, bindNamedStruct, "named_struct")
	registerScalar(0, -1, bindMap, "map", "create_map")
	registerScalar(2, 2, bindMapFromArrays, "map_from_arrays")
	registerScalar(1, 1, bindSize, "size", "cardinality", "array_size")
	registerScalar(2, 2, bindElementAt, "element_at", "try_element_at", "get")
	registerScalar(2, 2, bindArrayContains, "array_contains", "array_position", "array_remove", "array_append", "array_prepend")
	registerScalar(1, 2, bindSortArray, "sort_array", "array_sort")
	registerScalar(1, 1, bindArrayUnary, "array_distinct", "array_max", "array_min", "flatten", "array_compact", "map_keys", "map_values")
	registerScalar(2, 3, bindArrayJoin, "array_join")
	registerScalar(3, 3, bindSlice, "slice")
	registerScalar(2, 2, bindMapContainsKey, "map_contains_key")
	registerScalar(1, -1, bindHash, "hash")
	registerScalar(1, 1, bindTypeof, "typeof")
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

func bindMap(name string, args []Expr, opts Options) (Expr, error) {
	if len(args)%2 != 0 {
		return nil, wrongNumArgs("map", "2n (n > 0)", len(args))
	}
	var keys, vals []Expr
	for i := 0; i < len(args); i += 2 {
		keys, vals = append(keys, args[i]), append(vals, args[i+1])
	}
	kt, ok1 := commonTypeOf(keys)
	vt, ok2 := commonTypeOf(vals)
	if !ok1 || !ok2 {
		return nil, typeMismatch("CREATE_MAP_KEY_DIFF_TYPES", quoteSQL(callString("map", args)),
			"The given keys of function `map` should all be the same type, but they are [%s].", typesList(keys))
	}
	ks, err := castAll(keys, kt, opts)
	if err != nil {
		return nil, err
	}
	vs, err := castAll(vals, vt, opts)
	if err != nil {
		return nil, err
	}
	all := make([]Expr, 0, len(args))
	for i := range ks {
		all = append(all, ks[i], vs[i])
	}
	return &rowFunc{name: name, args: all, t: sqltypes.MapType(kt, vt, anyNullable(vs)), str: callString("map", args),
		fn: func(_ *Context, a []any) (any, error) {
			m := &sqltypes.MapValue{}
			for i := 0; i < len(a); i += 2 {
				if a[i] == nil {
					return nil, sparkerr.New(sparkerr.SparkRuntimeException, "NULL_MAP_KEY", "2200E", "Cannot use null as map key.")
				}
				if err := mapPut(m, a[i], a[i+1], kt); err != nil {
					return nil, err
				}
			}
			return m, nil
		}}, nil
}

// mapPut adds k → v, failing on a duplicate key (Spark's default EXCEPTION dedup policy).
func mapPut(m *sqltypes.MapValue, k, v any, kt sqltypes.DataType) error {
	for _, x := range m.Keys {
		if Compare(x, k, kt) == 0 {
			s := valueString(k, kt, nil2utc())
			return sparkerr.Newf(sparkerr.SparkRuntimeException, "DUPLICATED_MAP_KEY", "23505",
				"Duplicate map key %s was found, please check the input data. If you want to remove the duplicated keys, you can set \"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key inserted at last takes precedence.", s).
				WithParams("key", s, "mapKeyDedupPolicy", `"spark.sql.mapKeyDedupPolicy"`)
		}
	}
	m.Keys = append(m.Keys, k)
	m.Values = append(m.Values, v)
	return nil
}

func bindMapFromArrays(name string, args []Expr, opts Options) (Expr, error) {
	kt, vt := args[0].Type(), args[1].Type()
	if kt.Kind != sqltypes.Array || vt.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	return strict(name, args, sqltypes.MapType(*kt.Elem, *vt.Elem, vt.ElemNullable), func(_ *Context, a []any) (any, error) {
		ks, vs := a[0].([]any), a[1].([]any)
		if len(ks) != len(vs) {
			return nil, sparkerr.New(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE", "22023",
				"The key array and value array of MapData must have the same length.")
		}
		m := &sqltypes.MapValue{}
		for i := range ks {
			if err := mapPut(m, ks[i], vs[i], *kt.Elem); err != nil {
				return nil, err
			}
		}
		return m, nil
	}), nil
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
		"The index %d is out of bounds. The array has %d elements. Use `try_element_at` to tolerate accessing element at invalid index and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", idx, size).
		WithParams("indexValue", fmt.Sprint(idx), "arraySize", fmt.Sprint(size))
}

// sparkArrayIndexOutOfBounds is the Java class of Spark's array index errors.
const sparkArrayIndexOutOfBounds = "org.apache.spark.SparkArrayIndexOutOfBoundsException"

// invalidArrayIndex is INVALID_ARRAY_INDEX: array[index] (0-based) out of bounds under ANSI.
func invalidArrayIndex(idx, size int64) *sparkerr.Error {
	return sparkerr.Newf(sparkArrayIndexOutOfBounds, "INVALID_ARRAY_INDEX", "22003",
		"The index %d is out of bounds. The array has %d elements. Use the SQL function `get()` to tolerate accessing element at invalid index and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", idx, size).
		WithParams("indexValue", fmt.Sprint(idx), "arraySize", fmt.Sprint(size), "ansiConfig", `"spark.sql.ansi.enabled"`)
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

func bindArrayContains(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	et, ok := CommonType(*t.Elem, args[1].Type())
	if !ok {
		return nil, typeMismatch("ARRAY_FUNCTION_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to `%s` should have been \"ARRAY\" followed by a value with same element type, but it's [\"%s\", \"%s\"].", name, t.SQL(), args[1].Type().SQL())
	}
	arr, err := implicitCast(args[0], sqltypes.ArrayType(et, t.ElemNullable), opts)
	if err != nil {
		return nil, err
	}
	v, err := implicitCast(args[1], et, opts)
	if err != nil {
		return nil, err
	}
	cs := []Expr{arr, v}
	switch name {
	case "array_append", "array_prepend":
		rt := sqltypes.ArrayType(et, t.ElemNullable || args[1].Nullable())
		f := &rowFunc{name: name, args: cs, t: rt, null: arr.Nullable(), str: callString(name, args),
			fn: func(_ *Context, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				in := a[0].([]any)
				if name == "array_append" {
					return append(append([]any{}, in...), a[1]), nil
				}
				return append([]any{a[1]}, in...), nil
			}}
		return f, nil
	case "array_remove":
		f := strict(name, cs, arr.Type(), func(_ *Context, a []any) (any, error) {
			out := []any{}
			for _, x := range a[0].([]any) {
				if x == nil || Compare(x, a[1], et) != 0 {
					out = append(out, x)
				}
			}
			return out, nil
		})
		f.str = callString(name, args)
		return f, nil
	case "array_position":
		f := strict(name, cs, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
			for i, x := range a[0].([]any) {
				if x != nil && Compare(x, a[1], et) == 0 {
					return int64(i + 1), nil
				}
			}
			return int64(0), nil
		})
		f.str = callString(name, args)
		return f, nil
	}
	f := nullableStrict(name, cs, sqltypes.BooleanType, func(_ *Context, a []any) (any, error) {
		sawNull := false
		for _, x := range a[0].([]any) {
			if x == nil {
				sawNull = true
			} else if Compare(x, a[1], et) == 0 {
				return true, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return false, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindSortArray(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	asc := true
	shown := args
	if name == "sort_array" {
		if len(args) == 2 {
			v, ok := literalValue(args[1])
			b, isBool := v.(bool)
			if !ok || !isBool {
				return nil, unexpectedInputType(quoteSQL(callString(name, args)), 1, `"BOOLEAN"`, args[1])
			}
			asc = b
		} else {
			shown = append(args, NewLiteral(true, sqltypes.BooleanType))
		}
	} else if len(args) == 2 {
		return nil, sparkerr.Unsupported("array_sort with a comparator function")
	}
	et := *t.Elem
	nullsLast := name == "array_sort"
	f := strict(name, args[:1], t, func(_ *Context, a []any) (any, error) {
		out := append([]any{}, a[0].([]any)...)
		sort.SliceStable(out, func(i, j int) bool {
			x, y := out[i], out[j]
			if x == nil || y == nil {
				if nullsLast || !asc {
					return y == nil && x != nil
				}
				return x == nil && y != nil
			}
			c := Compare(x, y, et)
			if asc {
				return c < 0
			}
			return c > 0
		})
		return out, nil
	})
	f.str = callString(name, shown)
	return f, nil
}

func bindArrayUnary(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if name == "map_keys" || name == "map_values" {
		if t.Kind != sqltypes.Map {
			return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"MAP"`, args[0])
		}
		rt := sqltypes.ArrayType(*t.Key, false)
		if name == "map_values" {
			rt = sqltypes.ArrayType(*t.Value, t.ValueNullable)
		}
		return strict(name, args, rt, func(_ *Context, a []any) (any, error) {
			m := a[0].(*sqltypes.MapValue)
			if name == "map_keys" {
				return append([]any{}, m.Keys...), nil
			}
			return append([]any{}, m.Values...), nil
		}), nil
	}
	if t.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	et := *t.Elem
	switch name {
	case "array_max", "array_min":
		isMax := name == "array_max"
		return nullableStrict(name, args, et, func(_ *Context, a []any) (any, error) {
			var best any
			for _, x := range a[0].([]any) {
				if x == nil {
					continue
				}
				if best == nil {
					best = x
				} else if c := Compare(x, best, et); (isMax && c > 0) || (!isMax && c < 0) {
					best = x
				}
			}
			return best, nil
		}), nil
	case "flatten":
		if et.Kind != sqltypes.Array {
			return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY" of "ARRAY"`, args[0])
		}
		return nullableStrict(name, args, et, func(_ *Context, a []any) (any, error) {
			out := []any{}
			for _, x := range a[0].([]any) {
				if x == nil {
					return nil, nil
				}
				out = append(out, x.([]any)...)
			}
			return out, nil
		}), nil
	case "array_compact":
		return strict(name, args, sqltypes.ArrayType(et, false), func(_ *Context, a []any) (any, error) {
			out := []any{}
			for _, x := range a[0].([]any) {
				if x != nil {
					out = append(out, x)
				}
			}
			return out, nil
		}), nil
	}
	return strict(name, args, t, func(_ *Context, a []any) (any, error) {
		out := []any{}
		seen := map[any]bool{}
		for _, x := range a[0].([]any) {
			k := valueKey(x, et)
			if et.Kind == sqltypes.Array || et.Kind == sqltypes.Struct || et.Kind == sqltypes.Map {
				k = keyString(x, et)
			}
			if !seen[k] {
				seen[k] = true
				out = append(out, x)
			}
		}
		return out, nil
	}), nil
}

func bindArrayJoin(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	arr, err := implicitCast(args[0], sqltypes.ArrayType(strType, true), opts)
	if err != nil {
		return nil, err
	}
	rest, err := coerceArgs(name, args[1:], opts, strType)
	if err != nil {
		return nil, err
	}
	f := strict(name, append([]Expr{arr}, rest...), strType, func(_ *Context, a []any) (any, error) {
		var parts []string
		for _, x := range a[0].([]any) {
			if x == nil {
				if len(a) == 3 {
					parts = append(parts, a[2].(string))
				}
				continue
			}
			parts = append(parts, x.(string))
		}
		return strings.Join(parts, a[1].(string)), nil
	})
	f.size = func(a []any) (int64, error) {
		var n, parts int64
		for _, x := range a[0].([]any) {
			switch {
			case x != nil:
				n, parts = addBytes(n, int64(len(x.(string)))), parts+1
			case len(a) == 3:
				n, parts = addBytes(n, int64(len(a[2].(string)))), parts+1
			}
		}
		return addBytes(n, mulBytes(max(parts-1, 0), int64(len(a[1].(string))))), nil
	}
	f.str = callString(name, args)
	return f, nil
}

func bindSlice(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	rest, err := coerceArgs(name, args[1:], opts, intType)
	if err != nil {
		return nil, err
	}
	f := strict(name, append([]Expr{args[0]}, rest...), args[0].Type(), func(_ *Context, a []any) (any, error) {
		arr := a[0].([]any)
		start, length := toInt64(a[1]), toInt64(a[2])
		n := int64(len(arr))
		if start == 0 {
			return nil, sparkerr.New(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.START", "22023",
				"The value of parameter(s) `start` in `slice` is invalid: Expects a positive or a negative value for `start`, but got 0.")
		}
		if length < 0 {
			return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.LENGTH", "22023",
				"The value of parameter(s) `length` in `slice` is invalid: Expects `length` greater than or equal to 0, but got %d.", length)
		}
		s := start - 1
		if start < 0 {
			s = n + start
		}
		if s < 0 || s >= n {
			return []any{}, nil
		}
		e := min(s+length, n)
		return append([]any{}, arr[s:e]...), nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindMapContainsKey(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Map {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"MAP"`, args[0])
	}
	k, err := implicitCast(args[1], *t.Key, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{args[0], k}, sqltypes.BooleanType, func(_ *Context, a []any) (any, error) {
		for _, x := range a[0].(*sqltypes.MapValue).Keys {
			if Compare(x, a[1], *t.Key) == 0 {
				return true, nil
			}
		}
		return false, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindHash(name string, args []Expr, opts Options) (Expr, error) {
	return &rowFunc{name: name, args: args, t: intType, str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			h := uint32(42)
			for i, v := range a {
				h = sparkHash(v, args[i].Type(), h)
			}
			return int32(h), nil
		}}, nil
}

func bindTypeof(name string, args []Expr, opts Options) (Expr, error) {
	return &renamed{Expr: NewLiteral(args[0].Type().String(), strType), name: callString(name, args)}, nil
}
