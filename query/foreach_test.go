package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fakeForeachWriter records each task it runs; failAt fails the task of that epoch.
type fakeForeachWriter struct {
	mu     sync.Mutex
	tasks  map[[2]int64][]int64 // (epoch, partition) → values
	failAt int64
}

func (w *fakeForeachWriter) Write(_ context.Context, partition int, epoch int64, schema sqltypes.Schema, recs []arrow.RecordBatch) error {
	if len(schema) != 1 || schema[0].Name != "value" {
		return fmt.Errorf("schema %v", schema)
	}
	var vals []int64
	for _, rec := range recs {
		vals = append(vals, rec.Column(0).(*array.Int64).Int64Values()...)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tasks == nil {
		w.tasks = map[[2]int64][]int64{}
	}
	w.tasks[[2]int64{epoch, int64(partition)}] = vals
	if epoch == w.failAt {
		return sparkerr.Newf("org.apache.spark.api.python.PythonException", "PYTHON_EXCEPTION", "38000",
			"An exception was thrown from the Python worker: Traceback ... ValueError: bad row")
	}
	return nil
}

// epoch returns the partitions' values of epoch, nil for a partition that ran no task.
func (w *fakeForeachWriter) epoch(e int64, partitions int) [][]int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([][]int64, partitions)
	for p := range out {
		if v, ok := w.tasks[[2]int64{e, int64(p)}]; ok {
			out[p] = append([]int64{}, v...)
			if out[p] == nil {
				out[p] = []int64{}
			}
		}
	}
	return out
}

// TestForeachSinkRunsOneTaskPerPartitionAndEpoch: each epoch runs the writer once per sink
// partition with that partition's rows, and a task's failure fails the query with the writer's
// error as the cause.
func TestForeachSinkRunsOneTaskPerPartitionAndEpoch(t *testing.T) {
	bubble(t, func(t *testing.T, m *Manager, mem *memory.CheckedAllocator) {
		w := &fakeForeachWriter{failAt: 1}
		id, s := newTestStream(t, 2)
		q := start(t, m, Spec{Plan: scan(id), OutputMode: flow.OutputAppend, Foreach: w})
		s.set(6)
		if err := q.ProcessAllAvailable(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := w.epoch(0, q.sinkPar)
		if slices.ContainsFunc(got, func(v []int64) bool { return v == nil }) {
			t.Fatalf("epoch 0 tasks %v, want one per partition of %d", got, q.sinkPar)
		}
		if all := sorted(slices.Concat(got...)); !slices.Equal(all, values(0, 6)) {
			t.Fatalf("epoch 0 rows %v", got)
		}
		p := progressOf(t, mustLast(t, q))
		if sink := p["sink"].(map[string]any); sink["description"] != "ForeachSink" || sink["numOutputRows"] != float64(6) {
			t.Fatalf("progress %v", p["sink"])
		}

		s.set(8)
		ended, err := q.AwaitTermination(context.Background(), nil)
		if !ended || err == nil {
			t.Fatalf("await: %t %v", ended, err)
		}
		var se *sparkerr.Error
		if !errors.As(err, &se) || se.Class != "STREAM_FAILED" || !strings.Contains(se.Error(), "ValueError: bad row") {
			t.Fatalf("error %v", err)
		}
		if cause, ok := sparkerr.As(se.Cause); !ok || cause.Class != "PYTHON_EXCEPTION" {
			t.Fatalf("cause %v", se.Cause)
		}
	})
}

func mustLast(t *testing.T, q *Query) string {
	t.Helper()
	p, ok := q.LastProgress()
	if !ok {
		t.Fatal("no progress")
	}
	return p
}

func TestForeachRefusesPartitionBy(t *testing.T) {
	m := newTestManager(memory.NewGoAllocator())
	_, err := m.Start(context.Background(), Spec{Plan: scan("refuse"), OutputMode: flow.OutputAppend,
		Foreach: &fakeForeachWriter{}, PartitionBy: []string{"value"}})
	if err == nil || err.Error() != "[_LEGACY_ERROR_TEMP_1197] 'foreach' does not support partitioning" {
		t.Fatalf("got %v", err)
	}
}
