package memory

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
)

// TestMemoryTableReadWhileWriting reads the memory sink's table from another goroutine while
// epochs commit, as a temp-view query does.
func TestMemoryTableReadWhileWriting(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	reg := &fakeRegistry{tables: map[string]*sinks.MemoryTable{}}
	defer reg.release()
	s, err := connectors.NewSink("memory", sinks.Env{QueryName: "q", Mode: flow.OutputComplete, Schema: sinktest.KeyedSchema, Tables: reg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	op, err := s.NewOperator(flow.Env{Mem: mem, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer op.(flow.Closer).Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			recs := reg.tables["q"].Snapshot()
			if n := len(sinktest.KeysOf(recs)); n != 0 && n != 1 {
				t.Errorf("snapshot has %d rows, want 0 or 1", n)
			}
			sinks.ReleaseRecords(recs)
		}
	}()
	ctx := context.Background()
	for e := int64(0); e < 100; e++ {
		var b arrow.RecordBatch
		if e == 0 {
			b = sinktest.KeyedBatch(mem, []int64{0}, false)
		} else {
			b = sinktest.KeyedBatch(mem, []int64{e - 1}, true)
			if err := op.Process(ctx, 0, b, nil); err != nil {
				t.Fatal(err)
			}
			b.Release()
			b = sinktest.KeyedBatch(mem, []int64{e}, false)
		}
		if err := op.Process(ctx, 0, b, nil); err != nil {
			t.Fatal(err)
		}
		b.Release()
		if err := op.(flow.BarrierHandler).Barrier(ctx, e, nil); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	recs := reg.tables["q"].Snapshot()
	defer sinks.ReleaseRecords(recs)
	if got := sinktest.KeysOf(recs); fmt.Sprint(got) != "[99]" {
		t.Fatalf("final table %v, want [99]", got)
	}
	if n := s.OutputRows(); n != 100 {
		t.Fatalf("OutputRows %d, want 100", n)
	}
}
