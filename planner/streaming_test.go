package planner

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// scriptSource emits, per partition, batches of rows and barriers.
type scriptSource struct {
	e     *env
	parts [][]any // per partition: [][]any rows, or int64 barrier epoch
}

func (s scriptSource) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	for _, step := range s.parts[env.Partition] {
		var rec arrow.RecordBatch
		switch st := step.(type) {
		case int64:
			rec = flow.NewMarkerBatch(env.Mem, env.OutSchema, flow.Marker{Kind: flow.MarkerBarrier, Epoch: st})
		case [][]any:
			cols := make([]arrow.Array, len(kv))
			for c, f := range kv {
				vals := make([]any, len(st))
				for r, row := range st {
					vals[r] = row[c]
				}
				cols[c] = expr.BuildArray(env.Mem, f.Type, "UTC", vals)
			}
			rec = flow.NewDataBatch(env.Mem, env.OutSchema, cols, nil)
			releaseArrays(cols)
		}
		if err := out.Emit(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

func TestStreamingAggregateEmitsChangesAtBarriers(t *testing.T) {
	e := newEnv(t)
	src := scriptSource{e: e, parts: [][]any{
		{[][]any{{"a", int64(1)}, {"b", int64(2)}}, int64(1), [][]any{{"a", int64(10)}}, int64(2)},
		{[][]any{{"a", int64(5)}}, int64(1), int64(2), [][]any{{"c", int64(7)}}},
	}}
	scan := &logical.SourceScan{Format: "script", Out: kv, Streaming: true}
	a := &logical.Aggregate{Input: scan, Groups: []expr.Expr{col(scan, 0)},
		Aggs: []expr.AggFunc{agg(t, "sum", col(scan, 1))}, Names: []string{"s"}}
	for _, par := range []int{1, 3} {
		got, err := e.runWith(a, Options{Mem: e.mem, Partitions: par, Streaming: true,
			Sources: func(*logical.SourceScan) (flow.Source, int, error) { return src, 2, nil }}, 2)
		if err != nil {
			t.Fatal(err)
		}
		// Order within an epoch depends on partitions: compare epoch by epoch.
		var epochs [][]string
		cur := []string{}
		for _, row := range got {
			if row == "barrier 1" || row == "barrier 2" {
				slices.Sort(cur)
				epochs = append(epochs, cur)
				cur = []string{}
				continue
			}
			cur = append(cur, row)
		}
		slices.Sort(cur)
		epochs = append(epochs, cur)
		want := [][]string{{"a, 6", "b, 2"}, {"- a, 6", "a, 16"}, {"c, 7"}}
		if !slices.EqualFunc(epochs, want, slices.Equal) {
			t.Fatalf("partitions %d: got %q", par, got)
		}
	}
}
