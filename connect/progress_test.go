package connect

import (
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/plan"
)

// TestExecutionProgressWhileAJobRuns: while an operation's flow job runs, ExecutePlan sends
// ExecutionProgress every spark.connect.progress.reportInterval with the job's stages; after
// the job ended, a last report has every stage done, and ResultComplete still comes last.
func TestExecutionProgressWhileAJobRuns(t *testing.T) {
	ts := newTestServer(t)
	if err := ts.fake.conf.Set(progressIntervalKey, "5ms"); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	schema := flow.EventSchema(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil))
	ts.fake.execute = func(ctx context.Context, _ plan.Relation) (*engine.Result, error) {
		tr := flow.TrackerFrom(ctx)
		if tr == nil {
			t.Error("the operation's context carries no tracker")
		}
		src := &flow.Node{Name: "src", Parallelism: 3, Schema: schema, Source: flow.SourceFunc(
			func(ctx context.Context, env flow.Env, out flow.Emitter) error {
				if env.Partition == 0 {
					return nil // one task ends at once
				}
				select {
				case <-release:
				case <-ctx.Done():
				}
				return nil
			})}
		job, err := flow.NewLocalRunner(flow.WithAllocator(memory.DefaultAllocator)).Start(ctx, &flow.Graph{Output: src},
			flow.JobOptions{Tracker: tr})
		if err != nil {
			return nil, err
		}
		return engine.NewResult(longSchema, func(ctx context.Context) (arrow.RecordBatch, error) {
			for {
				rec, err := job.Next(ctx)
				if err != nil {
					return nil, err
				}
				rec.Release()
			}
		}, job.Close), nil
	}
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(newUUID(), rangePlan(), false))
	if err != nil {
		t.Fatal(err)
	}
	var progress []*pb.ExecutePlanResponse_ExecutionProgress
	var last *pb.ExecutePlanResponse
	for {
		r, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		last = r
		if p := r.GetExecutionProgress(); p != nil {
			progress = append(progress, p)
			if len(progress) == 2 {
				close(release)
			}
		}
	}
	if last.GetResultComplete() == nil {
		t.Fatalf("the stream did not end with ResultComplete: %v", last)
	}
	if len(progress) < 3 {
		t.Fatalf("%d progress reports", len(progress))
	}
	first, final := progress[0], progress[len(progress)-1]
	if len(first.Stages) != 1 || first.Stages[0].NumTasks != 3 || first.Stages[0].Done || first.NumInflightTasks < 2 {
		t.Errorf("first report: %v", first)
	}
	if s := final.Stages[0]; s.NumTasks != 3 || s.NumCompletedTasks != 3 || !s.Done || final.NumInflightTasks != 0 {
		t.Errorf("last report: %v", final)
	}
}

func TestProgressInterval(t *testing.T) {
	c := engine.NewConf()
	for v, want := range map[string]string{"": "2s", "500": "500ms", "100ms": "100ms", "-1": "0s", "0": "0s", "junk": "2s"} {
		if v != "" {
			if err := c.Set(progressIntervalKey, v); err != nil {
				t.Fatal(err)
			}
		}
		if got := progressInterval(c).String(); got != want {
			t.Errorf("%q: interval %s, want %s", v, got, want)
		}
	}
}
