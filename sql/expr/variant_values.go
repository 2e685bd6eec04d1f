package expr

import (
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/sql/types/variant"
)

// VARIANT values: building one from a typed value (CAST(x AS VARIANT), to_variant_object),
// reading one as a typed value (CAST(v AS T), variant_get) and rendering it as JSON.

// malformedVariant is Spark's MALFORMED_VARIANT.
func malformedVariant() *sparkerr.Error {
	return sparkerr.New(sparkerr.SparkRuntimeException, "MALFORMED_VARIANT", "22023",
		"Variant binary is malformed. Please check the data source is valid.")
}

// openVariant validates a VARIANT Go value and returns its root.
func openVariant(x any) (variant.Value, error) {
	vv := x.(sqltypes.VariantValue)
	if err := variant.Validate(vv.Value, vv.Metadata); err != nil {
		return variant.Value{}, malformedVariant()
	}
	return variant.New(vv.Value, vv.Metadata), nil
}

// variantResult turns a builder's result into a VARIANT Go value; fn names the function for
// VARIANT_SIZE_LIMIT.
func variantResult(b *variant.Builder, fn string) (any, error) {
	val, meta, err := b.Result()
	if err == variant.ErrSizeLimit {
		return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "VARIANT_SIZE_LIMIT", "22023",
			"Cannot build variant bigger than 16.0 MiB in %s. Please avoid large input strings to this expression (for example, add function calls(s) to check the expression size and convert it to NULL first if it is too big).", fn).
			WithParams("sizeLimit", "16.0 MiB", "functionName", "`"+fn+"`")
	}
	if err != nil {
		return nil, err
	}
	return sqltypes.VariantValue{Value: val, Metadata: meta}, nil
}

// canCastToVariant is Spark 4.2's rule for CAST(x AS VARIANT): atomic types and arrays of them;
// structs and maps only through to_variant_object (object=true).
func canCastToVariant(t sqltypes.DataType, object bool) bool {
	switch t.Kind {
	case sqltypes.Null, sqltypes.Boolean, sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long,
		sqltypes.Float, sqltypes.Double, sqltypes.Decimal, sqltypes.String, sqltypes.Binary,
		sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.Variant:
		return true
	case sqltypes.Array:
		return canCastToVariant(*t.Elem, object)
	case sqltypes.Struct:
		if !object {
			return false
		}
		for _, f := range t.Fields {
			if !canCastToVariant(f.Type, object) {
				return false
			}
		}
		return true
	case sqltypes.Map:
		return object && t.Key.Kind == sqltypes.String && canCastToVariant(*t.Value, object)
	}
	return false
}

// canCastFromVariant is the set of types CAST(v AS T) and variant_get read a variant as.
func canCastFromVariant(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Boolean, sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long,
		sqltypes.Float, sqltypes.Double, sqltypes.Decimal, sqltypes.String, sqltypes.Binary,
		sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.Variant, sqltypes.Null:
		return true
	case sqltypes.Array:
		return canCastFromVariant(*t.Elem)
	case sqltypes.Map:
		return t.Key.Kind == sqltypes.String && canCastFromVariant(*t.Value)
	case sqltypes.Struct:
		for _, f := range t.Fields {
			if !canCastFromVariant(f.Type) {
				return false
			}
		}
		return true
	}
	return false
}

// toVariant builds a VARIANT from a non-null value of type t.
func toVariant(v any, t sqltypes.DataType) (any, error) {
	var b variant.Builder
	if err := appendVariant(&b, v, t); err != nil {
		return nil, err
	}
	return variantResult(&b, "to_variant_object")
}

