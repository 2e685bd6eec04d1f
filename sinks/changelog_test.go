package sinks_test

import (
	"fmt"
	"github.com/weirhq/weir/flow"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/sinks"
)

func seq(from, to int64) []int64 {
	out := make([]int64, 0, to-from)
	for k := from; k < to; k++ {
		out = append(out, k)
	}
	return out
}

// TestResultTableCompacts checks that complete mode's table compacts its dead rows and many
// small segments while keeping the live rows in insertion order.
func TestResultTableCompacts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := sinks.NewChangelog(flow.OutputComplete, mem)
	defer c.Release()
	commit := func(batches ...arrow.RecordBatch) []int64 {
		for _, b := range batches {
			c.Add(b)
			b.Release()
		}
		recs, err := c.Commit()
		if err != nil {
			t.Fatal(err)
		}
		defer sinks.ReleaseRecords(recs)
		return sinktest.KeysOf(recs)
	}
	if got := commit(sinktest.KeyedBatch(mem, seq(0, 6000), false)); len(got) != 6000 {
		t.Fatalf("got %d rows, want 6000", len(got))
	}
	got := commit(sinktest.KeyedBatch(mem, seq(0, 5000), true))
	if fmt.Sprint(got) != fmt.Sprint(seq(5000, 6000)) {
		t.Fatalf("after retracting 0..4999 got %v", got)
	}
	if segs, dead, live := sinks.TableShape(c); segs != 1 || dead != 0 || live != 1000 {
		t.Fatalf("not compacted: %d segments, %d dead, %d live", segs, dead, live)
	}
	for k := int64(0); k < 300; k++ {
		commit(sinktest.KeyedBatch(mem, []int64{10000 + k}, false))
	}
	if segs, _, _ := sinks.TableShape(c); segs > sinks.CompactMaxSegments {
		t.Fatalf("%d segments after 300 small epochs", segs)
	}
	got = commit(sinktest.KeyedBatch(mem, []int64{5000, 10000}, true))
	want := append(seq(5001, 6000), seq(10001, 10300)...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after compactions got %d rows %v..., want %d", len(got), got[:3], len(want))
	}
	// Retracting a row no longer in the table changes nothing.
	if got := commit(sinktest.KeyedBatch(mem, []int64{5000}, true)); len(got) != len(want) {
		t.Fatalf("retracting an absent row: %d rows, want %d", len(got), len(want))
	}
}
