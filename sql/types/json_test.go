package sqltypes

import "testing"

func TestJSONTypeRoundTrip(t *testing.T) {
	for _, want := range []DataType{
		IntegerType, DecimalType(12, 3), DayTimeIntervalType(1, 3), TimeType(3), TimeType(6),
		StructType(Field{Name: "a", Type: ArrayType(LongType, true), Nullable: true},
			Field{Name: "m", Type: MapType(StringType, StructType(Field{Name: "x", Type: DateType}), false)}),
	} {
		text := JSONType(want)
		got, err := ParseJSONType(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !got.Equal(want) {
			t.Fatalf("%s: got %s, want %s", text, got, want)
		}
	}
	if got := JSONType(StructType(Field{Name: "a", Type: IntegerType, Nullable: true})); got !=
		`{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}}]}` {
		t.Fatalf("JSONType = %s", got)
	}
	if _, err := ParseJSONType(`"decimal(40,2)"`); err == nil {
		t.Fatal("decimal(40,2) parsed")
	}
	if _, err := ParseJSONType(`"time(7)"`); err == nil {
		t.Fatal("time(7) parsed")
	}
}
