package protoconv

import (
	"fmt"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// LiteralToProto converts a value of type t (sqltypes' Go value conventions) to a Spark
// Connect literal, as Spark's LiteralValueProtoConverter does for observed metrics: the
// literal carries its data_type, and nested literals (array elements, map keys and values,
// struct fields) also their deprecated element/key/value/struct types, which older clients read.
func LiteralToProto(v any, t sqltypes.DataType) (lit *pb.Expression_Literal, err error) {
	defer func() {
		if r := recover(); r != nil { // a value not of its type's Go form
			lit, err = nil, sparkerr.Internal("literal %v does not have the Go form of %s", v, t)
		}
	}()
	lit, err = literalToProto(v, t)
	if err == nil {
		lit.DataType = DataTypeToProto(t)
	}
	return lit, err
}

func literalToProto(v any, t sqltypes.DataType) (*pb.Expression_Literal, error) {
	if v == nil {
		return &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Null{Null: DataTypeToProto(t)}}, nil
	}
	l := &pb.Expression_Literal{}
	switch t.Kind {
	case sqltypes.Boolean:
		l.LiteralType = &pb.Expression_Literal_Boolean{Boolean: v.(bool)}
	case sqltypes.Byte:
		l.LiteralType = &pb.Expression_Literal_Byte{Byte: int32(v.(int8))}
	case sqltypes.Short:
		l.LiteralType = &pb.Expression_Literal_Short{Short: int32(v.(int16))}
	case sqltypes.Integer:
		l.LiteralType = &pb.Expression_Literal_Integer{Integer: v.(int32)}
	case sqltypes.Long:
		l.LiteralType = &pb.Expression_Literal_Long{Long: v.(int64)}
	case sqltypes.Float:
		l.LiteralType = &pb.Expression_Literal_Float{Float: v.(float32)}
	case sqltypes.Double:
		l.LiteralType = &pb.Expression_Literal_Double{Double: v.(float64)}
	case sqltypes.String:
		l.LiteralType = &pb.Expression_Literal_String_{String_: v.(string)}
	case sqltypes.Binary:
		l.LiteralType = &pb.Expression_Literal_Binary{Binary: append([]byte(nil), v.([]byte)...)}
	case sqltypes.Date:
		l.LiteralType = &pb.Expression_Literal_Date{Date: v.(int32)}
	case sqltypes.Timestamp:
		l.LiteralType = &pb.Expression_Literal_Timestamp{Timestamp: v.(int64)}
	case sqltypes.TimestampNTZ:
		l.LiteralType = &pb.Expression_Literal_TimestampNtz{TimestampNtz: v.(int64)}
	case sqltypes.Time:
		p := t.Precision
		l.LiteralType = &pb.Expression_Literal_Time_{Time: &pb.Expression_Literal_Time{Nano: v.(int64), Precision: &p}}
	case sqltypes.DayTimeInterval:
		l.LiteralType = &pb.Expression_Literal_DayTimeInterval{DayTimeInterval: v.(int64)}
	case sqltypes.YearMonthInterval:
		l.LiteralType = &pb.Expression_Literal_YearMonthInterval{YearMonthInterval: v.(int32)}
	case sqltypes.CalendarInterval:
		c := v.(sqltypes.CalendarIntervalValue)
		l.LiteralType = &pb.Expression_Literal_CalendarInterval_{CalendarInterval: &pb.Expression_Literal_CalendarInterval{
			Months: c.Months, Days: c.Days, Microseconds: c.Micros}}
	case sqltypes.Decimal:
		p, s := t.Precision, t.Scale
		l.LiteralType = &pb.Expression_Literal_Decimal_{Decimal: &pb.Expression_Literal_Decimal{
			Value: v.(sqltypes.Decimal128).ToString(s), Precision: &p, Scale: &s}}
	case sqltypes.Array:
		elems, err := literalsToProto(v.([]any), func(int) sqltypes.DataType { return *t.Elem })
		if err != nil {
			return nil, err
		}
		l.LiteralType = &pb.Expression_Literal_Array_{Array: &pb.Expression_Literal_Array{
			ElementType: DataTypeToProto(*t.Elem), Elements: elems}}
	case sqltypes.Map:
		m := v.(*sqltypes.MapValue)
		keys, err := literalsToProto(m.Keys, func(int) sqltypes.DataType { return *t.Key })
		if err != nil {
			return nil, err
		}
		vals, err := literalsToProto(m.Values, func(int) sqltypes.DataType { return *t.Value })
		if err != nil {
			return nil, err
		}
		l.LiteralType = &pb.Expression_Literal_Map_{Map: &pb.Expression_Literal_Map{
			KeyType: DataTypeToProto(*t.Key), ValueType: DataTypeToProto(*t.Value), Keys: keys, Values: vals}}
	case sqltypes.Struct:
		fields := v.([]any)
		if len(fields) != len(t.Fields) {
			return nil, sparkerr.Internal("struct literal has %d fields, its type %d", len(fields), len(t.Fields))
		}
		elems, err := literalsToProto(fields, func(i int) sqltypes.DataType { return t.Fields[i].Type })
		if err != nil {
			return nil, err
		}
		l.LiteralType = &pb.Expression_Literal_Struct_{Struct: &pb.Expression_Literal_Struct{
			StructType: DataTypeToProto(t), Elements: elems}}
	default:
		return nil, sparkerr.Unsupported("literal of type %s is not supported", t)
	}
	return l, nil
}

func literalsToProto(vs []any, typeOf func(int) sqltypes.DataType) ([]*pb.Expression_Literal, error) {
	out := make([]*pb.Expression_Literal, len(vs))
	for i, v := range vs {
		l, err := literalToProto(v, typeOf(i))
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = l
	}
	return out, nil
}
