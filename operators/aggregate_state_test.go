package operators

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sqltypes"
)

// aggregateWithGroups builds a streaming count/sum aggregate holding n groups (keys 0..n-1).
func aggregateWithGroups(tb testing.TB, mem memory.Allocator, n int) flow.Operator {
	tb.Helper()
	in := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	k := &expr.Column{Index: 0, Name: "k", T: sqltypes.LongType}
	var aggs []expr.AggFunc
	for _, name := range []string{"count", "sum"} {
		f, err := expr.BindAggregate(name, []expr.Expr{k}, false, expr.Options{ANSI: true})
		if err != nil {
			tb.Fatal(err)
		}
		aggs = append(aggs, f)
	}
	out := flow.EventSchema(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64}, {Name: "sum", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	op, err := HashAggregate(&expr.Context{Mem: mem, ANSI: true}, AggregateSpec{KeyCols: []int{0},
		KeyTypes: []sqltypes.DataType{sqltypes.LongType}, Aggs: aggs, TZ: "UTC", Streaming: true})(
		flow.Env{Mem: mem, Partitions: 1, OutSchema: out})
	if err != nil {
		tb.Fatal(err)
	}
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

func TestAggregateSnapshotRestoresEveryGroup(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	op := aggregateWithGroups(t, mem, 100_000)
	defer op.(flow.Closer).Close()
	data, err := op.(flow.Snapshotter).SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	restored := aggregateWithGroups(t, mem, 0)
	defer restored.(flow.Closer).Close()
	if err := restored.(flow.Snapshotter).RestoreState(data); err != nil {
		t.Fatal(err)
	}
	a, b := op.(*hashAggregate), restored.(*hashAggregate)
	if len(a.counts) != len(b.counts) {
		t.Fatalf("%d groups restored, want %d", len(b.counts), len(a.counts))
	}
	for _, g := range []uint32{0, 1, 4095, 65536, 99_999} {
		if got, want := b.table.keyValue(g, 0, sqltypes.LongType), a.table.keyValue(g, 0, sqltypes.LongType); got != want {
			t.Fatalf("group %d key %v, want %v", g, got, want)
		}
	}
	if m := b.StateMetrics(); m.NumRowsTotal != 100_000 || m.NumRowsUpdated != 100_000 {
		t.Fatalf("restored metrics %+v", m)
	}
}

// BenchmarkAggregateSnapshot1M reports the synchronous snapshot and the restore of 1M groups.
func BenchmarkAggregateSnapshot1M(b *testing.B) {
	mem := memory.NewGoAllocator()
	op := aggregateWithGroups(b, mem, 1_000_000)
	defer op.(flow.Closer).Close()
	var data []byte
	var snap, restore time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		var err error
		if data, err = op.(flow.Snapshotter).SnapshotState(int64(i)); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		r := aggregateWithGroups(b, mem, 0)
		if err := r.(flow.Snapshotter).RestoreState(data); err != nil {
			b.Fatal(err)
		}
		restore += time.Since(t1)
		snap += t1.Sub(t0)
		r.(flow.Closer).Close()
	}
	b.ReportMetric(float64(snap.Milliseconds())/float64(b.N), "snapshot-ms")
	b.ReportMetric(float64(restore.Milliseconds())/float64(b.N), "restore-ms")
	b.ReportMetric(float64(len(data))/1e6, "MB")
}
