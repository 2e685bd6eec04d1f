package sinks_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// recordingFunc is a ForeachBatchFunc that records each call's batch id and keys.
type recordingFunc struct {
	calls  []string
	fail   error
	closed int
}

func (f *recordingFunc) Call(ctx context.Context, batchID int64, schema sqltypes.Schema, recs []arrow.RecordBatch) error {
	if len(schema) != 1 || schema[0].Name != "k" {
		return fmt.Errorf("schema %v", schema)
	}
	f.calls = append(f.calls, fmt.Sprintf("%d:%v", batchID, sinktest.KeysOf(recs)))
	if f.fail != nil {
		return f.fail
	}
	return ctx.Err()
}

func (f *recordingFunc) Close() error { f.closed++; return nil }

// TestForeachBatchCallsPerEpochByOutputMode checks what the function gets at each barrier: the
// epoch's inserts in append and update mode, the whole result in complete mode, an empty epoch
// included; a replayed epoch id calls it again; Close closes the function once.
func TestForeachBatchCallsPerEpochByOutputMode(t *testing.T) {
	for _, c := range []struct {
		mode flow.OutputMode
		want string
	}{
		{flow.OutputAppend, "[0:[1 2] 1:[] 1:[3]]"},
		{flow.OutputUpdate, "[0:[1 2] 1:[] 1:[3]]"},
		{flow.OutputComplete, "[0:[1 2] 1:[2] 1:[2 3]]"},
	} {
		t.Run(fmt.Sprint(c.mode), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			fn := &recordingFunc{}
			s := sinks.NewForeachBatch(sinks.Env{Mode: c.mode, Schema: sinktest.KeyedSchema}, fn)
			if s.Parallelism(4) != 1 || s.Description() != "ForeachBatchSink" || s.OutputRows() != -1 {
				t.Fatalf("sink shape: %d %q %d", s.Parallelism(4), s.Description(), s.OutputRows())
			}
			op, err := s.NewOperator(flow.Env{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			feed := func(keys []int64, retract bool) {
				b := sinktest.KeyedBatch(mem, keys, retract)
				defer b.Release()
				if err := op.Process(ctx, 0, b, nil); err != nil {
					t.Fatal(err)
				}
			}
			barrier := func(epoch int64) {
				if err := op.(flow.BarrierHandler).Barrier(ctx, epoch, nil); err != nil {
					t.Fatal(err)
				}
			}
			feed([]int64{1, 2}, false)
			barrier(0)
			if c.mode == flow.OutputComplete {
				feed([]int64{1}, true)
			}
			barrier(1) // nothing new (complete: 1 retracted)
			feed([]int64{3}, false)
			barrier(1) // the same epoch again, as after a restart
			op.(flow.Closer).Close()
			if got := fmt.Sprint(fn.calls); got != c.want {
				t.Errorf("calls %s, want %s", got, c.want)
			}
			_ = s.Close()
			_ = s.Close()
			if fn.closed != 1 {
				t.Errorf("function closed %d times, want 1", fn.closed)
			}
		})
	}
}

// TestForeachBatchErrors checks that the function's failure is Spark's
// FOREACH_BATCH_USER_FUNCTION_ERROR around its cause, and that a stopping query's cancellation
// passes through unwrapped.
func TestForeachBatchErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cause := sparkerr.New("org.apache.spark.api.python.PythonException", "PYTHON_EXCEPTION", "38000", "boom")
	fn := &recordingFunc{fail: cause}
	s := sinks.NewForeachBatch(sinks.Env{Mode: flow.OutputAppend, Schema: sinktest.KeyedSchema}, fn)
	op, _ := s.NewOperator(flow.Env{Mem: mem})
	defer op.(flow.Closer).Close()
	err := op.(flow.BarrierHandler).Barrier(context.Background(), 0, nil)
	se, ok := sparkerr.As(err)
	if !ok || se.Class != "FOREACH_BATCH_USER_FUNCTION_ERROR" || !errors.Is(err, cause) {
		t.Fatalf("err %v: want FOREACH_BATCH_USER_FUNCTION_ERROR wrapping the cause", err)
	}
	fn.fail = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = op.(flow.BarrierHandler).Barrier(ctx, 1, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v: want the cancellation itself", err)
	}
	if _, ok := sparkerr.As(err); ok {
		t.Fatalf("a cancellation was wrapped as the function's error: %v", err)
	}
}
