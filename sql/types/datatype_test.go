package sqltypes

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestStringsAndArrowRoundTrip(t *testing.T) {
	nested := StructType(
		Field{Name: "a", Type: IntegerType, Nullable: false},
		Field{Name: "tags", Type: ArrayType(StringType, true), Nullable: true},
		Field{Name: "m", Type: MapType(StringType, DecimalType(10, 2), true), Nullable: true},
	)
	for _, c := range []struct {
		t      DataType
		simple string
	}{
		{LongType, "bigint"},
		{DecimalType(38, 18), "decimal(38,18)"},
		{TimestampType, "timestamp"},
		{TimestampNTZType, "timestamp_ntz"},
		{DateType, "date"},
		{BinaryType, "binary"},
		{DayTimeIntervalType(0, 3), "interval day to second"},
		{YearMonthIntervalType(0, 1), "interval year to month"},
		{TimeType(6), "time(6)"},
		{nested, "struct<a:int,tags:array<string>,m:map<string,decimal(10,2)>>"},
	} {
		if got := c.t.String(); got != c.simple {
			t.Errorf("String() = %q, want %q", got, c.simple)
		}
		back, err := FromArrow(ToArrow(c.t, "UTC"))
		if err != nil {
			t.Fatalf("%s: %v", c.simple, err)
		}
		if !back.Equal(c.t) {
			t.Errorf("%s: arrow round trip gave %s", c.simple, back)
		}
	}
	ts := ToArrow(TimestampType, "Europe/Paris").(*arrow.TimestampType)
	if ts.Unit != arrow.Microsecond || ts.TimeZone != "Europe/Paris" {
		t.Errorf("timestamp maps to %s", ts)
	}
	if ntz := ToArrow(TimestampNTZType, "Europe/Paris").(*arrow.TimestampType); ntz.TimeZone != "" {
		t.Errorf("timestamp_ntz must carry no zone, got %s", ntz)
	}
}

func TestTreeString(t *testing.T) {
	s := Schema{
		{Name: "id", Type: LongType},
		{Name: "s", Type: StructType(Field{Name: "x", Type: ArrayType(IntegerType, false), Nullable: true}), Nullable: true},
	}
	want := "root\n" +
		" |-- id: long (nullable = false)\n" +
		" |-- s: struct (nullable = true)\n" +
		" |    |-- x: array (nullable = true)\n" +
		" |    |    |-- element: integer (containsNull = false)\n"
	if got := s.TreeString(); got != want {
		t.Errorf("TreeString:\n%s\nwant:\n%s", got, want)
	}
}
