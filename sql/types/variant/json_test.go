package variant

import (
	"encoding/hex"
	"testing"
)

// TestParseJSONMatchesSpark compares ParseJSON's bytes with the value and metadata Apache Spark
// 4.2's server returned for the same parse_json call.
func TestParseJSONMatchesSpark(t *testing.T) {
	for _, c := range []struct{ json, value, meta string }{
		{`{"a":1,"b":[1,2.5,"x",null,true],"c":{"d":1e10}}`,
			"0203000102000216240c0103050002080a0b0c0c012001190000000578000402010300091c000000205fa00242",
			"0104000102030461626364"},
	} {
		v, m, err := ParseJSON(c.json)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(v) != c.value || hex.EncodeToString(m) != c.meta {
			t.Errorf("%s: value %x metadata %x, want %s %s", c.json, v, m, c.value, c.meta)
		}
		if err := Validate(v, m); err != nil {
			t.Errorf("%s: Validate: %v", c.json, err)
		}
	}
}

// TestPathAndDuplicates checks path parsing, walking and the duplicate key error.
func TestPathAndDuplicates(t *testing.T) {
	v, m, err := ParseJSON(`{"a":{"b":[10,{"c d":"x"}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := ParsePath(`$.a.b[1]['c d']`)
	if !ok {
		t.Fatal("path refused")
	}
	got, ok := New(v, m).Walk(p)
	if !ok || got.Type() != String || string(got.Bytes()) != "x" {
		t.Errorf("walk: %v %v", ok, got)
	}
	for _, bad := range []string{"a", "$.", "$[-1]", "$[x]", "$['a"} {
		if _, ok := ParsePath(bad); ok {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
	if _, _, err := ParseJSON(`{"a":1,"a":2}`); err == nil {
		t.Error("duplicate key accepted")
	}
	if _, _, err := ParseJSON(`{"a":`); err == nil {
		t.Error("truncated JSON accepted")
	}
	if err := Validate([]byte{0x02, 0x05}, []byte{0x01, 0x00, 0x00}); err == nil {
		t.Error("truncated object validated")
	}
}
