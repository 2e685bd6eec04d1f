package expr

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// toJSONStruct is to_json of a struct, evaluated a batch at a time: it writes each row's JSON
// from the struct's field arrays into one buffer, with no Go values per field for the
// integral, floating-point, boolean and string fields; other fields render through
// AppendJSONValue. The text is AppendJSONValue's exactly (fields in order, NULL fields
// omitted).
type toJSONStruct struct {
	*rowFunc
	fields []sqltypes.Field
	names  [][]byte // `"name":` of every field
}

func newToJSONStruct(f *rowFunc, t sqltypes.DataType) *toJSONStruct {
	e := &toJSONStruct{rowFunc: f, fields: t.Fields}
	for _, fd := range t.Fields {
		e.names = append(e.names, append(quoteJSON(fd.Name), ':'))
	}
	return e
}

// Eval implements Expr.
func (e *toJSONStruct) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	in, err := e.args[0].Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	st, isStruct := in.(*array.Struct)
	if !isStruct || st.NumField() != len(e.fields) {
		return e.rowFunc.Eval(ctx, batch)
	}
	n := st.Len()
	bld := array.NewStringBuilder(ctx.mem())
	defer bld.Release()
	bld.Reserve(n)
	loc := ctx.loc()
	var buf []byte
	for i := 0; i < n; i++ {
		if st.IsNull(i) {
			bld.AppendNull()
			continue
		}
		buf = append(buf[:0], '{')
		first := true
		for j, f := range e.fields {
			col := st.Field(j)
			if isNullAt(col, i) {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = append(buf, e.names[j]...)
			buf = appendJSONField(buf, col, i, f.Type, loc)
		}
		buf = append(buf, '}')
		bld.BinaryBuilder.Append(buf)
	}
	return bld.NewArray(), nil
}

// appendJSONField renders row i of a non-null field as AppendJSONValue does.
func appendJSONField(buf []byte, col arrow.Array, i int, t sqltypes.DataType, loc *time.Location) []byte {
	switch a := col.(type) {
	case *array.Int64:
		if t.Kind == sqltypes.Long {
			return strconv.AppendInt(buf, a.Value(i), 10)
		}
	case *array.Int32:
		if t.Kind == sqltypes.Integer {
			return strconv.AppendInt(buf, int64(a.Value(i)), 10)
		}
	case *array.Int16:
		if t.Kind == sqltypes.Short {
			return strconv.AppendInt(buf, int64(a.Value(i)), 10)
		}
	case *array.Int8:
		if t.Kind == sqltypes.Byte {
			return strconv.AppendInt(buf, int64(a.Value(i)), 10)
		}
	case *array.Boolean:
		if t.Kind == sqltypes.Boolean {
			return strconv.AppendBool(buf, a.Value(i))
		}
	case *array.Float64:
		if t.Kind == sqltypes.Double {
			return appendJSONDouble(buf, formatDouble(a.Value(i)))
		}
	case *array.Float32:
		if t.Kind == sqltypes.Float {
			return appendJSONDouble(buf, formatFloat(a.Value(i)))
		}
	case *array.String:
		if t.Kind == sqltypes.String {
			return appendJSONString(buf, a.Value(i))
		}
	}
	return AppendJSONValue(buf, ValueAt(col, i, t), t, loc)
}

// appendJSONString quotes s as quoteJSON does: printable ASCII without quotes or backslashes
// is copied; anything else goes through quoteJSON.
func appendJSONString(buf []byte, s string) []byte {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return append(buf, quoteJSON(s)...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// appendJSONDouble renders a double as jsonScalarText does, quoting NaN and infinities.
func appendJSONDouble(buf []byte, s string) []byte {
	if s == "NaN" || strings.HasSuffix(s, "Infinity") {
		return append(buf, quoteJSON(s)...)
	}
	return append(buf, s...)
}
