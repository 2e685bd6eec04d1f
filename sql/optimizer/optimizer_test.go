package optimizer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

type catalog map[string]logical.Node

func (c catalog) TempView(name string) (logical.Node, bool) {
	n, ok := c[strings.ToLower(name)]
	return n, ok
}

type noSources struct{}

func (noSources) Schema(format string, _ map[string]string, _ string, _ bool) (sqltypes.Schema, error) {
	return nil, fmt.Errorf("no source %s", format)
}

func parquet(path string, fields ...string) *logical.SourceScan {
	s := &logical.SourceScan{Format: "parquet", Paths: []string{path}}
	for _, f := range fields {
		name, typ, _ := strings.Cut(f, ":")
		t := sqltypes.IntegerType
		switch typ {
		case "string":
			t = sqltypes.StringType
		case "double":
			t = sqltypes.DoubleType
		case "date":
			t = sqltypes.DateType
		}
		s.Out = append(s.Out, sqltypes.Field{Name: name, Type: t, Nullable: true})
	}
	return s
}

// testCatalog: a small star schema of Parquet tables, sizes in rowCounts, and a streaming
// rate-like source.
func testCatalog() catalog {
	return catalog{
		"fact":  parquet("fact", "f_id", "f_a", "f_b", "f_amount:double", "f_day:date"),
		"dim_a": parquet("dim_a", "a_id", "a_name:string", "a_c"),
		"dim_b": parquet("dim_b", "b_id", "b_name:string"),
		"dim_c": parquet("dim_c", "c_id", "c_name:string"),
		"t":     parquet("t", "a", "b:string", "c:double"),
		"u":     parquet("u", "x:string", "a"),
		"csv":   &logical.SourceScan{Format: "csv", Paths: []string{"csv"}, Out: parquet("", "p", "q").Out},
		"stream": &logical.SourceScan{Format: "rate", Streaming: true, Out: sqltypes.Schema{
			{Name: "timestamp", Type: sqltypes.TimestampType, Nullable: true},
			{Name: "value", Type: sqltypes.LongType, Nullable: true}}},
	}
}

var rowCounts = map[string]int64{"fact": 1_000_000, "dim_a": 1000, "dim_b": 50, "dim_c": 10, "t": 100, "u": 10}

func stats(s *logical.SourceScan) (int64, bool) {
	n, ok := rowCounts[s.Paths[0]]
	return n, ok
}

// distinctCounts bounds the distinct values of some columns, by "path.column".
var distinctCounts = map[string]int64{"fact.f_a": 1000, "dim_a.a_id": 1000, "fact.f_b": 5, "t.a": 5}

func distinct(s *logical.SourceScan, col int) (int64, bool) {
	n, ok := distinctCounts[s.Paths[0]+"."+s.Out[col].Name]
	return n, ok
}

var ruleNames = map[string]rule{
	"simplify": simplify, "pushdown": pushFilters, "reorder": reorderJoins, "prune": pruneColumns,
	"semijoins": pushSemiJoins,
}

// TestRules runs testdata/*: `optimize [rules=a,b]` resolves its input SQL and prints the plan
// before and after all batches (or only the named rules, once each, in order).
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			a := &analyzer.Analyzer{Catalog: testCatalog(), Sources: noSources{},
				Options: expr.Options{ANSI: true, TimeZone: "UTC"}}
			n, err := a.Resolve(context.Background(), &plan.SQLQuery{Query: d.Input})
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			opts := Options{Stats: stats, Distinct: distinct, Expr: &expr.Context{Location: time.UTC, ANSI: true}}
			if d.HasArg("broadcast") {
				d.ScanArgs(t, "broadcast", &opts.BroadcastThreshold)
			}
			var out logical.Node
			if d.HasArg("rules") {
				var names string
				d.ScanArgs(t, "rules", &names)
				out = n
				for _, r := range strings.Split(names, ",") {
					f, ok := ruleNames[r]
					if !ok {
						t.Fatalf("unknown rule %s", r)
					}
					out = f(out, &opts)
				}
			} else if out, err = Optimize(context.Background(), n, opts); err != nil {
				return "error: " + err.Error() + "\n"
			}
			if !sameSchema(n.Schema(), out.Schema()) {
				t.Fatalf("schema changed: %v -> %v", n.Schema(), out.Schema())
			}
			res := "before:\n" + logical.TreeString(n) + "after:\n" + logical.TreeString(out)
			if d.HasArg("broadcast") {
				res += "broadcast:\n" + broadcastJoins(out)
			}
			return res
		})
	})
}

func sameSchema(a, b sqltypes.Schema) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Type.String() != b[i].Type.String() {
			return false
		}
	}
	return true
}

// broadcastJoins lists the joins of n whose right side is broadcast, a line each.
func broadcastJoins(n logical.Node) string {
	var out string
	if j, ok := n.(*logical.Join); ok && j.BroadcastRight {
		out += j.Describe() + "\n"
	}
	for _, c := range n.Children() {
		out += broadcastJoins(c)
	}
	return out
}
