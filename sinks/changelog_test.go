package sinks

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sqltypes"
)

var keyedSchema = sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}}

// keyedBatch is a flow-event batch of keys; retract marks every row a retraction.
func keyedBatch(mem memory.Allocator, keys []int64, retract bool) arrow.RecordBatch {
	vals := make([]any, len(keys))
	flags := make([]bool, len(keys))
	for i, k := range keys {
		vals[i] = k
		flags[i] = retract
	}
	col := expr.BuildArray(mem, sqltypes.LongType, "UTC", vals)
	defer col.Release()
	b := array.NewBooleanBuilder(mem)
	b.AppendValues(flags, nil)
	ret := b.NewArray()
	b.Release()
	defer ret.Release()
	return flow.NewDataBatch(mem, flow.EventSchema(sqltypes.ToArrowSchema(keyedSchema, "UTC")), []arrow.Array{col}, ret)
}

func keysOf(recs []arrow.RecordBatch) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Column(0).(*array.Int64).Int64Values()...)
	}
	return out
}

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
	c := NewChangelog(Complete, mem)
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
		defer ReleaseRecords(recs)
		return keysOf(recs)
	}
	if got := commit(keyedBatch(mem, seq(0, 6000), false)); len(got) != 6000 {
		t.Fatalf("got %d rows, want 6000", len(got))
	}
	got := commit(keyedBatch(mem, seq(0, 5000), true))
	if fmt.Sprint(got) != fmt.Sprint(seq(5000, 6000)) {
		t.Fatalf("after retracting 0..4999 got %v", got)
	}
	if len(c.table.segs) != 1 || c.table.dead != 0 || c.table.live != 1000 {
		t.Fatalf("not compacted: %d segments, %d dead, %d live", len(c.table.segs), c.table.dead, c.table.live)
	}
	for k := int64(0); k < 300; k++ {
		commit(keyedBatch(mem, []int64{10000 + k}, false))
	}
	if len(c.table.segs) > compactMaxSegments {
		t.Fatalf("%d segments after 300 small epochs", len(c.table.segs))
	}
	got = commit(keyedBatch(mem, []int64{5000, 10000}, true))
	want := append(seq(5001, 6000), seq(10001, 10300)...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after compactions got %d rows %v..., want %d", len(got), got[:3], len(want))
	}
	// Retracting a row no longer in the table changes nothing.
	if got := commit(keyedBatch(mem, []int64{5000}, true)); len(got) != len(want) {
		t.Fatalf("retracting an absent row: %d rows, want %d", len(got), len(want))
	}
}
