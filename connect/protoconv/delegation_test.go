package protoconv_test

import (
	"reflect"
	"testing"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// SQL fragments inside Connect messages go to package parser unchanged: protoconv must return
// exactly what the parser returns, result or error.

func sameOutcome(t *testing.T, what string, got, want any, gotErr, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s: error %v, parser error %v", what, gotErr, wantErr)
	}
	if gotErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Errorf("%s: error %q, parser error %q", what, gotErr, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %#v, parser gives %#v", what, got, want)
	}
}

func TestExpressionStringUsesSQLParser(t *testing.T) {
	for _, text := range []string{"a + 1", "id > 3", "count(*) AS n", "CASE WHEN x THEN 1 ELSE 2 END", "a +"} {
		got, err := protoconv.Expression(&pb.Expression{ExprType: &pb.Expression_ExpressionString_{
			ExpressionString: &pb.Expression_ExpressionString{Expression: text}}})
		want, wantErr := parser.ParseExpression(text)
		sameOutcome(t, text, got, want, err, wantErr)
	}
}

func TestUnparsedDataTypeUsesSQLParser(t *testing.T) {
	for _, text := range []string{"int", "decimal(10,2)", "array<struct<a:int,b:string>>", "map<string, bigint>", "nonsense<"} {
		got, err := protoconv.DataTypeFromProto(&pb.DataType{Kind: &pb.DataType_Unparsed_{
			Unparsed: &pb.DataType_Unparsed{DataTypeString: text}}})
		want, wantErr := parser.ParseDataType(text)
		sameOutcome(t, text, got, want, err, wantErr)
	}
}

func TestDDLSchemaUsesSQLParser(t *testing.T) {
	for _, text := range []string{"a INT, b STRING NOT NULL", "a:int,b:string", "x ARRAY<DOUBLE>", "a INT,"} {
		got, err := protoconv.ParseSchema(text)
		want, wantErr := parser.ParseTableSchema(text)
		sameOutcome(t, text, got, want, err, wantErr)

		schema := text
		rel, err := protoconv.Relation(&pb.Relation{RelType: &pb.Relation_LocalRelation{
			LocalRelation: &pb.LocalRelation{Schema: &schema}}})
		if wantErr != nil {
			if err == nil {
				t.Errorf("%s: LocalRelation accepted a schema the parser rejects", text)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if lr := rel.(*plan.LocalRelation); lr.Schema == nil || !reflect.DeepEqual(*lr.Schema, want) {
			t.Errorf("%s: LocalRelation schema %v, parser gives %v", text, lr.Schema, want)
		}
	}
}

func TestParseSchemaJSON(t *testing.T) {
	// What PySpark 4.2 sends for createDataFrame(..., schema=StructType([...])).
	js := `{"fields":[{"metadata":{},"name":"a","nullable":true,"type":"integer"},{"metadata":{"comment":"x"},"name":"b","nullable":false,"type":"string"},{"metadata":{},"name":"c","nullable":true,"type":{"containsNull":true,"elementType":"decimal(10,2)","type":"array"}},{"metadata":{},"name":"d","nullable":true,"type":{"keyType":"string","type":"map","valueContainsNull":false,"valueType":"double"}},{"metadata":{},"name":"e","nullable":true,"type":{"fields":[{"metadata":{},"name":"f","nullable":true,"type":"timestamp"},{"metadata":{},"name":"g","nullable":true,"type":"timestamp_ntz"}],"type":"struct"}},{"metadata":{},"name":"h","nullable":true,"type":"interval day to second"},{"metadata":{},"name":"i","nullable":true,"type":"interval year"},{"metadata":{},"name":"j","nullable":true,"type":"void"},{"metadata":{},"name":"r","nullable":true,"type":"char(3)"},{"metadata":{},"name":"s","nullable":true,"type":"varchar(5)"}],"type":"struct"}`
	got, err := protoconv.ParseSchema(js)
	if err != nil {
		t.Fatal(err)
	}
	want := sqltypes.Schema{
		{Name: "a", Type: sqltypes.IntegerType, Nullable: true},
		{Name: "b", Type: sqltypes.StringType, Nullable: false, Metadata: `{"comment":"x"}`},
		{Name: "c", Type: sqltypes.ArrayType(sqltypes.DecimalType(10, 2), true), Nullable: true},
		{Name: "d", Type: sqltypes.MapType(sqltypes.StringType, sqltypes.DoubleType, false), Nullable: true},
		{Name: "e", Type: sqltypes.StructType(
			sqltypes.Field{Name: "f", Type: sqltypes.TimestampType, Nullable: true},
			sqltypes.Field{Name: "g", Type: sqltypes.TimestampNTZType, Nullable: true}), Nullable: true},
		{Name: "h", Type: sqltypes.DayTimeIntervalType(0, 3), Nullable: true},
		{Name: "i", Type: sqltypes.YearMonthIntervalType(0, 0), Nullable: true},
		{Name: "j", Type: sqltypes.NullType, Nullable: true},
		{Name: "r", Type: sqltypes.StringType, Nullable: true},
		{Name: "s", Type: sqltypes.StringType, Nullable: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

func TestPlanIDMapping(t *testing.T) {
	for _, id := range []int64{0, 1, 41} {
		got := protoconv.PlanIDFromClient(&id)
		if got != id+1 {
			t.Errorf("PlanIDFromClient(%d) = %d", id, got)
		}
		back, ok := protoconv.ClientPlanID(got)
		if !ok || back != id {
			t.Errorf("ClientPlanID(%d) = %d, %t", got, back, ok)
		}
	}
	if got := protoconv.PlanIDFromClient(nil); got != 0 {
		t.Errorf("absent plan id = %d", got)
	}
	if _, ok := protoconv.ClientPlanID(0); ok {
		t.Error("plan id 0 has no client id")
	}
}
