package sqltypes

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// MapValue is the Go value of a map: parallel key and value slices.
type MapValue struct {
	Keys, Values []any
}

// Decimal128 is the Go value of a decimal: the unscaled integer (scale comes from the type).
type Decimal128 = decimal128.Num

// ToArrow maps a Spark type to its Arrow type; tz is the session time zone used for timestamp.
func ToArrow(t DataType, tz string) arrow.DataType {
	switch t.Kind {
	case Null:
		return arrow.Null
	case Boolean:
		return arrow.FixedWidthTypes.Boolean
	case Byte:
		return arrow.PrimitiveTypes.Int8
	case Short:
		return arrow.PrimitiveTypes.Int16
	case Integer:
		return arrow.PrimitiveTypes.Int32
	case Long:
		return arrow.PrimitiveTypes.Int64
	case Float:
		return arrow.PrimitiveTypes.Float32
	case Double:
		return arrow.PrimitiveTypes.Float64
	case Decimal:
		return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}
	case String:
		return arrow.BinaryTypes.String
	case Binary:
		return arrow.BinaryTypes.Binary
	case Date:
		return arrow.FixedWidthTypes.Date32
	case Timestamp:
		if tz == "" {
			tz = "UTC"
		}
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: tz}
	case TimestampNTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case DayTimeInterval:
		return arrow.FixedWidthTypes.Duration_us
	case YearMonthInterval:
		return arrow.FixedWidthTypes.MonthInterval
	case Time:
		return arrow.FixedWidthTypes.Time64ns
	case CalendarInterval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	case Array:
		return arrow.ListOfField(arrow.Field{Name: "element", Type: ToArrow(*t.Elem, tz), Nullable: t.ElemNullable})
	case Map:
		m := arrow.MapOf(ToArrow(*t.Key, tz), ToArrow(*t.Value, tz))
		m.SetItemNullable(t.ValueNullable)
		return m
	case Struct:
		return arrow.StructOf(ToArrowFields(t.Fields, tz)...)
	case Variant:
		return VariantArrow
	case Geometry, Geography:
		return geoArrow(t)
	}
	panic(fmt.Sprintf("sqltypes: no arrow type for %v", t))
}

// ToArrowFields maps fields to Arrow fields.
func ToArrowFields(fs []Field, tz string) []arrow.Field {
	out := make([]arrow.Field, len(fs))
	for i, f := range fs {
		out[i] = arrow.Field{Name: f.Name, Type: ToArrow(f.Type, tz), Nullable: f.Nullable}
	}
	return out
}

// ToArrowSchema maps a schema to an Arrow schema.
func ToArrowSchema(s Schema, tz string) *arrow.Schema {
	return arrow.NewSchema(ToArrowFields(s, tz), nil)
}

