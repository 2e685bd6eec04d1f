package expr

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/parser"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// JSON functions: from_json, to_json, get_json_object. json_tuple is a generator in Spark (one
// output column per key) and is not a scalar function here.

func init() {
	registerScalar(2, 3, bindFromJSON, "from_json")
	registerScalar(1, 2, bindToJSON, "to_json")
	registerScalar(2, 2, bindGetJSONObject, "get_json_object")
}

// parseJSONSchema reads from_json's schema: Spark's JSON type form, a data type in DDL
// ("array<int>") or a table schema ("a INT, b STRING").
func parseJSONSchema(s string) (sqltypes.DataType, error) {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, `"`) {
		return sqltypes.ParseJSONType(t)
	}
	if t, err := parser.ParseDataType(s); err == nil {
		return t, nil
	}
	schema, err := parser.ParseTableSchema(s)
	if err != nil {
		return sqltypes.DataType{}, err
	}
	return schema.AsStruct(), nil
}

// schemaLiteral reads the schema argument of from_json, from_csv and from_xml: a string literal
// parsed by parseJSONSchema. It returns the type and the text.
func schemaLiteral(arg Expr) (sqltypes.DataType, string, error) {
	sv, ok := literalValue(arg)
	text, isStr := sv.(string)
	if !ok || !isStr {
		return sqltypes.DataType{}, "", sparkerr.Analysis("INVALID_SCHEMA.NON_STRING_LITERAL", "42K07",
			"The input schema %s must be a string literal.", arg.String()).WithParams("inputSchema", arg.String())
	}
	t, err := parseJSONSchema(text)
	return t, text, err
}

// constantDocument reads the document argument of schema_of_json, schema_of_csv and
// schema_of_xml, named input in errors: a constant, non-NULL STRING.
func constantDocument(call string, arg Expr, input string) (string, error) {
	if k := arg.Type().Kind; k != sqltypes.String && k != sqltypes.Null {
		return "", unexpectedInputType(quoteSQL(call), 0, `"STRING"`, arg)
	}
	v, ok := literalValue(arg)
	if !ok {
		return "", nonFoldable(call, input, `"STRING"`, arg)
	}
	if v == nil {
		return "", typeMismatch("UNEXPECTED_NULL", quoteSQL(call), "The %s must not be null.", input).
			WithParams("exprName", input)
	}
	return v.(string), nil
}

// asNullableType makes every nested field, element and value nullable, as from_json does.
func asNullableType(t sqltypes.DataType) sqltypes.DataType {
	switch t.Kind {
	case sqltypes.Struct:
		fs := make([]sqltypes.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = sqltypes.Field{Name: f.Name, Type: asNullableType(f.Type), Nullable: true, Metadata: f.Metadata}
		}
		return sqltypes.StructType(fs...)
	case sqltypes.Array:
		return sqltypes.ArrayType(asNullableType(*t.Elem), true)
	case sqltypes.Map:
		return sqltypes.MapType(*t.Key, asNullableType(*t.Value), true)
	}
	return t
}

func bindFromJSON(name string, args []Expr, opts Options) (Expr, error) {
	t, _, err := schemaLiteral(args[1])
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case sqltypes.Struct, sqltypes.Array, sqltypes.Map:
	default:
		return nil, typeMismatch("INVALID_JSON_SCHEMA", quoteSQL("from_json("+args[0].String()+")"),
			"Input schema %s must be a struct, an array, a map or a variant.", t.SQL())
	}
	t = asNullableType(t)
	failFast := false
	if len(args) == 3 {
		mode, err := jsonParseMode(args[2])
		if err != nil {
			return nil, err
		}
		failFast = mode == "FAILFAST"
	}
	in, err := coerceArgs(name, args[:1], opts, sqltypes.StringType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, in, t, func(ctx *Context, a []any) (any, error) {
		v, ok, empty := parseJSONText(a[0].(string))
		if empty {
			return nil, nil
		}
		var out any
		if ok {
			bad := false
			out, ok = jsonToValue(v, t, ctx.loc(), &bad)
			ok = ok && !(failFast && bad)
		}
		if !ok {
			if failFast {
				return nil, sparkerr.New(sparkerr.SparkException, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", "22023",
					"Malformed records are detected in record parsing: "+a[0].(string)+".\nParse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.")
			}
			return malformedJSONRow(t), nil
		}
		return out, nil
	})
	f.str = "from_json(" + args[0].String() + ")"
	if t.Kind == sqltypes.Struct {
		return newFromJSONStruct(f, t, failFast), nil
	}
	return f, nil
}

// jsonParseMode reads the "mode" option from from_json's options map (a map of constant
// strings): PERMISSIVE (the default) or FAILFAST; DROPMALFORMED is refused as Spark does.
func jsonParseMode(opt Expr) (string, error) {
	m, ok := constantMap(opt)
	if !ok {
		return "", sparkerr.Analysis("INVALID_OPTIONS.NON_MAP_FUNCTION", "42K06",
			"Invalid options: Must use the `map()` function for options.")
	}
	mode := "PERMISSIVE"
	for i, k := range m.Keys {
		if ks, isStr := k.(string); isStr && ks == "mode" {
			if vs, isStr := m.Values[i].(string); isStr {
				mode = strings.ToUpper(vs)
			}
		}
	}
	switch mode {
	case "PERMISSIVE", "FAILFAST":
		return mode, nil
	}
	return "", sparkerr.Analysis("PARSE_MODE_UNSUPPORTED", "42601",
		"The function `from_json` doesn't support the %s mode. Acceptable modes are PERMISSIVE and FAILFAST.", mode).
		WithParams("funcName", "`from_json`", "mode", mode)
}

