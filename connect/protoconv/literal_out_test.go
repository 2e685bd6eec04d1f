package protoconv_test

import (
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/weirhq/weir/connect/protoconv"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestLiteralToProtoRoundTrip checks that LiteralToProto's literals read back (Literal) as the
// same value and type, nested ones included.
func TestLiteralToProtoRoundTrip(t *testing.T) {
	dec := sqltypes.DecimalType(10, 2)
	arr := sqltypes.ArrayType(sqltypes.StringType, true)
	st := sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.LongType, Nullable: true}, sqltypes.Field{Name: "b", Type: arr, Nullable: true})
	mp := sqltypes.MapType(sqltypes.StringType, sqltypes.DoubleType, true)
	cases := []struct {
		v any
		t sqltypes.DataType
	}{
		{int64(4), sqltypes.LongType},
		{int32(-3), sqltypes.IntegerType},
		{13.5, sqltypes.DoubleType},
		{"x", sqltypes.StringType},
		{true, sqltypes.BooleanType},
		{nil, sqltypes.LongType},
		{int32(19000), sqltypes.DateType},
		{int64(1_700_000_000_000_000), sqltypes.TimestampType},
		{decimal128.FromI64(12345), dec},
		{[]any{"a", nil, "c"}, arr},
		{[]any{int64(1), []any{"z"}}, st},
		{&sqltypes.MapValue{Keys: []any{"k"}, Values: []any{2.5}}, mp},
	}
	for _, c := range cases {
		lit, err := protoconv.LiteralToProto(c.v, c.t)
		if err != nil {
			t.Fatalf("%v %s: %v", c.v, c.t, err)
		}
		back, err := protoconv.Literal(lit)
		if err != nil {
			t.Fatalf("%v %s: reading back: %v", c.v, c.t, err)
		}
		if !reflect.DeepEqual(back.Value, c.v) || !reflect.DeepEqual(back.Type, c.t) {
			t.Errorf("round trip of %v (%s) gave %v (%s)", c.v, c.t, back.Value, back.Type)
		}
	}
	if _, err := protoconv.LiteralToProto("not a long", sqltypes.LongType); err == nil {
		t.Errorf("a value not of its type's Go form was accepted")
	}
}
