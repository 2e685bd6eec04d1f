package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/collation"
	"github.com/weirhq/weir/sql/parser"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Decimal limits, as Spark's DecimalType.
const (
	maxDecimalPrecision     = 38
	defaultDecimalPrecision = 10
)

// Interval field ranges (sqltypes.DataType.StartField/EndField).
const (
	intervalYear, intervalMonth                               = 0, 1
	intervalDay, intervalHour, intervalMinute, intervalSecond = 0, 1, 2, 3
)

// DataTypeFromProto converts a Spark Connect DataType. char(n) and varchar(n) become string (as
// Spark does when reading them outside a table schema); unparsed type strings go through
// parser.ParseDataType. Calendar intervals, geometry/geography and user-defined types are
// unsupported.
func DataTypeFromProto(t *pb.DataType) (sqltypes.DataType, error) {
	if t == nil || t.Kind == nil {
		return sqltypes.DataType{}, invalidPlan("DataType is missing kind")
	}
	switch k := t.Kind.(type) {
	case *pb.DataType_Null:
		return sqltypes.NullType, nil
	case *pb.DataType_Binary_:
		return sqltypes.BinaryType, nil
	case *pb.DataType_Boolean_:
		return sqltypes.BooleanType, nil
	case *pb.DataType_Byte_:
		return sqltypes.ByteType, nil
	case *pb.DataType_Short_:
		return sqltypes.ShortType, nil
	case *pb.DataType_Integer_:
		return sqltypes.IntegerType, nil
	case *pb.DataType_Long_:
		return sqltypes.LongType, nil
	case *pb.DataType_Float_:
		return sqltypes.FloatType, nil
	case *pb.DataType_Double_:
		return sqltypes.DoubleType, nil
	case *pb.DataType_Decimal_:
		d := k.Decimal
		if d == nil {
			d = &pb.DataType_Decimal{}
		}
		p, s := int32(defaultDecimalPrecision), int32(0)
		if d.Precision != nil {
			p = d.GetPrecision()
		}
		if d.Scale != nil {
			s = d.GetScale()
		}
		return decimalType(p, s)
	case *pb.DataType_String_:
		st := sqltypes.StringType
		if name := k.String_.GetCollation(); name != "" {
			c, err := collation.Lookup(name)
			if err != nil {
				return sqltypes.DataType{}, err
			}
			st.StringCollation = c.TypeName()
		}
		return st, nil
	case *pb.DataType_Char_, *pb.DataType_VarChar_:
		return sqltypes.StringType, nil
	case *pb.DataType_Date_:
		return sqltypes.DateType, nil
	case *pb.DataType_Timestamp_:
		return sqltypes.TimestampType, nil
	case *pb.DataType_TimestampNtz:
		return sqltypes.TimestampNTZType, nil
	case *pb.DataType_Time_:
		return timeType(k.Time != nil && k.Time.Precision != nil, k.Time.GetPrecision())
	case *pb.DataType_YearMonthInterval_:
		ym := k.YearMonthInterval
		if ym == nil {
			ym = &pb.DataType_YearMonthInterval{}
		}
		return intervalType(sqltypes.YearMonthInterval, ym.StartField, ym.EndField, intervalYear, intervalMonth)
	case *pb.DataType_DayTimeInterval_:
		dt := k.DayTimeInterval
		if dt == nil {
			dt = &pb.DataType_DayTimeInterval{}
		}
		return intervalType(sqltypes.DayTimeInterval, dt.StartField, dt.EndField, intervalDay, intervalSecond)
	case *pb.DataType_Array_:
		if k.Array.GetElementType() == nil {
			return sqltypes.DataType{}, invalidPlan("array DataType is missing element_type")
		}
		elem, err := DataTypeFromProto(k.Array.GetElementType())
		if err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.ArrayType(elem, k.Array.GetContainsNull()), nil
	case *pb.DataType_Map_:
		if k.Map.GetKeyType() == nil || k.Map.GetValueType() == nil {
			return sqltypes.DataType{}, invalidPlan("map DataType is missing key_type or value_type")
		}
		kt, err := DataTypeFromProto(k.Map.GetKeyType())
		if err != nil {
			return sqltypes.DataType{}, err
		}
		vt, err := DataTypeFromProto(k.Map.GetValueType())
		if err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.MapType(kt, vt, k.Map.GetValueContainsNull()), nil
	case *pb.DataType_Struct_:
		fields := make([]sqltypes.Field, 0, len(k.Struct.GetFields()))
		for i, f := range k.Struct.GetFields() {
			if f.GetDataType() == nil {
				return sqltypes.DataType{}, invalidPlan("struct field %d (%q) is missing data_type", i, f.GetName())
			}
			ft, err := DataTypeFromProto(f.GetDataType())
			if err != nil {
				return sqltypes.DataType{}, err
			}
			fields = append(fields, sqltypes.Field{Name: f.GetName(), Type: ft, Nullable: f.GetNullable(), Metadata: f.GetMetadata()})
		}
		return sqltypes.StructType(fields...), nil
	case *pb.DataType_Variant_:
		return sqltypes.VariantType, nil
	case *pb.DataType_Geometry_:
		return spatialFromProto(sqltypes.Geometry, k.Geometry.GetSrid())
	case *pb.DataType_Geography_:
		return spatialFromProto(sqltypes.Geography, k.Geography.GetSrid())
	case *pb.DataType_CalendarInterval_:
		return sqltypes.CalendarIntervalType, nil
	case *pb.DataType_Unparsed_:
		return parser.ParseDataType(k.Unparsed.GetDataTypeString())
	case *pb.DataType_Udt:
		return sqltypes.DataType{}, sparkerr.Unsupported("user-defined type %s is not supported", udtName(k.Udt))
	}
	return sqltypes.DataType{}, sparkerr.Unsupported("data type %s is not supported", oneofCase(t, "kind"))
}