// constantMap evaluates a map literal or a map(...) call over constants.
func constantMap(e Expr) (*sqltypes.MapValue, bool) {
	v, ok := constantArg(e)
	m, isMap := v.(*sqltypes.MapValue)
	return m, ok && isMap
}

// malformedJSONRow is PERMISSIVE mode's result for a malformed record: a struct of nulls
// (Spark 3.0+), NULL for array and map schemas.
func malformedJSONRow(t sqltypes.DataType) any {
	if t.Kind != sqltypes.Struct {
		return nil
	}
	return make([]any, len(t.Fields))
}

// jsonToValue converts a parsed JSON value to t's Go value like Spark's JacksonParser. A field
// that does not convert becomes NULL (Spark's partial results); ok=false when the value's shape
// does not fit t at the top.
func jsonToValue(v any, t sqltypes.DataType, loc *time.Location, bad *bool) (any, bool) {
	if v == nil {
		return nil, true
	}
	switch t.Kind {
	case sqltypes.Struct:
		obj, isObj := v.(*jsonObject)
		if !isObj {
			return nil, false
		}
		row := make([]any, len(t.Fields))
		for i, k := range obj.keys {
			for j, f := range t.Fields {
				if f.Name == k {
					row[j] = jsonFieldValue(obj.vals[i], f.Type, loc, bad)
				}
			}
		}
		return row, true
	case sqltypes.Array:
		arr, isArr := v.([]any)
		if !isArr {
			return nil, false
		}
		out := make([]any, len(arr))
		for i, it := range arr {
			out[i] = jsonFieldValue(it, *t.Elem, loc, bad)
		}
		return out, true
	case sqltypes.Map:
		obj, isObj := v.(*jsonObject)
		if !isObj {
			return nil, false
		}
		m := &sqltypes.MapValue{}
		for i, k := range obj.keys {
			key, ok, _ := castValueOK(k, sqltypes.StringType, *t.Key, false, loc)
			if !ok || key == nil {
				return nil, false
			}
			val := jsonFieldValue(obj.vals[i], *t.Value, loc, bad)
			m.Keys, m.Values = append(m.Keys, key), append(m.Values, val)
		}
		return m, true
	case sqltypes.String:
		if s, isStr := v.(string); isStr {
			return s, true
		}
		return compactJSON(v), true
	case sqltypes.Boolean:
		b, isBool := v.(bool)
		return b, isBool
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		n, isNum := v.(json.Number)
		if !isNum {
			return nil, false
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return nil, false
		}
		return fitIntegral(i, t.Kind)
	case sqltypes.Float, sqltypes.Double:
		var f float64
		switch x := v.(type) {
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(x), 64); err != nil {
				return nil, false
			}
		case string:
			switch x {
			case "NaN":
				f = math.NaN()
			case "Infinity", "+Infinity", "+INF", "INF":
				f = math.Inf(1)
			case "-Infinity", "-INF":
				f = math.Inf(-1)
			default:
				return nil, false
			}
		default:
			return nil, false
		}
		if t.Kind == sqltypes.Float {
			return float32(f), true
		}
		return f, true
	case sqltypes.Decimal:
		n, isNum := v.(json.Number)
		if !isNum {
			return nil, false
		}
		d, ok, _ := castValueOK(string(n), sqltypes.StringType, t, false, loc)
		return d, ok && d != nil
	case sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.Date:
		switch x := v.(type) {
		case string:
			d, ok, _ := castValueOK(x, sqltypes.StringType, t, false, loc)
			return d, ok && d != nil
		case json.Number:
			if t.Kind == sqltypes.Timestamp {
				secs, err := strconv.ParseInt(string(x), 10, 64)
				if err != nil || secs > math.MaxInt64/1_000_000 || secs < math.MinInt64/1_000_000 {
					return nil, false
				}
				return secs * 1e6, true
			}
		}
		return nil, false
	case sqltypes.Binary:
		if s, isStr := v.(string); isStr {
			return []byte(s), true
		}
		return nil, false
	}
	return nil, false
}

// jsonFieldValue is a nested value's conversion: NULL when it does not convert (and *bad is
// set: FAILFAST fails the record, PERMISSIVE keeps the partial result).
func jsonFieldValue(v any, t sqltypes.DataType, loc *time.Location, bad *bool) any {
	out, ok := jsonToValue(v, t, loc, bad)
	if !ok {
		*bad = true
		return nil
	}
	return out
}

func fitIntegral(i int64, k sqltypes.Kind) (any, bool) {
	switch k {
	case sqltypes.Byte:
		return int8(i), i >= math.MinInt8 && i <= math.MaxInt8
	case sqltypes.Short:
		return int16(i), i >= math.MinInt16 && i <= math.MaxInt16
	case sqltypes.Integer:
		return int32(i), i >= math.MinInt32 && i <= math.MaxInt32
	}
	return i, true
}