// FromArrow maps an Arrow type to a Spark type.
func FromArrow(t arrow.DataType) (DataType, error) {
	switch t := t.(type) {
	case *arrow.NullType:
		return NullType, nil
	case *arrow.BooleanType:
		return BooleanType, nil
	case *arrow.Int8Type:
		return ByteType, nil
	case *arrow.Int16Type, *arrow.Uint8Type:
		return ShortType, nil
	case *arrow.Int32Type, *arrow.Uint16Type:
		return IntegerType, nil
	case *arrow.Int64Type, *arrow.Uint32Type:
		return LongType, nil
	case *arrow.Uint64Type:
		return DecimalType(20, 0), nil
	case *arrow.Float16Type, *arrow.Float32Type:
		return FloatType, nil
	case *arrow.Float64Type:
		return DoubleType, nil
	case *arrow.Decimal128Type:
		return DecimalType(t.Precision, t.Scale), nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return StringType, nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.FixedSizeBinaryType:
		return BinaryType, nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return DateType, nil
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return TimestampNTZType, nil
		}
		return TimestampType, nil
	case *arrow.DurationType:
		return DayTimeIntervalType(0, 3), nil
	case *arrow.Time64Type, *arrow.Time32Type:
		return TimeType(MaxTimePrecision), nil
	case *arrow.MonthIntervalType:
		return YearMonthIntervalType(0, 1), nil
	case *arrow.MonthDayNanoIntervalType:
		return CalendarIntervalType, nil
	case *arrow.MapType:
		k, err := FromArrow(t.KeyType())
		if err != nil {
			return DataType{}, err
		}
		v, err := FromArrow(t.ItemType())
		if err != nil {
			return DataType{}, err
		}
		return MapType(k, v, t.ItemField().Nullable), nil
	case *arrow.ListType:
		e, err := FromArrow(t.Elem())
		if err != nil {
			return DataType{}, err
		}
		return ArrayType(e, t.ElemField().Nullable), nil
	case *arrow.LargeListType:
		e, err := FromArrow(t.Elem())
		if err != nil {
			return DataType{}, err
		}
		return ArrayType(e, t.ElemField().Nullable), nil
	case *arrow.FixedSizeListType:
		e, err := FromArrow(t.Elem())
		if err != nil {
			return DataType{}, err
		}
		return ArrayType(e, t.ElemField().Nullable), nil
	case *arrow.StructType:
		if IsVariantArrow(t) {
			return VariantType, nil
		}
		if g, ok := geoFromArrow(t); ok {
			return g, nil
		}
		fs, err := FromArrowFields(t.Fields())
		if err != nil {
			return DataType{}, err
		}
		return StructType(fs...), nil
	case *arrow.DictionaryType:
		return FromArrow(t.ValueType)
	case arrow.ExtensionType:
		if t.ExtensionName() == parquetVariantExtension {
			return VariantType, nil
		}
	}
	return DataType{}, fmt.Errorf("sqltypes: unsupported arrow type %s", t)
}

// FromArrowFields maps Arrow fields to fields.
func FromArrowFields(fs []arrow.Field) ([]Field, error) {
	out := make([]Field, len(fs))
	for i, f := range fs {
		dt, err := FromArrow(f.Type)
		if err != nil {
			return nil, err
		}
		out[i] = Field{Name: f.Name, Type: dt, Nullable: f.Nullable}
	}
	return out, nil
}

// FromArrowSchema maps an Arrow schema to a schema.
func FromArrowSchema(s *arrow.Schema) (Schema, error) {
	return FromArrowFields(s.Fields())
}

// parquetVariantExtension is the name of Arrow's variant extension type, which Parquet columns
// of the VARIANT logical type read as (the files connector converts them to VariantArrow).
const parquetVariantExtension = "arrow.parquet.variant"

// VariantValue is the Go value of a VARIANT: its value and metadata buffers.
type VariantValue struct {
	Value, Metadata []byte
}

// VariantArrow is VARIANT's Arrow type, as Spark Connect sends it and PySpark reads it: a
// struct of non-null binaries value and metadata, the metadata field tagged variant=true.
var VariantArrow = arrow.StructOf(
	arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary},
	arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary,
		Metadata: arrow.NewMetadata([]string{"variant"}, []string{"true"})},
)

// IsVariantArrow reports whether an Arrow struct is a VARIANT: fields value and metadata, the
// metadata tagged variant=true (PySpark's is_variant).
func IsVariantArrow(t *arrow.StructType) bool {
	if t.NumFields() != 2 {
		return false
	}
	v, ok1 := t.FieldByName("value")
	m, ok2 := t.FieldByName("metadata")
	if !ok1 || !ok2 || !arrow.TypeEqual(v.Type, arrow.BinaryTypes.Binary) || !arrow.TypeEqual(m.Type, arrow.BinaryTypes.Binary) {
		return false
	}
	i := m.Metadata.FindKey("variant")
	return i >= 0 && m.Metadata.Values()[i] == "true"
}
