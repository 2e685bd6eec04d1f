package operators

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// rowCodec writes a row of key columns as bytes and reads it back: the key of a spilled state
// entry. Rows equal as keys (NULL = NULL, NaN = NaN, -0.0 = 0.0) encode to the same bytes, so
// the spill store finds a key by its encoding.
type rowCodec struct {
	fields []arrow.Field
	types  []sqltypes.DataType
	tz     []string
}

func newRowCodec(fields []arrow.Field) (*rowCodec, error) {
	c := &rowCodec{fields: fields, types: make([]sqltypes.DataType, len(fields)), tz: make([]string, len(fields))}
	for i, f := range fields {
		if !encodable(f.Type) {
			return nil, sparkerr.Unsupported("spilling streaming state keyed by a column of type %s", f.Type)
		}
		t, err := sqltypes.FromArrow(f.Type)
		if err != nil {
			return nil, err
		}
		c.types[i] = t
		c.tz[i] = timeZoneOf(f.Type)
	}
	return c, nil
}

// timeZoneOf is the time zone of the first timestamp in t ("" if none).
func timeZoneOf(t arrow.DataType) string {
	switch x := t.(type) {
	case *arrow.TimestampType:
		return x.TimeZone
	case *arrow.StructType:
		for _, f := range x.Fields() {
			if tz := timeZoneOf(f.Type); tz != "" {
				return tz
			}
		}
	case arrow.ListLikeType:
		return timeZoneOf(x.Elem())
	}
	return ""
}

// encode appends row i of cols to buf.
func (c *rowCodec) encode(buf []byte, cols []arrow.Array, i int) []byte {
	for _, a := range cols {
		buf = encodeAt(buf, a, i)
	}
	return buf
}

// encodable reports whether encodeAt writes values of Arrow type t (the types Weir's own
// columns have).
func encodable(t arrow.DataType) bool {
	switch x := t.(type) {
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Float32Type, *arrow.Float64Type, *arrow.Decimal128Type, *arrow.StringType, *arrow.BinaryType,
		*arrow.Date32Type, *arrow.TimestampType, *arrow.DurationType, *arrow.MonthIntervalType, *arrow.NullType:
		return true
	case *arrow.StructType:
		for _, f := range x.Fields() {
			if !encodable(f.Type) {
				return false
			}
		}
		return true
	case *arrow.MapType:
		return encodable(x.KeyType()) && encodable(x.ItemType())
	case *arrow.ListType:
		return encodable(x.Elem())
	}
	return false
}

// encodeAt appends row i of a (an encodable type): a NULL flag, then the value — integers,
// dates, timestamps and intervals as 8 bytes, floats as 8 bytes with NaN and -0.0 made
// canonical, decimals as 16, strings and binaries with their length, structs field by field,
// arrays and maps with their length.
func encodeAt(buf []byte, a arrow.Array, i int) []byte {
	if a.IsNull(i) {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	switch x := a.(type) {
	case *array.Boolean:
		return append(buf, byte(boolInt(x.Value(i))))
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64:
		return binary.BigEndian.AppendUint64(buf, uint64(intValue(a, i)))
	case *array.Date32:
		return binary.BigEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Timestamp:
		return binary.BigEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Duration:
		return binary.BigEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Time64:
		return binary.BigEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.MonthInterval:
		return binary.BigEndian.AppendUint64(buf, uint64(x.Value(i)))
	case *array.Float32, *array.Float64:
		f := floatValue(a, i)
		switch {
		case math.IsNaN(f):
			f = math.NaN()
		case f == 0:
			f = 0
		}
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(f))
	case *array.Decimal128:
		n := x.Value(i)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n.HighBits()))
		return binary.BigEndian.AppendUint64(buf, n.LowBits())
	case *array.String:
		v := x.Value(i)
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		return append(buf, v...)
	case *array.Binary:
		v := x.Value(i)
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		return append(buf, v...)
	case *array.Struct:
		for f := 0; f < x.NumField(); f++ {
			buf = encodeAt(buf, x.Field(f), i)
		}
		return buf
	case *array.Map:
		start, end := x.ValueOffsets(i)
		buf = binary.AppendUvarint(buf, uint64(end-start))
		for j := int(start); j < int(end); j++ {
			buf = encodeAt(encodeAt(buf, x.Keys(), j), x.Items(), j)
		}
		return buf
	case *array.List:
		start, end := x.ValueOffsets(i)
		buf = binary.AppendUvarint(buf, uint64(end-start))
		for j := int(start); j < int(end); j++ {
			buf = encodeAt(buf, x.ListValues(), j)
		}
		return buf
	}
	return buf
}

