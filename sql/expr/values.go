package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// ValueAt returns row i of arr as a Go value following the sqltypes conventions (nil for NULL).
// t is the Spark type of arr; Arrow types Weir reads from outside (unsigned integers, large
// strings, string views, dictionaries) are converted to the value of t's kind.
func ValueAt(arr arrow.Array, i int, t sqltypes.DataType) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return int16(a.Value(i))
	case *array.Uint16:
		return int32(a.Value(i))
	case *array.Uint32:
		return int64(a.Value(i))
	case *array.Uint64:
		return decimal128.FromU64(a.Value(i))
	case *array.Float16:
		return a.Value(i).Float32()
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.StringView:
		return a.Value(i)
	case *array.Binary:
		return a.Value(i)
	case *array.LargeBinary:
		return a.Value(i)
	case *array.BinaryView:
		return a.Value(i)
	case *array.FixedSizeBinary:
		return a.Value(i)
	case *array.Date32:
		return int32(a.Value(i))
	case *array.Date64:
		return int32(int64(a.Value(i)) / 86400000)
	case *array.Timestamp:
		v := int64(a.Value(i))
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			v *= 1e6
		case arrow.Millisecond:
			v *= 1e3
		case arrow.Nanosecond:
			v /= 1e3
		}
		return v
	case *array.Duration:
		v := int64(a.Value(i))
		switch a.DataType().(*arrow.DurationType).Unit {
		case arrow.Second:
			v *= 1e6
		case arrow.Millisecond:
			v *= 1e3
		case arrow.Nanosecond:
			v /= 1e3
		}
		return v
	case *array.MonthInterval:
		return int32(a.Value(i))
	case *array.Time64:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			v *= 1e3
		}
		return v
	case *array.Time32:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			return v * 1e9
		}
		return v * 1e6
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return sqltypes.CalendarIntervalValue{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}
	case *array.Map:
		kt, vt := sqltypes.StringType, sqltypes.StringType
		if t.Kind == sqltypes.Map {
			kt, vt = *t.Key, *t.Value
		}
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		m := &sqltypes.MapValue{Keys: make([]any, 0, end-start), Values: make([]any, 0, end-start)}
		for j := int(start); j < int(end); j++ {
			m.Keys = append(m.Keys, ValueAt(keys, j, kt))
			m.Values = append(m.Values, ValueAt(items, j, vt))
		}
		return m
	case array.ListLike:
		et := sqltypes.NullType
		if t.Kind == sqltypes.Array {
			et = *t.Elem
		}
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, ValueAt(vals, j, et))
		}
		return out
	case *array.Struct:
		switch t.Kind {
		case sqltypes.Variant:
			return sqltypes.VariantValue{Value: a.Field(0).(*array.Binary).Value(i), Metadata: a.Field(1).(*array.Binary).Value(i)}
		case sqltypes.Geometry, sqltypes.Geography:
			return sqltypes.GeoValue{SRID: a.Field(0).(*array.Int32).Value(i), WKB: a.Field(1).(*array.Binary).Value(i)}
		}
		out := make([]any, a.NumField())
		for f := range out {
			ft := sqltypes.NullType
			if t.Kind == sqltypes.Struct && f < len(t.Fields) {
				ft = t.Fields[f].Type
			}
			out[f] = ValueAt(a.Field(f), i, ft)
		}
		return out
	case *array.Dictionary:
		return ValueAt(a.Dictionary(), a.GetValueIndex(i), t)
	case *array.Null:
		return nil
	}
	panic(fmt.Sprintf("expr: ValueAt: unsupported arrow array %s", arr.DataType()))
}

// BuildArray builds an array of Spark type t (Arrow type per sqltypes.ToArrow with time zone tz)
// from Go values following the sqltypes conventions. Values of a narrower Go type than t
// expects (e.g. int32 for a long column) are converted.
func BuildArray(mem memory.Allocator, t sqltypes.DataType, tz string, values []any) arrow.Array {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if t.Kind == sqltypes.Null {
		return array.MakeArrayOfNull(mem, arrow.Null, len(values))
	}
	b := array.NewBuilder(mem, sqltypes.ToArrow(t, tz))
	defer b.Release()
	b.Reserve(len(values))
	for _, v := range values {
		appendValue(b, t, v)
	}
	return b.NewArray()
}

