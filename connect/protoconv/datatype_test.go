package protoconv_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// everyType lists one type of every kind sqltypes has, nested ones included.
func everyType() []sqltypes.DataType {
	inner := sqltypes.StructType(
		sqltypes.Field{Name: "x", Type: sqltypes.IntegerType, Nullable: false, Metadata: `{"comment":"c"}`},
		sqltypes.Field{Name: "y.z", Type: sqltypes.ArrayType(sqltypes.StringType, false), Nullable: true},
	)
	return []sqltypes.DataType{
		sqltypes.NullType, sqltypes.BooleanType, sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType,
		sqltypes.LongType, sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DecimalType(10, 0),
		sqltypes.DecimalType(38, 38), sqltypes.DecimalType(1, 0), sqltypes.StringType, sqltypes.BinaryType,
		sqltypes.DateType, sqltypes.TimestampType, sqltypes.TimestampNTZType,
		sqltypes.DayTimeIntervalType(0, 3), sqltypes.DayTimeIntervalType(1, 1), sqltypes.DayTimeIntervalType(2, 3),
		sqltypes.YearMonthIntervalType(0, 1), sqltypes.YearMonthIntervalType(0, 0), sqltypes.YearMonthIntervalType(1, 1),
		sqltypes.ArrayType(sqltypes.LongType, true), sqltypes.ArrayType(sqltypes.ArrayType(sqltypes.DateType, false), true),
		sqltypes.MapType(sqltypes.StringType, sqltypes.DoubleType, false),
		sqltypes.MapType(sqltypes.IntegerType, inner, true),
		inner,
		sqltypes.StructType(),
		sqltypes.StructType(sqltypes.Field{Name: "s", Type: inner, Nullable: true},
			sqltypes.Field{Name: "m", Type: sqltypes.MapType(sqltypes.DateType, sqltypes.ArrayType(inner, true), true)}),
	}
}

// sameMetadata compares field metadata recursively (DataType.Equal ignores it).
func sameMetadata(t *testing.T, a, b sqltypes.DataType) {
	t.Helper()
	switch a.Kind {
	case sqltypes.Struct:
		for i := range a.Fields {
			if a.Fields[i].Metadata != b.Fields[i].Metadata {
				t.Errorf("field %s metadata %q, round trip %q", a.Fields[i].Name, a.Fields[i].Metadata, b.Fields[i].Metadata)
			}
			sameMetadata(t, a.Fields[i].Type, b.Fields[i].Type)
		}
	case sqltypes.Array:
		sameMetadata(t, *a.Elem, *b.Elem)
	case sqltypes.Map:
		sameMetadata(t, *a.Key, *b.Key)
		sameMetadata(t, *a.Value, *b.Value)
	}
}

func TestDataTypeProtoRoundTrip(t *testing.T) {
	for _, dt := range everyType() {
		p := protoconv.DataTypeToProto(dt)
		// The proto must survive the wire.
		wire, err := proto.Marshal(p)
		if err != nil {
			t.Fatalf("%s: marshal: %v", dt, err)
		}
		var decoded pb.DataType
		if err := proto.Unmarshal(wire, &decoded); err != nil {
			t.Fatalf("%s: unmarshal: %v", dt, err)
		}
		back, err := protoconv.DataTypeFromProto(&decoded)
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		if !back.Equal(dt) {
			t.Errorf("proto round trip of %s gave %s", dt, back)
		}
		sameMetadata(t, dt, back)
	}
}

func TestDataTypeJSONRoundTrip(t *testing.T) {
	for _, dt := range everyType() {
		js := protoconv.JSONType(dt)
		back, err := protoconv.ParseJSONType(js)
		if err != nil {
			t.Fatalf("%s: %s: %v", dt, js, err)
		}
		if !back.Equal(dt) {
			t.Errorf("JSON round trip of %s (%s) gave %s", dt, js, back)
		}
		sameMetadata(t, dt, back)
	}
}

func TestDataTypeToProtoShape(t *testing.T) {
	p := protoconv.DataTypeToProto(sqltypes.DecimalType(12, 3))
	if d := p.GetDecimal(); d == nil || d.Precision == nil || d.Scale == nil || d.GetPrecision() != 12 || d.GetScale() != 3 || d.GetTypeVariationReference() != 0 {
		t.Errorf("decimal proto = %v", p)
	}
	p = protoconv.DataTypeToProto(sqltypes.DayTimeIntervalType(1, 3))
	if d := p.GetDayTimeInterval(); d == nil || d.GetStartField() != 1 || d.GetEndField() != 3 {
		t.Errorf("interval proto = %v", p)
	}
	p = protoconv.DataTypeToProto(sqltypes.ArrayType(sqltypes.IntegerType, false))
	if a := p.GetArray(); a == nil || a.GetContainsNull() || a.GetElementType().GetInteger() == nil {
		t.Errorf("array proto = %v", p)
	}
}

func TestSchemaToProto(t *testing.T) {
	s := sqltypes.Schema{
		{Name: "id", Type: sqltypes.LongType, Nullable: false},
		{Name: "tags", Type: sqltypes.MapType(sqltypes.StringType, sqltypes.StringType, true), Nullable: true, Metadata: `{"k":1}`},
		{Name: "plain", Type: sqltypes.StringType, Nullable: true, Metadata: "{}"},
	}
	p := protoconv.SchemaToProto(s)
	fields := p.GetStruct().GetFields()
	if len(fields) != 3 {
		t.Fatalf("fields = %v", fields)
	}
	if fields[0].GetName() != "id" || fields[0].GetNullable() || fields[0].GetDataType().GetLong() == nil || fields[0].Metadata != nil {
		t.Errorf("field 0 = %v", fields[0])
	}
	if fields[1].GetMetadata() != `{"k":1}` || !fields[1].GetNullable() || fields[1].GetDataType().GetMap() == nil {
		t.Errorf("field 1 = %v", fields[1])
	}
	if fields[2].Metadata != nil {
		t.Errorf("empty metadata must not be sent, got %q", fields[2].GetMetadata())
	}
	back, err := protoconv.DataTypeFromProto(p)
	if err != nil || !back.Equal(s.AsStruct()) {
		t.Errorf("schema round trip = %s, %v", back, err)
	}
}
