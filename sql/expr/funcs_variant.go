package expr

import (
	"regexp"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/parser"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/sql/types/variant"
)

// The VARIANT functions: parse_json, try_parse_json, is_variant_null, is_valid_variant,
// schema_of_variant, to_variant_object, variant_get, try_variant_get.

func init() {
	registerScalar(1, 1, bindParseJSON, "parse_json", "try_parse_json")
	registerScalar(1, 1, bindIsVariantNull, "is_variant_null")
	registerScalar(1, 1, bindIsValidVariant, "is_valid_variant")
	registerScalar(1, 1, bindSchemaOfVariant, "schema_of_variant")
	registerScalar(1, 1, bindToVariantObject, "to_variant_object")
	registerScalar(2, 3, bindVariantGet, "variant_get", "try_variant_get")
}

// requireVariant refuses a non-VARIANT argument as Spark's input type check does.
func requireVariant(name string, args []Expr, i int) error {
	t := args[i].Type()
	if t.Kind == sqltypes.Variant || t.Kind == sqltypes.Null {
		return nil
	}
	return unexpectedInputType(quoteSQL(callString(name, args)), i, `"VARIANT"`, args[i])
}

func bindParseJSON(name string, args []Expr, opts Options) (Expr, error) {
	in, err := coerceArgs(name, args, opts, sqltypes.StringType)
	if err != nil {
		return nil, err
	}
	try := name == "try_parse_json"
	f := nullableStrict(name, in, sqltypes.VariantType, func(_ *Context, a []any) (any, error) {
		s := a[0].(string)
		val, meta, err := variant.ParseJSON(s)
		if err == variant.ErrSizeLimit {
			var b variant.Builder
			b.AppendBinary(make([]byte, variant.SizeLimit))
			return variantResult(&b, name)
		}
		if err != nil {
			if try {
				return nil, nil
			}
			return nil, sparkerr.New(sparkerr.SparkException, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", "22023",
				"Malformed records are detected in record parsing: "+s+".\nParse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.").
				WithParams("badRecord", s, "failFastMode", "FAILFAST")
		}
		return sqltypes.VariantValue{Value: val, Metadata: meta}, nil
	})
	f.null = try || anyNullable(in)
	return f, nil
}

func bindIsVariantNull(name string, args []Expr, _ Options) (Expr, error) {
	if err := requireVariant(name, args, 0); err != nil {
		return nil, err
	}
	f := &rowFunc{name: name, args: args, t: sqltypes.BooleanType, fn: func(_ *Context, a []any) (any, error) {
		if a[0] == nil {
			return false, nil
		}
		vv := a[0].(sqltypes.VariantValue)
		if len(vv.Value) == 0 {
			return nil, malformedVariant()
		}
		return vv.Value[0] == 0, nil
	}}
	return f, nil
}

func bindIsValidVariant(name string, args []Expr, _ Options) (Expr, error) {
	if err := requireVariant(name, args, 0); err != nil {
		return nil, err
	}
	return strict(name, args, sqltypes.BooleanType, func(_ *Context, a []any) (any, error) {
		vv := a[0].(sqltypes.VariantValue)
		return variant.Validate(vv.Value, vv.Metadata) == nil, nil
	}), nil
}

func bindToVariantObject(name string, args []Expr, _ Options) (Expr, error) {
	t := args[0].Type()
	if !canCastToVariant(t, true) || t.Kind == sqltypes.Null || t.Kind == sqltypes.Variant || !(t.Kind == sqltypes.Struct || t.Kind == sqltypes.Map || t.Kind == sqltypes.Array) {
		return nil, typeMismatch("CAST_WITHOUT_SUGGESTION", quoteSQL(callString(name, args)),
			"cannot cast \"%s\" to \"VARIANT\".", t.SQL()).
			WithParams("srcType", `"`+t.SQL()+`"`, "targetType", `"VARIANT"`)
	}
	return strict(name, args, sqltypes.VariantType, func(_ *Context, a []any) (any, error) {
		return toVariant(a[0], t)
	}), nil
}

// bindVariantGet is variant_get(v, path[, type]) and try_variant_get: the value at a JSONPath
// read as type (VARIANT when omitted). A path that does not lead anywhere is NULL; a value that
// does not convert is INVALID_VARIANT_CAST (variant_get) or NULL (try_variant_get).
func bindVariantGet(name string, args []Expr, opts Options) (Expr, error) {
	if err := requireVariant(name, args, 0); err != nil {
		return nil, err
	}
	to := sqltypes.VariantType
	if len(args) == 3 {
		lv, ok := literalValue(args[2])
		s, isStr := lv.(string)
		if !ok || !isStr {
			return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
				"the input targetType should be a foldable \"STRING\" expression; however, got %s.", args[2].String())
		}
		t, err := parser.ParseDataType(s)
		if err != nil {
			return nil, sparkerr.Newf(sparkerr.ParseException, "UNSUPPORTED_DATATYPE", "0A000",
				"Unsupported data type %s.", quoteSQL(strings.ToUpper(s))).WithParams("typeName", quoteSQL(strings.ToUpper(s)))
		}
		if !canCastFromVariant(t) {
			return nil, typeMismatch("CAST_WITHOUT_SUGGESTION", quoteSQL(callString(name, args)),
				"cannot cast \"VARIANT\" to \"%s\".", t.SQL())
		}
		to = t
	}
	path, err := coerceArgs(name, args[1:2], opts, sqltypes.StringType)
	if err != nil {
		return nil, err
	}
	in := []Expr{args[0], path[0]}
	invalidPath := func(p string) error {
		return sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_VARIANT_GET_PATH", "22023",
			"The path `%s` is not a valid variant extraction path in `%s`. A valid path should start with `$` and is followed by zero or more segments like `[123]`, `.name`, `['name']`, or `[\"name\"]`.", p, name).
			WithParams("path", p, "functionName", name)
	}
	var fixed []variant.PathSegment
	lit, isLit := literalValue(in[1])
	if ps, ok := lit.(string); isLit && ok {
		segs, ok := variant.ParsePath(ps)
		if !ok {
			return nil, invalidPath(ps)
		}
		fixed = segs
	}
	fail := name == "variant_get"
	f := nullableStrict(name, in, to, func(ctx *Context, a []any) (any, error) {
		path := fixed
		if path == nil {
			segs, ok := variant.ParsePath(a[1].(string))
			if !ok {
				return nil, invalidPath(a[1].(string))
			}
			path = segs
		}
		root, err := openVariant(a[0])
		if err != nil {
			return nil, err
		}
		v, ok := root.Walk(path)
		if !ok {
			return nil, nil
		}
		return fromVariant(v, to, fail, ctx.loc())
	})
	return f, nil
}