func appendVariant(b *variant.Builder, v any, t sqltypes.DataType) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch t.Kind {
	case sqltypes.Boolean:
		b.AppendBool(v.(bool))
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		b.AppendLong(toInt64(v))
	case sqltypes.Float:
		b.AppendFloat(v.(float32))
	case sqltypes.Double:
		b.AppendDouble(v.(float64))
	case sqltypes.Decimal:
		b.AppendDecimal(v.(decimal128.Num).BigInt(), int(t.Scale))
	case sqltypes.String:
		b.AppendString(v.(string))
	case sqltypes.Binary:
		b.AppendBinary(v.([]byte))
	case sqltypes.Date:
		b.AppendDate(v.(int32))
	case sqltypes.Timestamp:
		b.AppendTimestamp(v.(int64))
	case sqltypes.TimestampNTZ:
		b.AppendTimestampNTZ(v.(int64))
	case sqltypes.Variant:
		root, err := openVariant(v)
		if err != nil {
			return err
		}
		b.AppendValue(root)
	case sqltypes.Array:
		start := b.Pos()
		elems := v.([]any)
		offs := make([]int, 0, len(elems))
		for _, e := range elems {
			offs = append(offs, b.Pos()-start)
			if err := appendVariant(b, e, *t.Elem); err != nil {
				return err
			}
		}
		b.FinishArray(start, offs)
	case sqltypes.Struct:
		start := b.Pos()
		vals := v.([]any)
		fields := make([]variant.FieldEntry, 0, len(vals))
		for i, f := range t.Fields {
			fields = append(fields, variant.FieldEntry{Key: f.Name, ID: b.AddKey(f.Name), Offset: b.Pos() - start})
			if err := appendVariant(b, vals[i], f.Type); err != nil {
				return err
			}
		}
		b.FinishObject(start, fields)
	case sqltypes.Map:
		start := b.Pos()
		m := v.(*sqltypes.MapValue)
		fields := make([]variant.FieldEntry, 0, len(m.Keys))
		for i, k := range m.Keys {
			key := k.(string)
			fields = append(fields, variant.FieldEntry{Key: key, ID: b.AddKey(key), Offset: b.Pos() - start})
			if err := appendVariant(b, m.Values[i], *t.Value); err != nil {
				return err
			}
		}
		b.FinishObject(start, fields)
	default:
		return sparkerr.Internal("cannot build a variant from %s", t)
	}
	return b.Err()
}

// variantScalar is a scalar variant value as a typed Go value; ok is false for objects, arrays
// and types without a Spark counterpart here (TIME, nanosecond timestamps).
func variantScalar(v variant.Value) (any, sqltypes.DataType, bool) {
	switch v.Type() {
	case variant.Boolean:
		return v.Bool(), sqltypes.BooleanType, true
	case variant.Long:
		return v.Int(), sqltypes.LongType, true
	case variant.Double:
		return v.Double(), sqltypes.DoubleType, true
	case variant.Float:
		return v.Float(), sqltypes.FloatType, true
	case variant.Decimal:
		u, scale := v.Decimal()
		u, scale = stripDecimalZeros(u, scale)
		prec := max(variant.DecimalPrecision(u), scale)
		return decimal128.FromBigInt(u), sqltypes.DecimalType(int32(prec), int32(scale)), true
	case variant.String:
		return string(v.Bytes()), sqltypes.StringType, true
	case variant.UUID:
		return formatUUID(v.Bytes()), sqltypes.StringType, true
	case variant.Binary:
		return append([]byte(nil), v.Bytes()...), sqltypes.BinaryType, true
	case variant.Date:
		return int32(v.Int()), sqltypes.DateType, true
	case variant.Timestamp:
		return v.Int(), sqltypes.TimestampType, true
	case variant.TimestampNTZ:
		return v.Int(), sqltypes.TimestampNTZType, true
	}
	return nil, sqltypes.NullType, false
}

func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// variantCastError is Spark's INVALID_VARIANT_CAST for v read as t.
func variantCastError(v variant.Value, t sqltypes.DataType, loc *time.Location) *sparkerr.Error {
	js := string(appendVariantJSON(nil, v, loc))
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_VARIANT_CAST", "22023",
		"The variant value `%s` cannot be cast into `\"%s\"`. Please use `try_variant_get` instead.", js, t.SQL()).
		WithParams("value", js, "dataType", `"`+t.SQL()+`"`)
}

