package bench

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
)

// Streaming benchmarks: real queries started through engine.Session.StartStream, rows from the
// rate sources, results into the noop sink (or the latency probe of latency_test.go).

const (
	// streamBatchRows is the rate-micro-batch source's rowsPerBatch in the throughput benchmarks.
	streamBatchRows = 2_000_000
	// streamEpochs is how many micro-batches one benchmark iteration waits for.
	streamEpochs = 10
)

// rateMicroBatch reads the rate-micro-batch source with rowsPerBatch rows per micro-batch over
// two partitions.
func rateMicroBatch(rowsPerBatch int64) *plan.DataSource {
	return &plan.DataSource{Format: "rate-micro-batch", IsStreaming: true, Options: map[string]string{
		"rowsPerBatch": strconv.FormatInt(rowsPerBatch, 10), "numPartitions": "2"}}
}

// statelessQuery is SELECT value * 2 AS doubled, timestamp FROM src WHERE value % 3 = 0. (The
// rate sources give partition p of n the values p + k·n, so with two partitions a filter on
// value % 2 would keep all or none of each batch; % 3 keeps a third of every batch.)
func statelessQuery(src plan.Relation) plan.Relation {
	return &plan.Project{
		Input: &plan.Filter{
			Input:     src,
			Condition: plan.Fn("==", plan.Fn("%", plan.Col("value"), long(3)), long(0)),
		},
		Exprs: []plan.Expr{
			plan.Alias{Child: plan.Fn("*", plan.Col("value"), long(2)), Names: []string{"doubled"}},
			plan.Col("timestamp"),
		},
	}
}

// groupCountQuery is src.groupBy(value % 10000).count().
func groupCountQuery(src plan.Relation) plan.Relation {
	key := plan.Fn("%", plan.Col("value"), long(10000))
	return &plan.Aggregate{
		Input:    src,
		Type:     plan.GroupBy,
		Grouping: []plan.Expr{key},
		Aggs:     []plan.Expr{key, plan.Alias{Child: plan.Fn("count", long(1)), Names: []string{"count"}}},
	}
}

// Typed variants (issue 17): the same shapes over doubles and strings derived from value, so
// their figures can be set beside the integer ones of one run.
var (
	// statelessDouble filters and computes on CAST(value AS DOUBLE): the double remainder and
	// comparison keep a third of every batch, as value % 3 = 0 does.
	statelessDouble = typedStateless("CAST(value AS DOUBLE) % 3.0 = 0.0", "CAST(value AS DOUBLE) * 2.0 AS doubled")
	// statelessString compares a string (a third of the rows are '0') and writes value as a
	// string column.
	statelessString = typedStateless("CAST(value % 3 AS STRING) = '0'", "CAST(value AS STRING) AS text")
	// groupDouble and groupString group by value % 10000 as a double and as a string key.
	groupDouble = "CAST(value % 10000 AS DOUBLE)"
	groupString = "CAST(value % 10000 AS STRING)"
)

// parseExpr parses a SQL expression of the benchmarks (panics on a typo: a bug of the file).
func parseExpr(text string) plan.Expr {
	e, err := parser.ParseExpression(text)
	if err != nil {
		panic(err)
	}
	return e
}

// typedStateless is statelessQuery's shape with filter and output as SQL text.
func typedStateless(filter, output string) func(plan.Relation) plan.Relation {
	return func(src plan.Relation) plan.Relation {
		return &plan.Project{
			Input: &plan.Filter{Input: src, Condition: parseExpr(filter)},
			Exprs: []plan.Expr{parseExpr(output), plan.Col("timestamp")},
		}
	}
}

// typedGroupCount is groupCountQuery's shape over a key given as SQL text.
func typedGroupCount(key string) func(plan.Relation) plan.Relation {
	return func(src plan.Relation) plan.Relation {
		k := parseExpr(key)
		return &plan.Aggregate{
			Input:    src,
			Type:     plan.GroupBy,
			Grouping: []plan.Expr{k},
			Aggs:     []plan.Expr{plan.Alias{Child: k, Names: []string{"k"}}, plan.Alias{Child: plan.Fn("count", long(1)), Names: []string{"count"}}},
		}
	}
}

