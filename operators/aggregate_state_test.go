package operators

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// aggregateWithGroups builds a streaming count/sum aggregate holding n groups (keys 0..n-1).
func aggregateWithGroups(tb testing.TB, mem memory.Allocator, n int) flow.Operator {
	tb.Helper()
	in := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	op := aggregateWithBudget(tb, mem, state.Budget{})
	for lo := 0; lo < n; lo += 65536 {
		b := array.NewInt64Builder(mem)
		for v := lo; v < min(n, lo+65536); v++ {
			b.Append(int64(v))
		}
		a := b.NewArray()
		b.Release()
		rec := flow.NewDataBatch(mem, flow.EventSchema(in), []arrow.Array{a}, nil)
		a.Release()
		if err := op.Process(context.Background(), 0, rec, nil); err != nil {
			tb.Fatal(err)
		}
		rec.Release()
	}
	return op
}

// snapshotAndRestore builds an aggregate of n groups and a new instance restored from its
// snapshot. The caller closes both.
func snapshotAndRestore(t *testing.T, mem memory.Allocator, n int) (op, restored flow.Operator) {
	t.Helper()
	op = aggregateWithGroups(t, mem, n)
	data, err := op.(flow.Snapshotter).SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	restored = aggregateWithGroups(t, mem, 0)
	if err := restored.(flow.Snapshotter).RestoreState(data); err != nil {
		t.Fatal(err)
	}
	return op, restored
}

func TestAggregateSnapshotRestoresEveryGroup(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	op, restored := snapshotAndRestore(t, mem, 100_000)
	defer op.(flow.Closer).Close()
	defer restored.(flow.Closer).Close()
	a, b := op.(*hashAggregate), restored.(*hashAggregate)
	if len(a.counts) != len(b.counts) {
		t.Fatalf("%d groups restored, want %d", len(b.counts), len(a.counts))
	}
	for _, g := range []uint32{0, 1, 4095, 65536, 99_999} {
		if got, want := b.table.keyValue(g, 0, sqltypes.LongType), a.table.keyValue(g, 0, sqltypes.LongType); got != want {
			t.Fatalf("group %d key %v, want %v", g, got, want)
		}
	}
	// Update mode: downstream has every group's row already; nothing is re-emitted.
	if m := b.StateMetrics(); m.NumRowsTotal != 100_000 || m.NumRowsUpdated != 0 {
		t.Fatalf("restored metrics %+v", m)
	}
}

// pushKeys feeds keys to op as one batch.
func pushKeys(tb testing.TB, mem memory.Allocator, op flow.Operator, keys ...int64) {
	tb.Helper()
	in := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	b.AppendValues(keys, nil)
	a := b.NewArray()
	b.Release()
	rec := flow.NewDataBatch(mem, flow.EventSchema(in), []arrow.Array{a}, nil)
	a.Release()
	defer rec.Release()
	if err := op.Process(context.Background(), 0, rec, nil); err != nil {
		tb.Fatal(err)
	}
}

// A capture taken at a barrier encodes the state as it was then, whatever the instance
// processes before the encoding runs (new groups, updated counts and sums).
func TestAggregateCaptureIsImmutable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	op := aggregateWithGroups(t, mem, 1000)
	want, err := op.(flow.Snapshotter).SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	capture, err := op.(flow.StateCapturer).CaptureState(1)
	if err != nil {
		t.Fatal(err)
	}
	pushKeys(t, mem, op, 1, 2, 3, 5000, 5001)
	op.(flow.Closer).Close()
	got, err := capture.Encode()
	capture.Release()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("capture encodes %d bytes differing from the snapshot at the barrier (%d bytes)", len(got), len(want))
	}
	restored := aggregateWithGroups(t, mem, 0)
	defer restored.(flow.Closer).Close()
	if err := restored.(flow.Snapshotter).RestoreState(got); err != nil {
		t.Fatal(err)
	}
	r := restored.(*hashAggregate)
	if len(r.counts) != 1000 || r.counts[1] != 1 {
		t.Fatalf("restored %d groups, group 1 count %d", len(r.counts), r.counts[1])
	}
	// The restored table finds existing keys and adds new ones after them.
	pushKeys(t, mem, restored, 1, 999, 1000, 1000)
	if len(r.counts) != 1001 || r.counts[1] != 2 || r.counts[999] != 2 || r.counts[1000] != 2 {
		t.Fatalf("after restore: %d groups, counts %d %d %d", len(r.counts), r.counts[1], r.counts[999], r.counts[1000])
	}
}

// BenchmarkAggregateSnapshot1M reports, for 1M groups, the capture (the synchronous part at a
// barrier), the encoding of the capture (in the background), and the restore.
func BenchmarkAggregateSnapshot1M(b *testing.B) {
	mem := memory.NewGoAllocator()
	op := aggregateWithGroups(b, mem, 1_000_000)
	defer op.(flow.Closer).Close()
	var data []byte
	var capture, encode, restore time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c, err := op.(flow.StateCapturer).CaptureState(int64(i))
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if data, err = c.Encode(); err != nil {
			b.Fatal(err)
		}
		c.Release()
		t2 := time.Now()
		r := aggregateWithGroups(b, mem, 0)
		if err := r.(flow.Snapshotter).RestoreState(data); err != nil {
			b.Fatal(err)
		}
		restore += time.Since(t2)
		capture += t1.Sub(t0)
		encode += t2.Sub(t1)
		r.(flow.Closer).Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(capture.Microseconds())/1000/n, "capture-ms")
	b.ReportMetric(float64(encode.Microseconds())/1000/n, "encode-ms")
	b.ReportMetric(float64(restore.Microseconds())/1000/n, "restore-ms")
	b.ReportMetric(float64(len(data))/1e6, "MB")
}

// Restoring keys whose hashes collide (a hash function with three values here) still finds
// every group by its key.
func TestAggregateRestoreWithCollidingHashes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	real := hashColumns
	hashColumns = func(cols []arrow.Array, seed uint64, out []uint64) {
		real(cols, seed, out)
		for i := range out {
			out[i] %= 3
		}
	}
	defer func() { hashColumns = real }()
	op, restored := snapshotAndRestore(t, mem, 100)
	defer op.(flow.Closer).Close()
	defer restored.(flow.Closer).Close()
	r := restored.(*hashAggregate)
	pushKeys(t, mem, restored, 0, 42, 99, 100)
	if len(r.counts) != 101 || r.counts[0] != 2 || r.counts[42] != 2 || r.counts[99] != 2 || r.counts[100] != 1 {
		t.Fatalf("after restore: %d groups, counts %d %d %d %d", len(r.counts), r.counts[0], r.counts[42], r.counts[99], r.counts[100])
	}
	if got := r.table.keyValue(42, 0, sqltypes.LongType); got != int64(42) {
		t.Fatalf("group 42 has key %v", got)
	}
}
