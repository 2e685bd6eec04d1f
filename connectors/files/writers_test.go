package files

import (
	"testing"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// The JSON file writer renders rows with Spark's JSON generator (the one to_json uses): nulls
// omitted, nested values, and no HTML escaping of <, > and &.
func TestAppendJSONRowIsSparksGenerator(t *testing.T) {
	schema := sqltypes.Schema{
		{Name: "s", Type: sqltypes.DataType{Kind: sqltypes.String}},
		{Name: "n", Type: sqltypes.DataType{Kind: sqltypes.Long}},
		{Name: "a", Type: sqltypes.DataType{Kind: sqltypes.Array, Elem: &sqltypes.DataType{Kind: sqltypes.Double}}},
	}
	got := string(appendJSONRow(nil, []any{"<a & b>", nil, []any{1.5, nil}}, schema, time.UTC, ""))
	if want := `{"s":"<a & b>","a":[1.5,null]}`; got != want {
		t.Fatalf("appendJSONRow = %s, want %s", got, want)
	}
}
