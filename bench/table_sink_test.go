package bench

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
)

// sinkBatchRows and sinkEpochs size the table sink benchmarks: 10 micro-batches of 200K rows.
const (
	sinkBatchRows = 200_000
	sinkEpochs    = 10
)

// benchSinkAppend runs rate-micro-batch → SELECT value, value * 2 → format at a fresh path for
// sinkEpochs micro-batches per iteration; it reports input rows/s over the iteration and the
// mean duration of a micro-batch (its commit included).
func benchSinkAppend(b *testing.B, format string) {
	s := engine.NewSession()
	defer s.Close()
	input := &plan.Project{Input: rateMicroBatch(sinkBatchRows), Exprs: []plan.Expr{
		plan.Col("value"), plan.Alias{Child: plan.Fn("*", plan.Col("value"), long(2)), Names: []string{"twice"}}}}
	var rows int64
	var batchMillis float64
	var batches int
	for b.Loop() {
		dir := b.TempDir()
		events := make(progressCounter, 1024)
		remove := s.Streams().AddListener(events)
		ctx := context.Background()
		q, err := s.StartStream(ctx, &plan.WriteStream{Input: input, Format: format, OutputMode: "append",
			Path: filepath.Join(dir, "out"), Options: map[string]string{"checkpointLocation": filepath.Join(dir, "ck")}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		deadline := time.After(5 * time.Minute)
		for n := 0; n < sinkEpochs; {
			select {
			case <-events:
				n = len(q.RecentProgress())
			case <-deadline:
				b.Fatalf("%d of %d micro-batches completed in 5 minutes", n, sinkEpochs)
			}
			if exc := q.Exception(); exc != nil {
				b.Fatal(exc.Message)
			}
		}
		if err := q.Stop(ctx); err != nil {
			b.Fatal(err)
		}
		remove()
		for _, p := range q.RecentProgress() {
			var prog struct {
				NumInputRows int64 `json:"numInputRows"`
				Durations    struct {
					TriggerExecution float64 `json:"triggerExecution"`
				} `json:"durationMs"`
			}
			if err := json.Unmarshal([]byte(p), &prog); err != nil {
				b.Fatal(err)
			}
			rows += prog.NumInputRows
			batchMillis += prog.Durations.TriggerExecution
			batches++
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(batchMillis/float64(max(1, batches)), "ms/batch")
}

// BenchmarkSinkAppendParquet: the Parquet file sink (one file per partition and epoch plus
// its commit log entry).
func BenchmarkSinkAppendParquet(b *testing.B) { benchSinkAppend(b, "parquet") }

// BenchmarkSinkAppendIceberg: the Iceberg sink (one snapshot per epoch).
func BenchmarkSinkAppendIceberg(b *testing.B) { benchSinkAppend(b, "iceberg") }