func appendValue(b array.Builder, t sqltypes.DataType, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int8Builder:
		bb.Append(int8(toInt64(v)))
	case *array.Int16Builder:
		bb.Append(int16(toInt64(v)))
	case *array.Int32Builder:
		bb.Append(int32(toInt64(v)))
	case *array.Int64Builder:
		bb.Append(toInt64(v))
	case *array.Float32Builder:
		bb.Append(float32(toFloat64(v)))
	case *array.Float64Builder:
		bb.Append(toFloat64(v))
	case *array.Decimal128Builder:
		bb.Append(v.(decimal128.Num))
	case *array.StringBuilder:
		switch s := v.(type) {
		case string:
			bb.Append(s)
		case []byte:
			bb.Append(string(s))
		}
	case *array.BinaryBuilder:
		switch s := v.(type) {
		case string:
			bb.AppendString(s)
		case []byte:
			bb.Append(s)
		}
	case *array.Date32Builder:
		bb.Append(arrow.Date32(toInt64(v)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(toInt64(v)))
	case *array.DurationBuilder:
		bb.Append(arrow.Duration(toInt64(v)))
	case *array.MonthIntervalBuilder:
		bb.Append(arrow.MonthInterval(toInt64(v)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(toInt64(v)))
	case *array.MonthDayNanoIntervalBuilder:
		// make_interval and the interval arithmetic refuse a microsecond part whose nanoseconds
		// overflow (calendarResult), so the product fits.
		c := v.(sqltypes.CalendarIntervalValue)
		bb.Append(arrow.MonthDayNanoInterval{Months: c.Months, Days: c.Days, Nanoseconds: c.Micros * 1000})
	case *array.MapBuilder:
		m := v.(*sqltypes.MapValue)
		bb.Append(true)
		kb, ib := bb.KeyBuilder(), bb.ItemBuilder()
		for i := range m.Keys {
			appendValue(kb, *t.Key, m.Keys[i])
			appendValue(ib, *t.Value, m.Values[i])
		}
	case *array.ListBuilder:
		bb.Append(true)
		vb := bb.ValueBuilder()
		for _, e := range v.([]any) {
			appendValue(vb, *t.Elem, e)
		}
	case *array.StructBuilder:
		bb.Append(true)
		switch t.Kind {
		case sqltypes.Variant:
			vv := v.(sqltypes.VariantValue)
			bb.FieldBuilder(0).(*array.BinaryBuilder).Append(vv.Value)
			bb.FieldBuilder(1).(*array.BinaryBuilder).Append(vv.Metadata)
			return
		case sqltypes.Geometry, sqltypes.Geography:
			g := v.(sqltypes.GeoValue)
			bb.FieldBuilder(0).(*array.Int32Builder).Append(g.SRID)
			bb.FieldBuilder(1).(*array.BinaryBuilder).Append(g.WKB)
			return
		}
		vals := v.([]any)
		for f := 0; f < bb.NumField(); f++ {
			appendValue(bb.FieldBuilder(f), t.Fields[f].Type, vals[f])
		}
	case *array.NullBuilder:
		bb.AppendNull()
	default:
		panic(fmt.Sprintf("expr: BuildArray: unsupported builder %T", b))
	}
}

// toInt64 widens any Go integral value (and bool) to int64.
func toInt64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	case bool:
		if x {
			return 1
		}
		return 0
	case float32:
		return int64(x)
	case float64:
		return int64(x)
	}
	panic(fmt.Sprintf("expr: not an integer: %T", v))
}

// toFloat64 widens any Go numeric value to float64.
func toFloat64(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int8, int16, int32, int64, int:
		return float64(toInt64(x))
	}
	panic(fmt.Sprintf("expr: not a number: %T", v))
}

// valuesOf reads every row of a as Go values.
func valuesOf(a arrow.Array, t sqltypes.DataType) []any {
	out := make([]any, a.Len())
	for i := range out {
		out[i] = ValueAt(a, i, t)
	}
	return out
}
