package sqltypes

import (
	"fmt"
	"sort"
	"strings"
)

// Kind is a Spark type's kind.
type Kind uint8

// Kinds, in Spark's names.
const (
	Null Kind = iota
	Boolean
	Byte
	Short
	Integer
	Long
	Float
	Double
	Decimal
	String
	Binary
	Date
	Timestamp
	TimestampNTZ
	DayTimeInterval
	YearMonthInterval
	Array
	Map
	Struct
	// Variant is Spark's VARIANT (semi-structured values, package sql/types/variant).
	Variant
	// Geometry and Geography are Spark 4.1's spatial types: WKB values with an SRID (geo.go).
	Geometry
	Geography
	// Time is Spark's TIME(p): a time of day without a date or zone, p (Precision, 0..6)
	// fractional digits of seconds.
	Time
	// CalendarInterval is Spark's CalendarIntervalType ("interval"): months, days and
	// microseconds apart (Go value CalendarIntervalValue). Spark neither orders nor stores it;
	// make_interval builds it and it adds to dates and timestamps.
	CalendarInterval
)

// DataType is a Spark data type. The zero value is the null (void) type.
type DataType struct {
	Kind Kind
	// Precision and Scale of a decimal.
	Precision, Scale int32
	// Elem is the element type of an array; ElemNullable whether it contains null.
	Elem         *DataType
	ElemNullable bool
	// Key and Value of a map; ValueNullable whether values may be null.
	Key, Value    *DataType
	ValueNullable bool
	// Fields of a struct.
	Fields []Field
	// StartField and EndField of an interval (Spark's DayTimeIntervalType fields 0..3 =
	// DAY, HOUR, MINUTE, SECOND; YearMonthIntervalType 0..1 = YEAR, MONTH).
	StartField, EndField int8
	// StringCollation is a string's collation by its canonical name (package sql/collation:
	// "UTF8_LCASE", "UNICODE_CI", "de_CI_AI"); empty means UTF8_BINARY.
	StringCollation string
	// SRID of a geometry or geography type; MixedSRID for GEOMETRY(ANY) / GEOGRAPHY(ANY).
	SRID int32
}

// Field is a named, typed column or struct field.
type Field struct {
	Name     string
	Type     DataType
	Nullable bool
	// Metadata is the field's JSON metadata ("" or "{}" means none).
	Metadata string
}

// Simple types as values.
var (
	NullType         = DataType{Kind: Null}
	BooleanType      = DataType{Kind: Boolean}
	ByteType         = DataType{Kind: Byte}
	ShortType        = DataType{Kind: Short}
	IntegerType      = DataType{Kind: Integer}
	LongType         = DataType{Kind: Long}
	FloatType        = DataType{Kind: Float}
	DoubleType       = DataType{Kind: Double}
	StringType       = DataType{Kind: String}
	BinaryType       = DataType{Kind: Binary}
	DateType         = DataType{Kind: Date}
	TimestampType    = DataType{Kind: Timestamp}
	TimestampNTZType = DataType{Kind: TimestampNTZ}
	VariantType      = DataType{Kind: Variant}
	// CalendarIntervalType is Spark's CalendarIntervalType.
	CalendarIntervalType = DataType{Kind: CalendarInterval}
)

// MaxTimePrecision is TIME's largest (and default) precision: microseconds.
const MaxTimePrecision = 6

// TimeType returns time(p).
func TimeType(p int32) DataType { return DataType{Kind: Time, Precision: p} }

// CalendarIntervalValue is the Go value of a CALENDAR INTERVAL (Spark's CalendarInterval).
type CalendarIntervalValue struct {
	Months, Days int32
	Micros       int64
}

// DecimalType returns decimal(p,s).
func DecimalType(p, s int32) DataType { return DataType{Kind: Decimal, Precision: p, Scale: s} }

// ArrayType returns array<elem>.
func ArrayType(elem DataType, containsNull bool) DataType {
	return DataType{Kind: Array, Elem: &elem, ElemNullable: containsNull}
}

// MapType returns map<k,v>.
func MapType(k, v DataType, valueContainsNull bool) DataType {
	return DataType{Kind: Map, Key: &k, Value: &v, ValueNullable: valueContainsNull}
}

// StructType returns struct<fields>.
func StructType(fields ...Field) DataType { return DataType{Kind: Struct, Fields: fields} }

// DayTimeIntervalType returns interval day to second by default fields.
func DayTimeIntervalType(start, end int8) DataType {
	return DataType{Kind: DayTimeInterval, StartField: start, EndField: end}
}