// spatialFromProto is a GEOMETRY or GEOGRAPHY type from its proto SRID (-1 for ANY), refusing
// an SRID Spark does not support as Spark's GeometryType/GeographyType do.
func spatialFromProto(k sqltypes.Kind, srid int32) (sqltypes.DataType, error) {
	if srid != sqltypes.MixedSRID && !sqltypes.ValidSRID(k, srid) {
		return sqltypes.DataType{}, sqltypes.InvalidSRID(srid)
	}
	return sqltypes.DataType{Kind: k, SRID: srid}, nil
}

func udtName(u *pb.DataType_UDT) string {
	if c := u.GetPythonClass(); c != "" {
		return c
	}
	if c := u.GetJvmClass(); c != "" {
		return c
	}
	return u.GetType()
}

// timeType is TIME(p), p 6 when not given; a p outside 0..6 is Spark's
// UNSUPPORTED_TIME_PRECISION.
func timeType(given bool, p int32) (sqltypes.DataType, error) {
	if !given {
		return sqltypes.TimeType(sqltypes.MaxTimePrecision), nil
	}
	if p < 0 || p > sqltypes.MaxTimePrecision {
		return sqltypes.DataType{}, sparkerr.Analysis("UNSUPPORTED_TIME_PRECISION", "0A001",
			"The seconds precision %d of the TIME data type is out of the supported range [0, 6].", p).
			WithParams("precision", itoa(int64(p)))
	}
	return sqltypes.TimeType(p), nil
}

// decimalType validates a decimal's precision and scale like Spark's DecimalType.
func decimalType(p, s int32) (sqltypes.DataType, error) {
	if p > maxDecimalPrecision {
		return sqltypes.DataType{}, sparkerr.Analysis("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "22003",
			"Decimal precision %d exceeds max precision %d.", p, maxDecimalPrecision).
			WithParams("precision", itoa(int64(p)), "maxPrecision", itoa(maxDecimalPrecision))
	}
	if p < 1 || s < 0 || s > p {
		return sqltypes.DataType{}, invalidPlan("invalid decimal precision/scale (%d,%d)", p, s)
	}
	return sqltypes.DecimalType(p, s), nil
}

// intervalType builds an interval type from optional start/end fields: both absent is the
// full default range, only start is a single-field interval.
func intervalType(kind sqltypes.Kind, start, end *int32, lo, hi int8) (sqltypes.DataType, error) {
	s, e := lo, hi
	if start != nil {
		s = int8(*start)
		e = s
		if end != nil {
			e = int8(*end)
		}
		if *start < int32(lo) || *start > int32(hi) || (end != nil && (*end < int32(lo) || *end > int32(hi))) || e < s {
			return sqltypes.DataType{}, invalidPlan("invalid interval fields (%d, %d)", *start, derefInt32(end, *start))
		}
	}
	return sqltypes.DataType{Kind: kind, StartField: s, EndField: e}, nil
}

