package expr

import (
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"regexp"
	"sort"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// schema_of_json(json[, options]) is the DDL of the type Spark's JsonInferSchema gives one
// constant JSON document: integers BIGINT (wider ones DECIMAL(p,0), past 38 digits DOUBLE), other
// numbers DOUBLE, struct fields sorted by name, conflicting types STRING, and NULLs and empty
// arrays' elements STRING. Single-quoted strings are accepted (allowSingleQuotes); the options
// are not otherwise read.

func init() {
	registerScalar(1, 2, bindSchemaOfJSON, "schema_of_json")
}

func bindSchemaOfJSON(name string, args []Expr, opts Options) (Expr, error) {
	call := callString(name, args[:1])
	doc, err := constantDocument(call, args[0], "json")
	if err != nil {
		return nil, err
	}
	if len(args) == 2 && args[1].Type().Kind != sqltypes.Map {
		return nil, sparkerr.Analysis("INVALID_OPTIONS.NON_MAP_FUNCTION", "42K06", "Invalid options: Must use the `map()` function for options.")
	}
	t, err := inferJSONDocument(doc)
	if err != nil {
		return nil, err
	}
	return &renamed{Expr: NewLiteral(typeDDL(t), sqltypes.StringType), name: call}, nil
}

// inferJSONDocument infers the type of one JSON document ("" is STRING, as in Spark).
func inferJSONDocument(doc string) (sqltypes.DataType, error) {
	if strings.TrimSpace(doc) == "" {
		return sqltypes.StringType, nil
	}
	dec := json.NewDecoder(strings.NewReader(JSONSingleQuotes(doc)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		class := "com.fasterxml.jackson.core.JsonParseException"
		if errors.Is(err, io.ErrUnexpectedEOF) {
			class = "com.fasterxml.jackson.core.io.JsonEOFException"
		}
		return sqltypes.DataType{}, sparkerr.New(class, "", "", err.Error())
	}
	return jsonNullsToString(inferJSONValue(v)), nil
}

func inferJSONValue(v any) sqltypes.DataType {
	switch x := v.(type) {
	case nil:
		return sqltypes.NullType
	case bool:
		return sqltypes.BooleanType
	case string:
		return sqltypes.StringType
	case json.Number:
		s := x.String()
		if strings.ContainsAny(s, ".eE") {
			return sqltypes.DoubleType
		}
		n, ok := new(big.Int).SetString(s, 10)
		switch {
		case !ok:
			return sqltypes.DoubleType
		case n.IsInt64():
			return sqltypes.LongType
		}
		digits := len(strings.TrimPrefix(s, "-"))
		if digits > 38 {
			return sqltypes.DoubleType
		}
		return sqltypes.DecimalType(int32(digits), 0)
	case []any:
		elem := sqltypes.NullType
		for _, e := range x {
			elem = mergeInferredJSON(elem, inferJSONValue(e))
		}
		return sqltypes.ArrayType(elem, true)
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		fields := make([]sqltypes.Field, len(names))
		for i, n := range names {
			fields[i] = sqltypes.Field{Name: n, Type: inferJSONValue(x[n]), Nullable: true}
		}
		return sqltypes.StructType(fields...)
	}
	return sqltypes.StringType
}

// mergeInferredJSON is Spark's JsonInferSchema.compatibleType.
func mergeInferredJSON(a, b sqltypes.DataType) sqltypes.DataType {
	if t, ok := mergeInferredShape(a, b, mergeInferredJSON); ok {
		return t
	}
	switch {
	case a.IsNumeric() && b.IsNumeric():
		if a.Kind == sqltypes.Double || b.Kind == sqltypes.Double {
			return sqltypes.DoubleType
		}
		// BIGINT is DECIMAL(20,0) here; the wider integer part wins (at most 38 digits).
		p := func(t sqltypes.DataType) int32 {
			if t.Kind == sqltypes.Long {
				return 20
			}
			return t.Precision
		}
		if w := max(p(a), p(b)); w <= 38 {
			return sqltypes.DecimalType(w, 0)
		}
		return sqltypes.DoubleType
	}
	return sqltypes.StringType
}

// mergeInferredShape merges what schema inference merges alike: NULL gives way, equal types
// stay, structs merge by name and arrays by element through merge; ok is false for other pairs.
func mergeInferredShape(a, b sqltypes.DataType, merge func(a, b sqltypes.DataType) sqltypes.DataType) (sqltypes.DataType, bool) {
	switch {
	case a.Kind == sqltypes.Null:
		return b, true
	case b.Kind == sqltypes.Null || a.Equal(b):
		return a, true
	case a.Kind == sqltypes.Struct && b.Kind == sqltypes.Struct:
		return sqltypes.MergeStructsByName(a, b, merge), true
	case a.Kind == sqltypes.Array && b.Kind == sqltypes.Array:
		return sqltypes.ArrayType(merge(*a.Elem, *b.Elem), true), true
	}
	return sqltypes.DataType{}, false
}

// jsonNullsToString replaces the NULL types left by inference with STRING.
func jsonNullsToString(t sqltypes.DataType) sqltypes.DataType {
	switch t.Kind {
	case sqltypes.Null:
		return sqltypes.StringType
	case sqltypes.Array:
		return sqltypes.ArrayType(jsonNullsToString(*t.Elem), true)
	case sqltypes.Struct:
		fields := make([]sqltypes.Field, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = f
			fields[i].Type = jsonNullsToString(f.Type)
		}
		return sqltypes.StructType(fields...)
	}
	return t
}

var plainIdentifier = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// typeDDL is Spark's DataType.sql with field names quoted only when needed
// (QuotingUtils.quoteIfNeeded): STRUCT<a: BIGINT, `a b`: ARRAY<STRING>>.
func typeDDL(t sqltypes.DataType) string {
	switch t.Kind {
	case sqltypes.Struct:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			n := f.Name
			if !plainIdentifier.MatchString(n) {
				n = "`" + strings.ReplaceAll(n, "`", "``") + "`"
			}
			parts[i] = n + ": " + typeDDL(f.Type)
			if !f.Nullable {
				parts[i] += " NOT NULL"
			}
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case sqltypes.Array:
		return "ARRAY<" + typeDDL(*t.Elem) + ">"
	case sqltypes.Map:
		return "MAP<" + typeDDL(*t.Key) + ", " + typeDDL(*t.Value) + ">"
	}
	return t.SQL()
}
