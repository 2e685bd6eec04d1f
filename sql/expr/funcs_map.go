package expr

import (
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Map functions (Spark's map_funcs): the map and map_from_arrays constructors, map_contains_key,
// map_entries, map_concat, str_to_map (map_keys and map_values are in funcs_array.go).

func init() {
	registerScalar(0, -1, bindMap, "map", "create_map")
	registerScalar(2, 2, bindMapFromArrays, "map_from_arrays")
	registerScalar(2, 2, bindMapContainsKey, "map_contains_key")
	registerScalar(1, 1, bindMapEntries, "map_entries")
	registerScalar(1, -1, bindMapConcat, "map_concat")
	registerScalar(1, 3, bindStrToMap, "str_to_map")
	registerScalar(1, 1, bindMapFromEntries, "map_from_entries")
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
				"Duplicate map key %s was found, please check the input data.\nIf you want to remove the duplicated keys, you can set \"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key inserted at last takes precedence.", s).
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

func bindMapEntries(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Map {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"MAP"`, args[0])
	}
	st := sqltypes.StructType(sqltypes.Field{Name: "key", Type: *t.Key}, sqltypes.Field{Name: "value", Type: *t.Value, Nullable: t.ValueNullable})
	return strict(name, args, sqltypes.ArrayType(st, false), func(_ *Context, a []any) (any, error) {
		m := a[0].(*sqltypes.MapValue)
		out := make([]any, len(m.Keys))
		for i := range m.Keys {
			out[i] = []any{m.Keys[i], m.Values[i]}
		}
		return out, nil
	}), nil
}

func bindMapConcat(name string, args []Expr, opts Options) (Expr, error) {
	t, ok := commonTypeOf(args)
	if !ok || t.Kind != sqltypes.Map {
		return nil, typeMismatch("MAP_CONCAT_DIFF_TYPES", quoteSQL(callString(name, args)),
			"The `map_concat` should all be of type map, but it's [%s].", typesList(args))
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, t, func(_ *Context, a []any) (any, error) {
		out := &sqltypes.MapValue{}
		for _, x := range a {
			m := x.(*sqltypes.MapValue)
			for i := range m.Keys {
				if err := mapPut(out, m.Keys[i], m.Values[i], *t.Key); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindStrToMap(name string, args []Expr, opts Options) (Expr, error) {
	full := append([]Expr{}, args...)
	if len(full) < 2 {
		full = append(full, NewLiteral(",", strType))
	}
	if len(full) < 3 {
		full = append(full, NewLiteral(":", strType))
	}
	e, err := strFunc(name, full, opts, sqltypes.MapType(strType, strType, true), nil, func(a []any) (any, error) {
		pairDelim, kvDelim := a[1].(string), a[2].(string)
		pd, err := compileJavaRegex(pairDelim)
		if err != nil {
			return nil, err
		}
		kd, err := compileJavaRegex(kvDelim)
		if err != nil {
			return nil, err
		}
		out := &sqltypes.MapValue{}
		for _, pair := range pd.Split(a[0].(string), -1) {
			kv := kd.Split(pair, 2)
			var v any
			if len(kv) == 2 {
				v = kv[1]
			}
			if err := mapPut(out, kv[0], v, strType); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
	return e, err
}

// bindMapFromEntries is Spark's MapFromEntries: an array of (key, value) structs as a map; a
// NULL entry makes the map NULL; NULL or duplicate keys fail as map_from_arrays does.
func bindMapFromEntries(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Array || t.Elem.Kind != sqltypes.Struct || len(t.Elem.Fields) != 2 {
		return nil, sparkerr.Newf(sparkerr.AnalysisException, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
			"Cannot resolve %s due to data type mismatch: The first parameter requires the \"ARRAY\" of pair \"STRUCT\" type, however %s has the type %s.",
			quoteSQL(callString(name, args)), quoteSQL(args[0].String()), `"`+t.SQL()+`"`)
	}
	kf, vf := t.Elem.Fields[0], t.Elem.Fields[1]
	f := nullableStrict(name, args, sqltypes.MapType(kf.Type, vf.Type, vf.Nullable), func(_ *Context, a []any) (any, error) {
		m := &sqltypes.MapValue{}
		for _, e := range a[0].([]any) {
			if e == nil {
				return nil, nil
			}
			kv := e.([]any)
			if err := mapPut(m, kv[0], kv[1], kf.Type); err != nil {
				return nil, err
			}
		}
		return m, nil
	})
	f.str = callString(name, args)
	return f, nil
}