func derefInt32(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// DataTypeToProto converts a type to its Spark Connect form (type_variation_reference 0).
func DataTypeToProto(t sqltypes.DataType) *pb.DataType {
	switch t.Kind {
	case sqltypes.Null:
		return &pb.DataType{Kind: &pb.DataType_Null{Null: &pb.DataType_NULL{}}}
	case sqltypes.Boolean:
		return &pb.DataType{Kind: &pb.DataType_Boolean_{Boolean: &pb.DataType_Boolean{}}}
	case sqltypes.Byte:
		return &pb.DataType{Kind: &pb.DataType_Byte_{Byte: &pb.DataType_Byte{}}}
	case sqltypes.Short:
		return &pb.DataType{Kind: &pb.DataType_Short_{Short: &pb.DataType_Short{}}}
	case sqltypes.Integer:
		return &pb.DataType{Kind: &pb.DataType_Integer_{Integer: &pb.DataType_Integer{}}}
	case sqltypes.Long:
		return &pb.DataType{Kind: &pb.DataType_Long_{Long: &pb.DataType_Long{}}}
	case sqltypes.Float:
		return &pb.DataType{Kind: &pb.DataType_Float_{Float: &pb.DataType_Float{}}}
	case sqltypes.Double:
		return &pb.DataType{Kind: &pb.DataType_Double_{Double: &pb.DataType_Double{}}}
	case sqltypes.Decimal:
		p, s := t.Precision, t.Scale
		return &pb.DataType{Kind: &pb.DataType_Decimal_{Decimal: &pb.DataType_Decimal{Precision: &p, Scale: &s}}}
	case sqltypes.String:
		return &pb.DataType{Kind: &pb.DataType_String_{String_: &pb.DataType_String{Collation: t.StringCollation}}}
	case sqltypes.Binary:
		return &pb.DataType{Kind: &pb.DataType_Binary_{Binary: &pb.DataType_Binary{}}}
	case sqltypes.Date:
		return &pb.DataType{Kind: &pb.DataType_Date_{Date: &pb.DataType_Date{}}}
	case sqltypes.Timestamp:
		return &pb.DataType{Kind: &pb.DataType_Timestamp_{Timestamp: &pb.DataType_Timestamp{}}}
	case sqltypes.TimestampNTZ:
		return &pb.DataType{Kind: &pb.DataType_TimestampNtz{TimestampNtz: &pb.DataType_TimestampNTZ{}}}
	case sqltypes.Time:
		p := t.Precision
		return &pb.DataType{Kind: &pb.DataType_Time_{Time: &pb.DataType_Time{Precision: &p}}}
	case sqltypes.DayTimeInterval:
		s, e := int32(t.StartField), int32(t.EndField)
		return &pb.DataType{Kind: &pb.DataType_DayTimeInterval_{DayTimeInterval: &pb.DataType_DayTimeInterval{StartField: &s, EndField: &e}}}
	case sqltypes.YearMonthInterval:
		s, e := int32(t.StartField), int32(t.EndField)
		return &pb.DataType{Kind: &pb.DataType_YearMonthInterval_{YearMonthInterval: &pb.DataType_YearMonthInterval{StartField: &s, EndField: &e}}}
	case sqltypes.Array:
		return &pb.DataType{Kind: &pb.DataType_Array_{Array: &pb.DataType_Array{
			ElementType: DataTypeToProto(derefType(t.Elem)), ContainsNull: t.ElemNullable}}}
	case sqltypes.Map:
		return &pb.DataType{Kind: &pb.DataType_Map_{Map: &pb.DataType_Map{
			KeyType: DataTypeToProto(derefType(t.Key)), ValueType: DataTypeToProto(derefType(t.Value)),
			ValueContainsNull: t.ValueNullable}}}
	case sqltypes.Struct:
		return SchemaToProto(t.Fields)
	}
	switch t.Kind {
	case sqltypes.Variant:
		return &pb.DataType{Kind: &pb.DataType_Variant_{Variant: &pb.DataType_Variant{}}}
	case sqltypes.Geometry:
		return &pb.DataType{Kind: &pb.DataType_Geometry_{Geometry: &pb.DataType_Geometry{Srid: t.SRID}}}
	case sqltypes.Geography:
		return &pb.DataType{Kind: &pb.DataType_Geography_{Geography: &pb.DataType_Geography{Srid: t.SRID}}}
	case sqltypes.CalendarInterval:
		return &pb.DataType{Kind: &pb.DataType_CalendarInterval_{CalendarInterval: &pb.DataType_CalendarInterval{}}}
	}
	return &pb.DataType{Kind: &pb.DataType_Unparsed_{Unparsed: &pb.DataType_Unparsed{DataTypeString: t.String()}}}
}

func derefType(t *sqltypes.DataType) sqltypes.DataType {
	if t == nil {
		return sqltypes.NullType
	}
	return *t
}

// SchemaToProto converts a schema to a struct DataType. Field metadata is sent only when it is
// not empty, as Spark does.
func SchemaToProto(s sqltypes.Schema) *pb.DataType {
	fields := make([]*pb.DataType_StructField, len(s))
	for i, f := range s {
		sf := &pb.DataType_StructField{Name: f.Name, DataType: DataTypeToProto(f.Type), Nullable: f.Nullable}
		if f.Metadata != "" && f.Metadata != "{}" {
			md := f.Metadata
			sf.Metadata = &md
		}
		fields[i] = sf
	}
	return &pb.DataType{Kind: &pb.DataType_Struct_{Struct: &pb.DataType_Struct{Fields: fields}}}
}