// YearMonthIntervalType returns interval year to month by default fields.
func YearMonthIntervalType(start, end int8) DataType {
	return DataType{Kind: YearMonthInterval, StartField: start, EndField: end}
}

// IsNumeric reports whether t is a numeric type (byte…double, decimal).
func (t DataType) IsNumeric() bool {
	switch t.Kind {
	case Byte, Short, Integer, Long, Float, Double, Decimal:
		return true
	}
	return false
}

// IsIntegral reports whether t is byte, short, int or long.
func (t DataType) IsIntegral() bool {
	switch t.Kind {
	case Byte, Short, Integer, Long:
		return true
	}
	return false
}

// IsFractional reports whether t is float or double.
func (t DataType) IsFractional() bool { return t.Kind == Float || t.Kind == Double }

// Equal reports structural equality (field names, nullability and nested types included).
func (t DataType) Equal(o DataType) bool {
	if t.Kind != o.Kind {
		return false
	}
	switch t.Kind {
	case Decimal:
		return t.Precision == o.Precision && t.Scale == o.Scale
	case Time:
		return t.Precision == o.Precision
	case Array:
		return t.ElemNullable == o.ElemNullable && t.Elem.Equal(*o.Elem)
	case Map:
		return t.ValueNullable == o.ValueNullable && t.Key.Equal(*o.Key) && t.Value.Equal(*o.Value)
	case Struct:
		if len(t.Fields) != len(o.Fields) {
			return false
		}
		for i := range t.Fields {
			a, b := t.Fields[i], o.Fields[i]
			if a.Name != b.Name || a.Nullable != b.Nullable || !a.Type.Equal(b.Type) {
				return false
			}
		}
		return true
	case DayTimeInterval, YearMonthInterval:
		return t.StartField == o.StartField && t.EndField == o.EndField
	case Geometry, Geography:
		return t.SRID == o.SRID
	}
	return true
}

// EqualIgnoreNullable is Equal without comparing nullability flags.
func (t DataType) EqualIgnoreNullable(o DataType) bool {
	if t.Kind != o.Kind {
		return false
	}
	switch t.Kind {
	case Array:
		return t.Elem.EqualIgnoreNullable(*o.Elem)
	case Map:
		return t.Key.EqualIgnoreNullable(*o.Key) && t.Value.EqualIgnoreNullable(*o.Value)
	case Struct:
		if len(t.Fields) != len(o.Fields) {
			return false
		}
		for i := range t.Fields {
			if !strings.EqualFold(t.Fields[i].Name, o.Fields[i].Name) || !t.Fields[i].Type.EqualIgnoreNullable(o.Fields[i].Type) {
				return false
			}
		}
		return true
	}
	return t.Equal(o)
}

var intervalDT = []string{"day", "hour", "minute", "second"}
var intervalYM = []string{"year", "month"}

func intervalString(names []string, s, e int8) string {
	if s == e {
		return "interval " + names[s]
	}
	return "interval " + names[s] + " to " + names[e]
}

// String is Spark's simpleString: "bigint", "decimal(10,2)", "array<int>", "struct<a:int>".
func (t DataType) String() string {
	switch t.Kind {
	case Null:
		return "void"
	case Boolean:
		return "boolean"
	case Byte:
		return "tinyint"
	case Short:
		return "smallint"
	case Integer:
		return "int"
	case Long:
		return "bigint"
	case Float:
		return "float"
	case Double:
		return "double"
	case Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case String:
		if t.StringCollation != "" {
			return "string collate " + t.StringCollation
		}
		return "string"
	case Binary:
		return "binary"
	case Date:
		return "date"
	case Timestamp:
		return "timestamp"
	case TimestampNTZ:
		return "timestamp_ntz"
	case DayTimeInterval:
		return intervalString(intervalDT, t.StartField, t.EndField)
	case YearMonthInterval:
		return intervalString(intervalYM, t.StartField, t.EndField)
	case Array:
		return "array<" + t.Elem.String() + ">"
	case Map:
		return "map<" + t.Key.String() + "," + t.Value.String() + ">"
	case Struct:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.Name + ":" + f.Type.String()
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case Variant:
		return "variant"
	case Geometry, Geography:
		return geoString(t)
	case Time:
		return fmt.Sprintf("time(%d)", t.Precision)
	case CalendarInterval:
		return "interval"
	}
	return fmt.Sprintf("unknown(%d)", t.Kind)
}

