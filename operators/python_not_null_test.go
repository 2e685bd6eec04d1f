package operators

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCheckNotNull checks which nulls in a Python function's result break its declared NOT NULL
// fields: top-level, nested struct fields and list elements, but not those under a null parent.
func TestCheckNotNull(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	i64 := arrow.PrimitiveTypes.Int64
	structT := arrow.StructOf(arrow.Field{Name: "x", Type: i64, Nullable: false})
	listT := arrow.ListOfField(arrow.Field{Name: "element", Type: i64, Nullable: false})
	for _, c := range []struct {
		name  string
		field arrow.Field
		json  string
		want  string // "" when it passes
	}{
		{"nullable long", arrow.Field{Name: "a", Type: i64, Nullable: true}, `[1, null]`, ""},
		{"not null long", arrow.Field{Name: "a", Type: i64}, `[1, null]`, "row 1 of `a`"},
		{"not null long without nulls", arrow.Field{Name: "a", Type: i64}, `[1, 2]`, ""},
		{"struct field", arrow.Field{Name: "s", Type: structT, Nullable: true}, `[{"x": 1}, {"x": null}]`, "row 1 of `s`.`x`"},
		{"struct field under a null struct", arrow.Field{Name: "s", Type: structT, Nullable: true}, `[{"x": 1}, null]`, ""},
		{"list element", arrow.Field{Name: "l", Type: listT, Nullable: true}, `[[1], null, [2, null]]`, "row 2 of `l`.`element`"},
	} {
		t.Run(c.name, func(t *testing.T) {
			arr, _, err := array.FromJSON(mem, c.field.Type, strings.NewReader(c.json))
			if err != nil {
				t.Fatal(err)
			}
			defer arr.Release()
			err = checkNotNull(arr, c.field)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "is null")):
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}
