package query

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// current_timestamp() in a streaming query is the micro-batch's timestamp (Spark's
// batchTimestampMs): one value for every row of an epoch, the one logged with the epoch's
// offsets, and for an epoch run again after a restart, the one it was first logged with.

// timeSinks record, per epoch, the value of every row's first (timestamp) column.
var timeSinks = registerEpochSink("batchtimetestsink", func(rec arrow.RecordBatch, i int) (int64, error) {
	ts, ok := rec.Column(flow.UserOffset).(*array.Timestamp)
	if !ok {
		return 0, fmt.Errorf("time sink: first column is %s", rec.Column(flow.UserOffset).DataType())
	}
	return int64(ts.Value(i)), nil
})

// rateWithNow is rate-micro-batch (4 rows a batch) → select(current_timestamp(), value).
func rateWithNow(t *testing.T) logical.Node {
	scan := steppedRateScan(t)
	schema := scan.Out
	vi := len(schema) - 1
	value := &expr.Column{Index: vi, Name: schema[vi].Name, T: schema[vi].Type, Null: schema[vi].Nullable}
	return &logical.Project{Input: scan, Exprs: []expr.Expr{currentTime(t, "current_timestamp"), value}}
}

func TestCurrentTimestampIsTheBatchTimestamp(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	m := newTestManager(mem)
	defer m.StopAll()
	dir := filepath.Join(t.TempDir(), "cp")
	id := t.Name()
	spec := Spec{Plan: rateWithNow(t), Format: "batchtimetestsink", OutputMode: flow.OutputAppend,
		Options: map[string]string{"checkpointLocation": dir, "id": id}}
	run := func(n int) []int64 {
		var batches []int64
		for _, p := range runProgress(t, m, spec, n) {
			batches = append(batches, int64(p["batchId"].(float64)))
		}
		return batches
	}
	// times is the distinct values epoch e wrote.
	times := func(e int64) []int64 {
		vs := slices.Clone(timeSinks.get(id).epoch(e))
		slices.Sort(vs)
		return slices.Compact(vs)
	}

	first := run(4)
	logged := loggedRecords(t, dir)
	for _, b := range first {
		got := times(b)
		if want := logged[b].Meta.BatchTimestampMs * 1000; len(got) != 1 || got[0] != want {
			t.Fatalf("epoch %d: current_timestamp() gave %v, want the logged batch timestamp %d µs", b, got, want)
		}
	}

	// A crash after logging the next epoch (at a batch timestamp far in the past) and before
	// its commit: it runs again with that timestamp; the epochs after it get new ones.
	last := first[len(first)-1]
	prev := logged[last]
	const loggedMs = 1_234_567
	logEpoch(t, dir, epochRecord{Epoch: last + 1, Start: prev.End, End: []sources.Offset{rateOffsetPlus(t, prev.End[0], 4, 1000)},
		Meta: &offsetMeta{BatchTimestampMs: loggedMs, Conf: prev.Meta.Conf}})
	second := run(3)
	if second[0] != last+1 {
		t.Fatalf("the restarted query ran batch %d first, want the logged batch %d", second[0], last+1)
	}
	if got := times(last + 1); len(got) != 1 || got[0] != loggedMs*1000 {
		t.Fatalf("the replayed epoch's current_timestamp() is %v, want its logged %d µs", got, loggedMs*1000)
	}
	logged = loggedRecords(t, dir)
	for _, b := range second[1:] {
		got := times(b)
		if want := logged[b].Meta.BatchTimestampMs * 1000; len(got) != 1 || got[0] != want || want <= loggedMs*1000 {
			t.Fatalf("epoch %d after the replay: current_timestamp() gave %v, want its own logged %d µs", b, got, want)
		}
	}
}
