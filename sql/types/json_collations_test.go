package sqltypes

import "testing"

// TestJSONCollations reads and writes collated strings as Spark 4.2's schema JSON does
// (captured from PySpark's StructType.json() of Spark's schemas).
func TestJSONCollations(t *testing.T) {
	for _, spark := range []string{
		`{"type":"struct","fields":[{"name":"s","type":"string","nullable":true,"metadata":{"__COLLATIONS":{"s":"spark.UTF8_LCASE"}}}]}`,
		`{"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"string","containsNull":true},"nullable":true,"metadata":{"__COLLATIONS":{"a.element":"icu.UNICODE_CI"}}}]}`,
	} {
		typ, err := ParseJSONType(spark)
		if err != nil {
			t.Fatal(err)
		}
		f := typ.Fields[0]
		c := f.Type.StringCollation
		if f.Type.Kind == Array {
			c = f.Type.Elem.StringCollation
		}
		if c != "UTF8_LCASE" && c != "UNICODE_CI" || f.Metadata != "" {
			t.Errorf("%s: read as %s with metadata %q", spark, f.Type, f.Metadata)
		}
		if got := JSONType(typ); got != spark {
			t.Errorf("wrote %s, Spark %s", got, spark)
		}
	}
}
