package query

import (
	"context"
	"github.com/weirhq/weir/flow"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestCheckPlan(t *testing.T) {
	stream := scan("validate")
	static := &logical.LocalData{Out: testSchema}
	count := func(distinct bool) expr.AggFunc {
		f, err := expr.BindAggregate("count", []expr.Expr{col0(stream)}, distinct, expr.Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	agg := &logical.Aggregate{Input: stream, Groups: []expr.Expr{col0(stream)}, Aggs: []expr.AggFunc{count(false)}, Names: []string{"n"}}
	join := func(l, r logical.Node, typ plan.JoinType) *logical.Join {
		return &logical.Join{Left: l, Right: r, Type: typ, LeftKeys: []expr.Expr{col0(l)}, RightKeys: []expr.Expr{col0(r)},
			Out: append(append(testSchema[:0:0], testSchema...), testSchema...)}
	}
	sortBy := func(in logical.Node) *logical.Sort {
		return &logical.Sort{Input: in, Keys: []logical.SortKey{{Expr: col0(in)}}, Global: true}
	}
	cases := []struct {
		name    string
		plan    logical.Node
		mode    flow.OutputMode
		trigger plan.TriggerKind
		err     string // prefix; "" = allowed
	}{
		{"batch plan", static, flow.OutputAppend, plan.TriggerUnset, "[WRITE_STREAM_NOT_ALLOWED] `writeStream` can be called only on streaming Dataset/DataFrame."},
		{"select append", stream, flow.OutputAppend, plan.TriggerUnset, ""},
		{"select update", stream, flow.OutputUpdate, plan.TriggerUnset, ""},
		{"select complete", stream, flow.OutputComplete, plan.TriggerUnset,
			"Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets;\nStreamingRelation querytest [value]"},
		{"aggregate append", agg, flow.OutputAppend, plan.TriggerUnset,
			"Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark;\nAggregate"},
		{"aggregate update", agg, flow.OutputUpdate, plan.TriggerUnset, ""},
		{"aggregate complete", agg, flow.OutputComplete, plan.TriggerUnset, ""},
		{"distinct aggregate", &logical.Aggregate{Input: stream, Aggs: []expr.AggFunc{count(true)}, Names: []string{"n"}}, flow.OutputComplete, plan.TriggerUnset,
			"Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead."},
		{"chained aggregates", &logical.Aggregate{Input: agg, Aggs: []expr.AggFunc{count(false)}, Names: []string{"m"}}, flow.OutputUpdate, plan.TriggerUnset,
			"Detected pattern of possible 'correctness' issue due to global watermark."},
		{"sort append", sortBy(stream), flow.OutputAppend, plan.TriggerUnset,
			"Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode;"},
		{"sort after aggregate update", sortBy(agg), flow.OutputUpdate, plan.TriggerUnset,
			"Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode;"},
		{"sort after aggregate complete", sortBy(agg), flow.OutputComplete, plan.TriggerUnset,
			"Sorting an aggregated streaming DataFrame/Dataset in Complete output mode is not supported by Weir;"},
		{"limit update", &logical.Limit{Input: stream, N: 3}, flow.OutputUpdate, plan.TriggerUnset,
			"Limits are not supported on streaming DataFrames/Datasets in Update output mode;"},
		{"limit append", &logical.Limit{Input: stream, N: 3}, flow.OutputAppend, plan.TriggerUnset,
			"Limits are not supported on streaming DataFrames/Datasets by Weir;"},
		{"offset", &logical.Limit{Input: stream, N: 3, Offset: 1}, flow.OutputAppend, plan.TriggerUnset,
			"Offset is not supported on streaming DataFrames/Datasets;"},
		{"deduplicate append", &logical.Distinct{Input: stream}, flow.OutputAppend, plan.TriggerUnset, ""},
		{"deduplicate complete", &logical.Distinct{Input: stream}, flow.OutputComplete, plan.TriggerUnset,
			"Complete output mode not supported when there are no streaming aggregations"},
		{"sample", &logical.Sample{Input: stream, Upper: 0.5}, flow.OutputAppend, plan.TriggerUnset,
			"Sampling is not supported on streaming DataFrames/Datasets;"},
		{"stream-static inner join", join(stream, static, plan.InnerJoin), flow.OutputAppend, plan.TriggerUnset, ""},
		{"stream-static left outer join", join(stream, static, plan.LeftOuterJoin), flow.OutputAppend, plan.TriggerUnset, ""},
		{"stream-static right outer join", join(stream, static, plan.RightOuterJoin), flow.OutputAppend, plan.TriggerUnset,
			"RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported;"},
		{"static-stream left outer join", join(static, stream, plan.LeftOuterJoin), flow.OutputAppend, plan.TriggerUnset,
			"LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported;"},
		{"static-stream inner join", join(static, stream, plan.InnerJoin), flow.OutputAppend, plan.TriggerUnset,
			"[UNSUPPORTED_FEATURE] joins whose right side is a streaming DataFrame/Dataset are not supported by Weir"},
		{"stream-stream join update", join(stream, stream, plan.InnerJoin), flow.OutputUpdate, plan.TriggerUnset,
			"Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode;"},
		{"union stream and batch", &logical.Union{Inputs: []logical.Node{stream, static}, Out: testSchema}, flow.OutputAppend, plan.TriggerUnset,
			"Union between streaming and batch DataFrames/Datasets is not supported;"},
		{"union streams", &logical.Union{Inputs: []logical.Node{stream, stream}, Out: testSchema}, flow.OutputAppend, plan.TriggerUnset, ""},
		{"continuous select", &logical.Filter{Input: stream, Cond: expr.NewLiteral(true, sqltypes.BooleanType)}, flow.OutputAppend, plan.TriggerContinuous, ""},
		{"continuous aggregate", agg, flow.OutputUpdate, plan.TriggerContinuous,
			"Continuous processing does not support Aggregate operations.;"},
		{"continuous current_timestamp", &logical.Project{Input: stream, Exprs: []expr.Expr{currentTime(t, "current_timestamp")}},
			flow.OutputAppend, plan.TriggerContinuous, "Continuous processing does not support current time operations.;"},
		{"continuous filter on current_date", &logical.Filter{Input: stream, Cond: currentTimeCond(t)},
			flow.OutputAppend, plan.TriggerContinuous, "Continuous processing does not support current time operations.;"},
		{"micro-batch current_timestamp", &logical.Project{Input: stream, Exprs: []expr.Expr{currentTime(t, "now")}},
			flow.OutputAppend, plan.TriggerUnset, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := validate(&Spec{Plan: c.plan, OutputMode: c.mode, Trigger: Trigger{Kind: c.trigger, Interval: time.Second}})
			if c.err == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", c.err)
			}
			if !strings.HasPrefix(err.Error(), c.err) {
				t.Fatalf("got %q\nwant prefix %q", err.Error(), c.err)
			}
			if se, ok := sparkerr.As(err); !ok || (se.JavaClass != sparkerr.AnalysisException && se.JavaClass != sparkerr.UnsupportedOperation) {
				t.Fatalf("error class %#v", err)
			}
		})
	}
}

func TestStartRefusesWhatItCannotRun(t *testing.T) {
	m := newTestManager(memory.NewGoAllocator())
	stream := scan("refuse")
	cases := []struct {
		spec Spec
		err  string
	}{
		{Spec{Plan: stream, Format: "", OutputMode: flow.OutputAppend},
			`[_LEGACY_ERROR_TEMP_1197] checkpointLocation must be specified`},
		{Spec{Plan: stream, Format: "Parquet", OutputMode: flow.OutputAppend, Path: "/tmp/x"},
			`[_LEGACY_ERROR_TEMP_1197] checkpointLocation must be specified either through option("checkpointLocation", ...)`},
		{Spec{Plan: stream, Format: "noop", OutputMode: flow.OutputAppend, TableName: "t"},
			"[UNSUPPORTED_FEATURE] writeStream.toTable(t) is not supported by Weir"},
		{Spec{Plan: stream, Format: "noop", OutputMode: flow.OutputAppend, Trigger: Trigger{Kind: plan.TriggerContinuous}},
			"The continuous trigger's checkpoint interval must be positive, got 0s"},
		{Spec{Plan: stream, Format: "nosuchsink", OutputMode: flow.OutputAppend},
			"[DATA_SOURCE_NOT_FOUND] Failed to find the data source: nosuchsink."},
		{Spec{Plan: &logical.SourceScan{Format: "nosuchsource", Out: testSchema, Streaming: true}, Format: "noop", OutputMode: flow.OutputAppend},
			"[DATA_SOURCE_NOT_FOUND] Failed to find the data source: nosuchsource."},
	}
	for _, c := range cases {
		q, err := m.Start(context.Background(), c.spec)
		if err == nil {
			_ = q.Stop(context.Background())
			t.Fatalf("%+v started", c.spec)
		}
		if !strings.HasPrefix(err.Error(), c.err) {
			t.Fatalf("got %q\nwant prefix %q", err.Error(), c.err)
		}
	}
	if len(m.Active()) != 0 {
		t.Fatal("refused queries are registered")
	}
}

// currentTime binds a current-time function without arguments.
func currentTime(t *testing.T, name string) expr.Expr {
	t.Helper()
	e, err := expr.Bind(name, nil, expr.Options{ANSI: true, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// currentTimeCond is current_date() IS NOT NULL.
func currentTimeCond(t *testing.T) expr.Expr {
	t.Helper()
	e, err := expr.Bind("isnotnull", []expr.Expr{currentTime(t, "current_date")}, expr.Options{ANSI: true, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