func bindSchemaOfVariant(name string, args []Expr, _ Options) (Expr, error) {
	if err := requireVariant(name, args, 0); err != nil {
		return nil, err
	}
	return strict(name, args, sqltypes.StringType, func(_ *Context, a []any) (any, error) {
		root, err := openVariant(a[0])
		if err != nil {
			return nil, err
		}
		return variantSchemaSQL(variantSchema(root)), nil
	}), nil
}

// variantSchema is the type of a variant value as schema_of_variant sees it: objects are
// structs, integers BIGINT, decimals DECIMAL(precision, scale) of the value, arrays of the
// merged element types.
func variantSchema(v variant.Value) sqltypes.DataType {
	switch v.Type() {
	case variant.Null:
		return sqltypes.NullType
	case variant.Object:
		fs := make([]sqltypes.Field, v.Len())
		for i := range fs {
			k, f := v.Field(i)
			fs[i] = sqltypes.Field{Name: k, Type: variantSchema(f), Nullable: true}
		}
		return sqltypes.StructType(fs...)
	case variant.Array:
		et := sqltypes.NullType
		for i := 0; i < v.Len(); i++ {
			et = mergeVariantSchema(et, variantSchema(v.Elem(i)))
		}
		return sqltypes.ArrayType(et, true)
	case variant.UUID:
		return sqltypes.StringType
	}
	_, t, ok := variantScalar(v)
	if !ok {
		return sqltypes.VariantType
	}
	return t
}

// mergeVariantSchema is the common type of two variant schemas (SchemaOfVariant.mergeSchema):
// equal types stay, VOID gives way, integers and decimals widen to a decimal (DOUBLE past 38
// digits), DOUBLE absorbs the other numbers, structs merge by name, arrays by element; anything
// else is VARIANT.
func mergeVariantSchema(a, b sqltypes.DataType) sqltypes.DataType {
	switch {
	case a.Kind == sqltypes.Null:
		return b
	case b.Kind == sqltypes.Null:
		return a
	case a.Equal(b):
		return a
	}
	num := func(t sqltypes.DataType) bool {
		return t.Kind == sqltypes.Long || t.Kind == sqltypes.Decimal || t.Kind == sqltypes.Double || t.Kind == sqltypes.Float
	}
	if num(a) && num(b) {
		if a.Kind == sqltypes.Double || b.Kind == sqltypes.Double || a.Kind == sqltypes.Float || b.Kind == sqltypes.Float {
			return sqltypes.DoubleType
		}
		dec := func(t sqltypes.DataType) (int32, int32) {
			if t.Kind == sqltypes.Long {
				return 20, 0
			}
			return t.Precision, t.Scale
		}
		p1, s1 := dec(a)
		p2, s2 := dec(b)
		s := max(s1, s2)
		p := max(p1-s1, p2-s2) + s
		if p > 38 {
			return sqltypes.DoubleType
		}
		return sqltypes.DecimalType(p, s)
	}
	switch {
	case a.Kind == sqltypes.Array && b.Kind == sqltypes.Array:
		return sqltypes.ArrayType(mergeVariantSchema(*a.Elem, *b.Elem), true)
	case a.Kind == sqltypes.Struct && b.Kind == sqltypes.Struct:
		return sqltypes.MergeStructsByName(a, b, mergeVariantSchema)
	}
	return sqltypes.VariantType
}

var plainIdent = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)

// variantSchemaSQL renders a variant schema as Spark does: OBJECT<name: TYPE, …> for structs,
// names back-quoted unless plain identifiers.
func variantSchemaSQL(t sqltypes.DataType) string {
	switch t.Kind {
	case sqltypes.Struct:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			n := f.Name
			if !plainIdent.MatchString(n) || strings.Trim(n, "0123456789") == "" {
				n = "`" + strings.ReplaceAll(n, "`", "``") + "`"
			}
			parts[i] = n + ": " + variantSchemaSQL(f.Type)
		}
		return "OBJECT<" + strings.Join(parts, ", ") + ">"
	case sqltypes.Array:
		return "ARRAY<" + variantSchemaSQL(*t.Elem) + ">"
	}
	return t.SQL()
}
