package planner

import (
	"testing"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestStreamingWindowRefused checks Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING for a
// window function over a stream, naming the select's column (an alias) as Spark does, and that
// the planner refuses the Window node itself too.
func TestStreamingWindowRefused(t *testing.T) {
	scan := &logical.SourceScan{Format: "rate", Streaming: true,
		Out: sqltypes.Schema{{Name: "value", Type: sqltypes.LongType}}}
	value := &expr.Column{Index: 0, Name: "value", T: sqltypes.LongType}
	name := "row_number() OVER (ORDER BY value ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
	w := &logical.Window{Input: scan, OrderBy: []logical.SortKey{{Expr: value, NullsFirst: true}},
		Funcs: []*logical.WindowFunc{{Kind: logical.WindowRowNumber, Type: sqltypes.IntegerType, SQL: "row_number()",
			Frame: logical.Frame{Rows: true, Lower: logical.FrameBound{Kind: logical.UnboundedPreceding},
				Upper: logical.FrameBound{Kind: logical.CurrentRow}}}},
		Names: []string{name}}
	p := &logical.Project{Input: w, Exprs: []expr.Expr{
		&expr.Alias{Child: &expr.Column{Index: 1, Name: name, T: sqltypes.IntegerType}, Name: "id"}}}
	err := CheckStreamingOperators(p)
	e, ok := sparkerr.As(err)
	if !ok || e.Class != "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING" {
		t.Fatalf("got %v, want NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING", err)
	}
	want := "Window function is not supported in ROW_NUMBER() (as column `id`) on streaming DataFrames/Datasets. " +
		"Structured Streaming only supports time-window aggregation using the WINDOW function. " +
		"(window specification: (ORDER BY VALUE ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))"
	if e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
	sources := func(*logical.SourceScan) (flow.Source, int, error) { return nil, 1, nil }
	_, err = Build(p, Options{Streaming: true, Sources: sources})
	if e, ok := sparkerr.As(err); !ok || e.Class != "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING" {
		t.Fatalf("planning a window over a stream: got %v", err)
	}
}
