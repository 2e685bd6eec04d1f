package expr

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// to_json and get_json_object.

func bindToJSON(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	switch t.Kind {
	case sqltypes.Struct, sqltypes.Array, sqltypes.Map, sqltypes.Variant:
	default:
		return nil, typeMismatch("INVALID_JSON_SCHEMA", quoteSQL("to_json("+args[0].String()+")"),
			"Input schema %s must be a struct, an array, a map or a variant.", t.SQL())
	}
	f := strict(name, args[:1], sqltypes.StringType, func(ctx *Context, a []any) (any, error) {
		return string(AppendJSONValue(nil, a[0], t, ctx.loc())), nil
	})
	f.str = "to_json(" + args[0].String() + ")"
	if t.Kind == sqltypes.Struct {
		return newToJSONStruct(f, t), nil
	}
	return f, nil
}

// AppendJSONValue renders a non-null value as Spark's JSON generator does: struct fields in
// order with NULL fields omitted, timestamps as yyyy-MM-dd'T'HH:mm:ss.SSSXXX in loc, dates as
// yyyy-MM-dd, binary as base64, NaN and infinities as strings.
func AppendJSONValue(buf []byte, v any, t sqltypes.DataType, loc *time.Location) []byte {
	if v == nil {
		return append(buf, "null"...)
	}
	switch t.Kind {
	case sqltypes.Boolean, sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Decimal:
		return append(buf, jsonScalarText(v, t, loc)...)
	case sqltypes.Float, sqltypes.Double:
		s := jsonScalarText(v, t, loc)
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return append(buf, quoteJSON(s)...)
		}
		return append(buf, s...)
	case sqltypes.Array:
		buf = append(buf, '[')
		for i, it := range v.([]any) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendJSONValue(buf, it, *t.Elem, loc)
		}
		return append(buf, ']')
	case sqltypes.Struct:
		buf = append(buf, '{')
		first := true
		for i, f := range t.Fields {
			fv := v.([]any)[i]
			if fv == nil {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = append(buf, quoteJSON(f.Name)...)
			buf = append(buf, ':')
			buf = AppendJSONValue(buf, fv, f.Type, loc)
		}
		return append(buf, '}')
	case sqltypes.Variant:
		root, err := openVariant(v)
		if err != nil {
			return append(buf, "null"...)
		}
		return appendVariantJSON(buf, root, loc)
	case sqltypes.Map:
		m := v.(*sqltypes.MapValue)
		buf = append(buf, '{')
		for i := range m.Keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, quoteJSON(jsonScalarText(m.Keys[i], *t.Key, loc))...)
			buf = append(buf, ':')
			buf = AppendJSONValue(buf, m.Values[i], *t.Value, loc)
		}
		return append(buf, '}')
	}
	return append(buf, quoteJSON(jsonScalarText(v, t, loc))...)
}

// jsonScalarText renders an atomic value as Spark's JSON generator does.
func jsonScalarText(v any, t sqltypes.DataType, loc *time.Location) string {
	switch t.Kind {
	case sqltypes.Boolean:
		return strconv.FormatBool(v.(bool))
	case sqltypes.Float:
		return formatFloat(v.(float32))
	case sqltypes.Double:
		return formatDouble(v.(float64))
	case sqltypes.Binary:
		return base64.StdEncoding.EncodeToString(v.([]byte))
	case sqltypes.Date:
		return time.Unix(int64(v.(int32))*86400, 0).UTC().Format("2006-01-02")
	case sqltypes.Timestamp:
		return time.UnixMicro(v.(int64)).In(loc).Format("2006-01-02T15:04:05.000Z07:00")
	case sqltypes.TimestampNTZ:
		return time.UnixMicro(v.(int64)).UTC().Format("2006-01-02T15:04:05.000")
	}
	return valueString(v, t, loc)
}

func bindGetJSONObject(name string, args []Expr, opts Options) (Expr, error) {
	in, err := coerceArgs(name, args, opts, sqltypes.StringType, sqltypes.StringType)
	if err != nil {
		return nil, err
	}
	return nullableStrict(name, in, sqltypes.StringType, func(_ *Context, a []any) (any, error) {
		steps, ok := parseJSONPath(a[1].(string))
		if !ok {
			return nil, nil
		}
		doc, ok, _ := parseJSONText(a[0].(string))
		if !ok {
			return nil, nil
		}
		return evalJSONPath(doc, steps), nil
	}), nil
}

// jsonPathStep is one step of get_json_object's path: a key, an index, or a wildcard.
type jsonPathStep struct {
	key      string
	index    int
	isIndex  bool
	wildcard bool
}

// parseJSONPath parses Spark's JSONPath subset: $ followed by .name, ['name'], [n], [*], .*
func parseJSONPath(p string) ([]jsonPathStep, bool) {
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	var steps []jsonPathStep
	i := 1
	for i < len(p) {
		switch p[i] {
		case '.':
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			k := p[i+1 : j]
			if k == "" {
				return nil, false
			}
			if k == "*" {
				steps = append(steps, jsonPathStep{wildcard: true})
			} else {
				steps = append(steps, jsonPathStep{key: k})
			}
			i = j
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, false
			}
			inner := p[i+1 : i+end]
			switch {
			case inner == "*":
				steps = append(steps, jsonPathStep{wildcard: true})
			case len(inner) >= 2 && inner[0] == '\'' && inner[len(inner)-1] == '\'':
				steps = append(steps, jsonPathStep{key: inner[1 : len(inner)-1]})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return nil, false
				}
				steps = append(steps, jsonPathStep{index: n, isIndex: true})
			}
			i += end + 1
		default:
			return nil, false
		}
	}
	return steps, true
}

// evalJSONPath returns the matched value as text: strings unquoted, other values as compact
// JSON; several wildcard matches form a JSON array; no match or a JSON null is NULL.
func evalJSONPath(doc any, steps []jsonPathStep) any {
	matches := []any{doc}
	for _, st := range steps {
		var next []any
		for _, m := range matches {
			switch x := m.(type) {
			case *jsonObject:
				if st.isIndex {
					continue
				}
				for i, k := range x.keys {
					if st.wildcard || k == st.key {
						next = append(next, x.vals[i])
						if !st.wildcard {
							break
						}
					}
				}
			case []any:
				switch {
				case st.wildcard:
					next = append(next, x...)
				case st.isIndex && st.index < len(x):
					next = append(next, x[st.index])
				}
			}
		}
		matches = next
	}
	switch {
	case len(matches) == 0:
		return nil
	case len(matches) > 1:
		return compactJSON(matches)
	}
	switch x := matches[0].(type) {
	case nil:
		return nil
	case string:
		return x
	}
	return compactJSON(matches[0])
}
