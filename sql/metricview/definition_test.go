package metricview

import (
	"testing"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

func TestParse(t *testing.T) {
	v, err := Parse(`
version: 0.1
source: main.sales
filter: amount > 0
dimensions:
  - name: region
    expr: upper(region)
measures:
  - name: total
    expr: sum(amount)
`)
	if err != nil {
		t.Fatal(err)
	}
	src, ok := v.Source.(*plan.NamedTable)
	if !ok || len(src.Name) != 2 || src.Name[1] != "sales" || v.SourceIsQuery {
		t.Fatalf("source = %#v", v.Source)
	}
	if v.FilterText != "amount > 0" || v.Filter == nil {
		t.Fatalf("filter = %q", v.FilterText)
	}
	if len(v.Dimensions) != 1 || v.Dimensions[0].Name != "region" || len(v.Measures) != 1 {
		t.Fatalf("fields = %v %v", v.Dimensions, v.Measures)
	}
	if m, ok := v.Measure("TOTAL"); !ok || m.Name != "total" {
		t.Fatalf("Measure(TOTAL) = %v, %v", m, ok)
	}
	v.Rename([]string{"r", "t"})
	if v.Dimensions[0].Name != "r" || v.Measures[0].Name != "t" {
		t.Fatalf("renamed = %v %v", v.Dimensions, v.Measures)
	}

	q, err := Parse("version: 0.1\nsource: SELECT 1 AS x\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := q.Source.(*plan.SQLQuery); !ok || !q.SourceIsQuery {
		t.Fatalf("query source = %#v", q.Source)
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"version: 0.1\n",
		"source: t\n",
		"version: 0.2\nsource: t\n",
		"version: 0.1\nsource: t\nextra: 1\n",
		": : not yaml [",
		"",
	} {
		_, err := Parse(text)
		e, ok := sparkerr.As(err)
		if !ok || e.Class != "INVALID_METRIC_VIEW_YAML" {
			t.Errorf("Parse(%q) = %v, want INVALID_METRIC_VIEW_YAML", text, err)
		}
	}
}
