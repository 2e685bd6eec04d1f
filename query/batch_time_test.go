package query

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/checkpoints"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/logical"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
)

// current_timestamp() in a streaming query is the micro-batch's timestamp (Spark's
// batchTimestampMs): one value for every row of an epoch, the one logged with the epoch's
// offsets, and for an epoch run again after a restart, the one it was first logged with.

// timeSink records, per epoch, the distinct values of its first (timestamp) column; an epoch
// that runs again replaces its record.
type timeSink struct {
	mu     sync.Mutex
	epochs map[int64][]int64
}

var (
	timeSinksMu sync.Mutex
	timeSinks   = map[string]*timeSink{}
)

func init() {
	sinks.Register("batchtimetestsink", func(env sinks.Env, options map[string]string) (sinks.Sink, error) {
		timeSinksMu.Lock()
		defer timeSinksMu.Unlock()
		s, ok := timeSinks[options["id"]]
		if !ok {
			s = &timeSink{epochs: map[int64][]int64{}}
			timeSinks[options["id"]] = s
		}
		return s, nil
	}, sinks.Append)
}

func (s *timeSink) Description() string                         { return "TimeSink" }
func (s *timeSink) Parallelism(int) int                         { return 1 }
func (s *timeSink) OutputRows() int64                           { return 0 }
func (s *timeSink) NewOperator(flow.Env) (flow.Operator, error) { return &timeSinkOp{s: s}, nil }

type timeSinkOp struct {
	s   *timeSink
	cur []int64
}

func (o *timeSinkOp) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	ts, ok := rec.Column(flow.UserOffset).(*array.Timestamp)
	if !ok {
		return fmt.Errorf("time sink: first column is %s", rec.Column(flow.UserOffset).DataType())
	}
	for i := 0; i < ts.Len(); i++ {
		if v := int64(ts.Value(i)); !slices.Contains(o.cur, v) {
			o.cur = append(o.cur, v)
		}
	}
	return nil
}

func (o *timeSinkOp) Barrier(_ context.Context, epoch int64, _ flow.Emitter) error {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	o.s.epochs[epoch] = o.cur
	o.cur = nil
	return nil
}

func (s *timeSink) epoch(e int64) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epochs[e]
}

// rateWithNow is rate-micro-batch (4 rows a batch) → select(current_timestamp(), value).
func rateWithNow(t *testing.T) logical.Node {
	opts := map[string]string{"rowsPerBatch": "4", "numPartitions": "2", "startTimestamp": "0",
		"advanceMillisPerBatch": "1000"}
	schema, err := sources.StreamSchema("rate-micro-batch", opts, "")
	if err != nil {
		t.Fatal(err)
	}
	scan := &logical.SourceScan{Format: "rate-micro-batch", Options: opts, Out: schema, Streaming: true}
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
	spec := Spec{Plan: rateWithNow(t), Format: "batchtimetestsink", OutputMode: sinks.Append,
		Options: map[string]string{"checkpointLocation": dir, "id": id}}
	run := func(n int) []int64 {
		q := start(t, m, spec)
		waitProgress(t, q, n)
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if q.Exception() != nil {
			t.Fatal(q.Exception())
		}
		var batches []int64
		for _, p := range q.RecentProgress() {
			batches = append(batches, int64(progressOf(t, p)["batchId"].(float64)))
		}
		return batches
	}
	sink := func() *timeSink {
		timeSinksMu.Lock()
		defer timeSinksMu.Unlock()
		return timeSinks[id]
	}

	first := run(4)
	logged := loggedRecords(t, dir)
	for _, b := range first {
		got := sink().epoch(b)
		if want := logged[b].Meta.BatchTimestampMs * 1000; len(got) != 1 || got[0] != want {
			t.Fatalf("epoch %d: current_timestamp() gave %v, want the logged batch timestamp %d µs", b, got, want)
		}
	}

	// A crash after logging the next epoch (at a batch timestamp far in the past) and before
	// its commit: it runs again with that timestamp; the epochs after it get new ones.
	last := first[len(first)-1]
	store, err := checkpoints.Open(filepath.Join(dir, pebbleDir))
	if err != nil {
		t.Fatal(err)
	}
	prev := logged[last]
	const loggedMs = 1_234_567
	rec := epochRecord{Epoch: last + 1, Start: prev.End, End: []sources.Offset{rateOffsetPlus(t, prev.End[0], 4, 1000)},
		Meta: &offsetMeta{BatchTimestampMs: loggedMs, Conf: prev.Meta.Conf}}
	raw, err := encodeRecord(rec)
	if err == nil {
		err = store.WriteOffsets(storeKey, last+1, raw)
	}
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	second := run(3)
	if second[0] != last+1 {
		t.Fatalf("the restarted query ran batch %d first, want the logged batch %d", second[0], last+1)
	}
	if got := sink().epoch(last + 1); len(got) != 1 || got[0] != loggedMs*1000 {
		t.Fatalf("the replayed epoch's current_timestamp() is %v, want its logged %d µs", got, loggedMs*1000)
	}
	logged = loggedRecords(t, dir)
	for _, b := range second[1:] {
		got := sink().epoch(b)
		if want := logged[b].Meta.BatchTimestampMs * 1000; len(got) != 1 || got[0] != want || want <= loggedMs*1000 {
			t.Fatalf("epoch %d after the replay: current_timestamp() gave %v, want its own logged %d µs", b, got, want)
		}
	}
}
