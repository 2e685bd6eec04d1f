package analyzer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// memCatalog is an in-memory catalog of temp views.
type memCatalog map[string]logical.Node

func (c memCatalog) TempView(name string) (logical.Node, bool) {
	n, ok := c[strings.ToLower(name)]
	return n, ok
}

// fixedSources answers every data source read with one schema.
type fixedSources struct{}

func (fixedSources) Schema(format string, _ map[string]string, _ string, _ bool) (sqltypes.Schema, error) {
	if format != "rate" {
		return nil, sparkerr.Analysis("DATA_SOURCE_NOT_FOUND", "42K02", "Failed to find the data source: %s.", format)
	}
	return sqltypes.Schema{
		{Name: "timestamp", Type: sqltypes.TimestampType, Nullable: true},
		{Name: "value", Type: sqltypes.LongType, Nullable: true},
	}, nil
}

func field(name string, t sqltypes.DataType, nullable bool) sqltypes.Field {
	return sqltypes.Field{Name: name, Type: t, Nullable: nullable}
}

// testCatalog has views t(a int, b string, c double), s(a int not null, d bigint),
// u(x string, a int), n(id int, st struct<f:int,g:string>) and g(id int not null, arr
// array<int>, m map<string,bigint>, js string, ss array<struct<x:int,y:string>>).
func testCatalog() memCatalog {
	return memCatalog{
		"t": &logical.LocalData{Out: sqltypes.Schema{
			field("a", sqltypes.IntegerType, true), field("b", sqltypes.StringType, true), field("c", sqltypes.DoubleType, true)}},
		"s": &logical.LocalData{Out: sqltypes.Schema{
			field("a", sqltypes.IntegerType, false), field("d", sqltypes.LongType, true)}},
		"u": &logical.LocalData{Out: sqltypes.Schema{
			field("x", sqltypes.StringType, true), field("a", sqltypes.IntegerType, true)}},
		"g": &logical.LocalData{Out: sqltypes.Schema{
			field("id", sqltypes.IntegerType, false),
			field("arr", sqltypes.ArrayType(sqltypes.IntegerType, true), true),
			field("m", sqltypes.MapType(sqltypes.StringType, sqltypes.LongType, true), true),
			field("js", sqltypes.StringType, true),
			field("ss", sqltypes.ArrayType(sqltypes.StructType(field("x", sqltypes.IntegerType, true), field("y", sqltypes.StringType, true)), false), true)}},
		"n": &logical.LocalData{Out: sqltypes.Schema{
			field("id", sqltypes.IntegerType, false),
			field("st", sqltypes.StructType(field("f", sqltypes.IntegerType, true), field("g", sqltypes.StringType, true)), true)}},
	}
}

func newAnalyzer() *analyzer.Analyzer {
	return &analyzer.Analyzer{Catalog: testCatalog(), Sources: fixedSources{},
		Options: expr.Options{ANSI: true, TimeZone: "UTC"}, PythonFunctions: registeredPython}
}

// render prints a resolved plan and its schema, or the error's class and message.
func render(n logical.Node, err error) string {
	if err != nil {
		if e, ok := sparkerr.As(err); ok {
			return fmt.Sprintf("error %s: %s\n", e.Class, e.Message)
		}
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	b.WriteString(logical.TreeString(n))
	b.WriteString("schema:")
	for _, f := range n.Schema() {
		fmt.Fprintf(&b, " %s:%s:%t", f.Name, f.Type, f.Nullable)
	}
	b.WriteString("\n")
	return b.String()
}

// TestResolve runs testdata/*: `sql` resolves its input parsed as SQL; `plan name=…` resolves a
// hand-built plan from planCases. Arguments case-sensitive and no-implicit-cartesian
// (spark.sql.crossJoin.enabled=false) set the analyzer's options.
func TestResolve(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			a := newAnalyzer()
			if d.HasArg("case-sensitive") {
				a.CaseSensitive = true
			}
			if d.HasArg("no-implicit-cartesian") {
				a.NoImplicitCartesian = true
			}
			switch d.Cmd {
			case "sql":
				return render(a.Resolve(context.Background(), &plan.SQLQuery{Query: d.Input}))
			case "plan":
				var name string
				d.ScanArgs(t, "name", &name)
				build, ok := planCases[name]
				if !ok {
					t.Fatalf("unknown plan case %q", name)
				}
				return render(a.Resolve(context.Background(), build()))
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

// TestResolveType parses DDL type strings through the SQL package.
func TestResolveType(t *testing.T) {
	a := newAnalyzer()
	dt, err := a.ResolveType("array<struct<a:int,b:string>>")
	if err != nil {
		t.Fatal(err)
	}
	if got := dt.String(); got != "array<struct<a:int,b:string>>" {
		t.Fatalf("got %s", got)
	}
}

// TestShowStringIsNotResolved checks the engine-only relation fails clearly.
func TestShowStringIsNotResolved(t *testing.T) {
	_, err := newAnalyzer().Resolve(context.Background(), &plan.ShowString{Input: &plan.Range{End: 3, Step: 1}})
	if err == nil || !strings.Contains(err.Error(), "ShowString") {
		t.Fatalf("got %v", err)
	}
}