// TypeName is Spark's typeName as used in printSchema / DataType.typeName ("integer", "long").
func (t DataType) TypeName() string {
	switch t.Kind {
	case Null:
		return "void"
	case Byte:
		return "byte"
	case Short:
		return "short"
	case Integer:
		return "integer"
	case Long:
		return "long"
	case Decimal:
		return t.String()
	case Array:
		return "array"
	case Map:
		return "map"
	case Struct:
		return "struct"
	case Geometry, Geography:
		return geoName(t.Kind)
	}
	return t.String()
}

// SQL is the type as Spark renders it inside SQL expressions, e.g. "BIGINT", "ARRAY<INT>".
func (t DataType) SQL() string {
	switch t.Kind {
	case Struct:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = "`" + f.Name + "`: " + f.Type.SQL()
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case Array:
		return "ARRAY<" + t.Elem.SQL() + ">"
	case Map:
		return "MAP<" + t.Key.SQL() + ", " + t.Value.SQL() + ">"
	case String:
		if t.StringCollation != "" {
			return "STRING COLLATE " + t.StringCollation
		}
	}
	return strings.ToUpper(t.String())
}

// Schema is an ordered list of fields (Spark's StructType at top level).
type Schema []Field

// AsStruct returns the schema as a struct type.
func (s Schema) AsStruct() DataType { return StructType(s...) }

// Names returns the field names.
func (s Schema) Names() []string {
	n := make([]string, len(s))
	for i, f := range s {
		n[i] = f.Name
	}
	return n
}

// TreeString renders the schema like Spark's printSchema / treeString.
func (s Schema) TreeString() string {
	var b strings.Builder
	b.WriteString("root\n")
	for _, f := range s {
		writeTree(&b, " |-- ", f.Name, f.Type, f.Nullable)
	}
	return b.String()
}

func writeTree(b *strings.Builder, prefix, name string, t DataType, nullable bool) {
	fmt.Fprintf(b, "%s%s: %s (nullable = %t)\n", prefix, name, t.TypeName(), nullable)
	writeNested(b, prefix, t)
}

func nestedPrefix(prefix string) string {
	// Spark: " |-- a" → children " |    |-- b".
	return strings.TrimSuffix(prefix, "-- ") + "    |-- "
}

func writeNested(b *strings.Builder, prefix string, t DataType) {
	np := nestedPrefix(prefix)
	switch t.Kind {
	case Struct:
		for _, f := range t.Fields {
			writeTree(b, np, f.Name, f.Type, f.Nullable)
		}
	case Array:
		fmt.Fprintf(b, "%selement: %s (containsNull = %t)\n", np, t.Elem.TypeName(), t.ElemNullable)
		writeNested(b, np, *t.Elem)
	case Map:
		fmt.Fprintf(b, "%skey: %s\n", np, t.Key.TypeName())
		writeNested(b, np, *t.Key)
		fmt.Fprintf(b, "%svalue: %s (valueContainsNull = %t)\n", np, t.Value.TypeName(), t.ValueNullable)
		writeNested(b, np, *t.Value)
	}
}

// MergeStructsByName is the struct of the fields of structs a and b by name (sorted, all
// nullable), a field in both typed merge(its type in a, its type in b): the struct case of
// Spark's JSON schema inference (JsonInferSchema.compatibleType).
func MergeStructsByName(a, b DataType, merge func(x, y DataType) DataType) DataType {
	byName := map[string]DataType{}
	for _, f := range a.Fields {
		byName[f.Name] = f.Type
	}
	for _, f := range b.Fields {
		if t, ok := byName[f.Name]; ok {
			byName[f.Name] = merge(t, f.Type)
		} else {
			byName[f.Name] = f.Type
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	fields := make([]Field, len(names))
	for i, n := range names {
		fields[i] = Field{Name: n, Type: byName[n], Nullable: true}
	}
	return StructType(fields...)
}

// ContainsKind reports whether t is of kind k or nests a type of kind k (in an array, map or
// struct).
func ContainsKind(t DataType, k Kind) bool {
	switch {
	case t.Kind == k:
		return true
	case t.Kind == Array:
		return ContainsKind(*t.Elem, k)
	case t.Kind == Map:
		return ContainsKind(*t.Key, k) || ContainsKind(*t.Value, k)
	case t.Kind == Struct:
		for _, f := range t.Fields {
			if ContainsKind(f.Type, k) {
				return true
			}
		}
	}
	return false
}
