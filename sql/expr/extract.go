package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// extractValue is child[extraction]: a struct field, an array element (0-based), a map value,
// or a field of every struct in an array.
type extractValue struct {
	child Expr
	// field/ordinal select a struct field (ordinal >= 0).
	field   string
	ordinal int
	// key is the array index or map key expression.
	key Expr
	t   sqltypes.DataType
	str sqlText
}

// BindExtractValue resolves child[extraction] (Spark's ExtractValue): a struct field by name
// (case-insensitive), an array element by 0-based index, a map value by key, or, for an array
// of structs and a field name, the array of that field's values.
func BindExtractValue(child Expr, extraction Expr) (Expr, error) {
	ct := child.Type()
	switch ct.Kind {
	case sqltypes.Struct:
		name, ok := literalValue(extraction)
		s, isStr := name.(string)
		if !ok || !isStr {
			return nil, sparkerr.Analysis("INVALID_EXTRACT_FIELD_TYPE", "42000",
				"Field name should be a non-null string literal, but it's %s.", extraction.String())
		}
		idx := fieldIndex(ct.Fields, s)
		if idx < 0 {
			return nil, fieldNotFound(s, ct)
		}
		f := ct.Fields[idx]
		return &extractValue{child: child, field: f.Name, ordinal: idx, t: f.Type, str: sqlOf(child, "."+f.Name)}, nil
	case sqltypes.Array:
		if ct.Elem.Kind == sqltypes.Struct {
			if name, ok := literalValue(extraction); ok {
				if s, isStr := name.(string); isStr {
					idx := fieldIndex(ct.Elem.Fields, s)
					if idx < 0 {
						return nil, fieldNotFound(s, *ct.Elem)
					}
					f := ct.Elem.Fields[idx]
					return &extractValue{child: child, field: f.Name, ordinal: idx,
						t: sqltypes.ArrayType(f.Type, f.Nullable || ct.ElemNullable), str: sqlOf(child, "."+f.Name)}, nil
				}
			}
		}
		if !extraction.Type().IsIntegral() && extraction.Type().Kind != sqltypes.Null {
			return nil, typeMismatch("UNEXPECTED_INPUT_TYPE", quoteSQL(child.String()+"["+extraction.String()+"]"),
				"The second parameter requires the \"INTEGRAL\" type, however %s has the type \"%s\".",
				quoteSQL(extraction.String()), extraction.Type().SQL())
		}
		return &extractValue{child: child, ordinal: -1, key: extraction, t: *ct.Elem, str: sqlOf(child, "[", extraction, "]")}, nil
	case sqltypes.Map:
		key, err := implicitCast(extraction, *ct.Key, Options{ANSI: true})
		if err != nil {
			return nil, err
		}
		return &extractValue{child: child, ordinal: -1, key: key, t: *ct.Value, str: sqlOf(child, "[", extraction, "]")}, nil
	}
	return nil, sparkerr.Analysis("INVALID_EXTRACT_BASE_FIELD_TYPE", "42000",
		"Can't extract a value from %s. Need a complex type [STRUCT, ARRAY, MAP] but got \"%s\".", quoteSQL(child.String()), ct.SQL()).
		WithParams("base", quoteSQL(child.String()), "other", `"`+ct.SQL()+`"`)
}

func fieldIndex(fs []sqltypes.Field, name string) int {
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	for i, f := range fs {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func fieldNotFound(name string, t sqltypes.DataType) error {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = sparkerr.Quote(f.Name)
	}
	return sparkerr.Analysis("FIELD_NOT_FOUND", "42704", "No such struct field %s in %s.",
		sparkerr.Quote(name), strings.Join(names, ", ")).WithParams("fieldName", sparkerr.Quote(name), "fields", strings.Join(names, ", "))
}

func (e *extractValue) Type() sqltypes.DataType     { return e.t }
func (e *extractValue) Nullable() bool              { return true }
func (e *extractValue) String() string              { return e.str.String() }
func (e *extractValue) writeSQL(b *strings.Builder) { e.str.write(b) }
func (e *extractValue) Children() []Expr {
	if e.key != nil {
		return []Expr{e.child, e.key}
	}
	return []Expr{e.child}
}

func (e *extractValue) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	ct := e.child.Type()
	if ct.Kind == sqltypes.Struct && e.ordinal >= 0 {
		c, err := e.child.Eval(ctx, batch)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		// A struct field array: fast when the parent has no nulls.
		if s, ok := c.(interface{ Field(int) arrow.Array }); ok && c.NullN() == 0 && c.Data().Offset() == 0 {
			f := s.Field(e.ordinal)
			if f.Len() == c.Len() {
				f.Retain()
				return f, nil
			}
		}
		out := make([]any, c.Len())
		for i := range out {
			if v := ValueAt(c, i, ct); v != nil {
				out[i] = v.([]any)[e.ordinal]
			}
		}
		return BuildArray(ctx.mem(), e.t, ctx.tz(), out), nil
	}
	f := &rowFunc{name: "extract", args: e.Children(), t: e.t, null: true, strict: true,
		fn: func(ctx *Context, a []any) (any, error) {
			switch ct.Kind {
			case sqltypes.Array:
				arr := a[0].([]any)
				if e.key == nil {
					out := make([]any, len(arr))
					for i, x := range arr {
						if x != nil {
							out[i] = x.([]any)[e.ordinal]
						}
					}
					return out, nil
				}
				i := toInt64(a[1])
				if i < 0 || i >= int64(len(arr)) {
					// GetArrayItem: failOnError is spark.sql.ansi.enabled.
					if ctx.ansi() {
						return nil, invalidArrayIndex(i, int64(len(arr)))
					}
					return nil, nil
				}
				return arr[i], nil
			case sqltypes.Map:
				m := a[0].(*sqltypes.MapValue)
				for i, k := range m.Keys {
					if Compare(k, a[1], *ct.Key) == 0 {
						return m.Values[i], nil
					}
				}
			}
			return nil, nil
		}}
	return f.Eval(ctx, batch)
}