// decode reads rows written by encode back into columns of the codec's fields. The caller
// releases them.
func (c *rowCodec) decode(mem memory.Allocator, rows [][]byte) ([]arrow.Array, error) {
	values := make([][]any, len(c.fields))
	for k := range values {
		values[k] = make([]any, len(rows))
	}
	for r, row := range rows {
		d := valueDecoder{buf: row}
		for k := range c.fields {
			values[k][r] = d.value(c.types[k])
		}
		if d.bad || len(d.buf) != 0 {
			return nil, sparkerr.Internal("state spill store: a corrupt key")
		}
	}
	out := make([]arrow.Array, len(c.fields))
	for k, f := range c.fields {
		a := expr.BuildArray(mem, c.types[k], c.tz[k], values[k])
		if !arrow.TypeEqual(a.DataType(), f.Type) {
			a.Release()
			releaseAll(out[:k])
			return nil, sparkerr.Internal("state spill store: key column %s rebuilds as %s", f.Type, a.DataType())
		}
		out[k] = a
	}
	return out, nil
}

type valueDecoder struct {
	buf []byte
	bad bool
}

func (d *valueDecoder) take(n int) []byte {
	if n > len(d.buf) || n < 0 {
		d.bad = true
		d.buf = nil
		return make([]byte, n&0xffff)
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

func (d *valueDecoder) u64() uint64 { return binary.BigEndian.Uint64(d.take(8)) }

func (d *valueDecoder) length() int {
	n, k := binary.Uvarint(d.buf)
	if k <= 0 || n > uint64(len(d.buf)) {
		d.bad = true
		d.buf = nil
		return 0
	}
	d.buf = d.buf[k:]
	return int(n)
}

func (d *valueDecoder) value(t sqltypes.DataType) any {
	if d.bad || d.take(1)[0] == 0 {
		return nil
	}
	switch t.Kind {
	case sqltypes.Boolean:
		return d.take(1)[0] == 1
	case sqltypes.Byte:
		return int8(d.u64())
	case sqltypes.Short:
		return int16(d.u64())
	case sqltypes.Integer, sqltypes.Date, sqltypes.YearMonthInterval:
		return int32(d.u64())
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval, sqltypes.Time:
		return int64(d.u64())
	case sqltypes.Float:
		return float32(math.Float64frombits(d.u64()))
	case sqltypes.Double:
		return math.Float64frombits(d.u64())
	case sqltypes.Decimal:
		hi := int64(d.u64())
		return decimal128.New(hi, d.u64())
	case sqltypes.String:
		return string(d.take(d.length()))
	case sqltypes.Binary:
		return append([]byte{}, d.take(d.length())...)
	case sqltypes.Array:
		xs := make([]any, d.length())
		for j := range xs {
			xs[j] = d.value(*t.Elem)
		}
		return xs
	case sqltypes.Struct:
		xs := make([]any, len(t.Fields))
		for f := range xs {
			xs[f] = d.value(t.Fields[f].Type)
		}
		return xs
	case sqltypes.Map:
		n := d.length()
		m := &sqltypes.MapValue{Keys: make([]any, n), Values: make([]any, n)}
		for j := 0; j < n; j++ {
			m.Keys[j] = d.value(*t.Key)
			m.Values[j] = d.value(*t.Value)
		}
		return m
	}
	return nil
}