// fromVariant reads v as type t. A variant null is SQL NULL (except for t VARIANT). A value
// that does not convert is INVALID_VARIANT_CAST when fail, else NULL (inside arrays, maps and
// structs too).
func fromVariant(v variant.Value, t sqltypes.DataType, fail bool, loc *time.Location) (any, error) {
	if t.Kind == sqltypes.Variant {
		var b variant.Builder
		b.AppendValue(v)
		return variantResult(&b, "variant_get")
	}
	if v.Type() == variant.Null {
		return nil, nil
	}
	bad := func() (any, error) {
		if fail {
			return nil, variantCastError(v, t, loc)
		}
		return nil, nil
	}
	switch t.Kind {
	case sqltypes.Array:
		if v.Type() != variant.Array {
			return bad()
		}
		out := make([]any, v.Len())
		for i := range out {
			e, err := fromVariant(v.Elem(i), *t.Elem, fail, loc)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case sqltypes.Map:
		if v.Type() != variant.Object {
			return bad()
		}
		n := v.Len()
		m := &sqltypes.MapValue{Keys: make([]any, n), Values: make([]any, n)}
		for i := 0; i < n; i++ {
			k, f := v.Field(i)
			e, err := fromVariant(f, *t.Value, fail, loc)
			if err != nil {
				return nil, err
			}
			m.Keys[i], m.Values[i] = k, e
		}
		return m, nil
	case sqltypes.Struct:
		if v.Type() != variant.Object {
			return bad()
		}
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			fv, ok := v.Get(f.Name)
			if !ok {
				continue
			}
			e, err := fromVariant(fv, f.Type, fail, loc)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case sqltypes.String:
		if k := v.Type(); k == variant.Object || k == variant.Array {
			return string(appendVariantJSON(nil, v, loc)), nil
		}
	}
	x, from, ok := variantScalar(v)
	if !ok || t.Kind == sqltypes.Binary && from.Kind != sqltypes.Binary && from.Kind != sqltypes.String {
		return bad() // ANSI casts no number to BINARY
	}
	r, ok, err := castValueOK(x, from, t, true, loc)
	if err != nil || !ok {
		return bad()
	}
	return r, nil
}

// appendVariantJSON renders v as Spark's Variant.toJson(zone) does: keys in order, decimals
// without trailing zeros, doubles and floats as Java prints them (non-finite ones quoted),
// dates, timestamps (with the zone's offset) and binary (base64) as strings.
func appendVariantJSON(buf []byte, v variant.Value, loc *time.Location) []byte {
	switch v.Type() {
	case variant.Null:
		return append(buf, "null"...)
	case variant.Boolean:
		return strconv.AppendBool(buf, v.Bool())
	case variant.Long:
		return strconv.AppendInt(buf, v.Int(), 10)
	case variant.Double:
		return appendJSONNumber(buf, formatDouble(v.Double()))
	case variant.Float:
		return appendJSONNumber(buf, formatFloat(v.Float()))
	case variant.Decimal:
		u, scale := v.Decimal()
		return append(buf, plainDecimal(u, scale)...)
	case variant.String:
		return append(buf, quoteJSON(string(v.Bytes()))...)
	case variant.UUID:
		return append(buf, quoteJSON(formatUUID(v.Bytes()))...)
	case variant.Binary:
		return append(buf, quoteJSON(base64.StdEncoding.EncodeToString(v.Bytes()))...)
	case variant.Date:
		return append(buf, quoteJSON(formatDate(int32(v.Int())))...)
	case variant.Timestamp:
		return append(buf, quoteJSON(formatTimestamp(v.Int(), loc)+time.UnixMicro(v.Int()).In(loc).Format("-07:00"))...)
	case variant.TimestampNTZ:
		return append(buf, quoteJSON(formatTimestamp(v.Int(), time.UTC))...)
	case variant.Object:
		buf = append(buf, '{')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			k, f := v.Field(i)
			buf = append(buf, quoteJSON(k)...)
			buf = append(buf, ':')
			buf = appendVariantJSON(buf, f, loc)
		}
		return append(buf, '}')
	case variant.Array:
		buf = append(buf, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendVariantJSON(buf, v.Elem(i), loc)
		}
		return append(buf, ']')
	}
	return append(buf, "null"...)
}

func appendJSONNumber(buf []byte, s string) []byte {
	if s == "NaN" || strings.HasSuffix(s, "Infinity") {
		return append(buf, quoteJSON(s)...)
	}
	return append(buf, s...)
}

// plainDecimal is BigDecimal.stripTrailingZeros().toPlainString().
func plainDecimal(u *big.Int, scale int) string {
	neg := u.Sign() < 0
	s := new(big.Int).Abs(u).String()
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s
}

// variantString is CAST(v AS STRING): a string's text, otherwise the value read as a string.
func variantString(x any, loc *time.Location) string {
	root, err := openVariant(x)
	if err != nil {
		return ""
	}
	s, err := fromVariant(root, sqltypes.StringType, false, loc)
	if err != nil || s == nil {
		return "null"
	}
	return s.(string)
}

// stripDecimalZeros drops trailing fraction zeros (BigDecimal.stripTrailingZeros, never to a
// negative scale), as Spark reads a variant decimal.
func stripDecimalZeros(u *big.Int, scale int) (*big.Int, int) {
	ten := big.NewInt(10)
	q, r := new(big.Int), new(big.Int)
	for scale > 0 && u.Sign() != 0 {
		q.QuoRem(u, ten, r)
		if r.Sign() != 0 {
			break
		}
		u, scale = new(big.Int).Set(q), scale-1
	}
	if u.Sign() == 0 {
		scale = 0
	}
	return u, scale
}