// progressCounter is a session listener that signals every progress event.
type progressCounter chan struct{}

func (p progressCounter) OnEvent(ev query.Event) {
	if ev.Type == query.ProgressEvent {
		select {
		case p <- struct{}{}:
		default:
		}
	}
}

// runEpochs starts input → noop with the default trigger, waits until epochs micro-batches
// completed, stops the query and returns the input rows of the completed micro-batches.
func runEpochs(b *testing.B, s *engine.Session, input plan.Relation, mode string, epochs int) int64 {
	b.Helper()
	events := make(progressCounter, 1024)
	remove := s.Streams().AddListener(events)
	defer remove()
	ctx := context.Background()
	q, err := s.StartStream(ctx, &plan.WriteStream{Input: input, Format: "noop", OutputMode: mode}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := q.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}()
	deadline := time.After(5 * time.Minute)
	for n := 0; n < epochs; {
		select {
		case <-events:
			n = len(q.RecentProgress())
		case <-deadline:
			b.Fatalf("%d of %d micro-batches completed in 5 minutes", n, epochs)
		}
		if exc := q.Exception(); exc != nil {
			b.Fatal(exc.Message)
		}
	}
	var rows int64
	for _, p := range q.RecentProgress() {
		var prog struct {
			NumInputRows int64 `json:"numInputRows"`
		}
		if err := json.Unmarshal([]byte(p), &prog); err != nil {
			b.Fatal(err)
		}
		rows += prog.NumInputRows
	}
	return rows
}

// benchStream runs input → noop epochs micro-batches per iteration and reports input rows/s
// over the whole iteration (start, epochs, stop).
func benchStream(b *testing.B, input plan.Relation, mode string, wantRows int64) {
	s := engine.NewSession()
	defer s.Close()
	var rows int64
	for b.Loop() {
		n := runEpochs(b, s, input, mode, streamEpochs)
		if n < wantRows {
			b.Fatalf("%d input rows, want at least %d", n, wantRows)
		}
		rows += n
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkStreamStatelessThroughput: rate-micro-batch → filter/select → noop, default trigger.
func BenchmarkStreamStatelessThroughput(b *testing.B) {
	benchStream(b, statelessQuery(rateMicroBatch(streamBatchRows)), "append", streamEpochs*streamBatchRows)
}

// BenchmarkStreamAggregationThroughput: rate-micro-batch → groupBy(value % 10000).count() in
// update mode → noop, default trigger.
func BenchmarkStreamAggregationThroughput(b *testing.B) {
	benchStream(b, groupCountQuery(rateMicroBatch(streamBatchRows)), "update", streamEpochs*streamBatchRows)
}

// BenchmarkStreamStatelessDoubleThroughput is the stateless benchmark over doubles.
func BenchmarkStreamStatelessDoubleThroughput(b *testing.B) {
	benchStream(b, statelessDouble(rateMicroBatch(streamBatchRows)), "append", streamEpochs*streamBatchRows)
}

// BenchmarkStreamStatelessStringThroughput is the stateless benchmark over strings.
func BenchmarkStreamStatelessStringThroughput(b *testing.B) {
	benchStream(b, statelessString(rateMicroBatch(streamBatchRows)), "append", streamEpochs*streamBatchRows)
}

// BenchmarkStreamAggregationDoubleThroughput groups by value % 10000 as a double.
func BenchmarkStreamAggregationDoubleThroughput(b *testing.B) {
	benchStream(b, typedGroupCount(groupDouble)(rateMicroBatch(streamBatchRows)), "update", streamEpochs*streamBatchRows)
}

// BenchmarkStreamAggregationStringThroughput groups by value % 10000 as a string.
func BenchmarkStreamAggregationStringThroughput(b *testing.B) {
	benchStream(b, typedGroupCount(groupString)(rateMicroBatch(streamBatchRows)), "update", streamEpochs*streamBatchRows)
}
