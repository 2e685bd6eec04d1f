package sources

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
)

// countingAllocator counts Allocate calls of the id buffers' size.
type countingAllocator struct {
	memory.Allocator
	full int
}

func (c *countingAllocator) Allocate(size int) []byte {
	if size == idBufferBytes {
		c.full++
	}
	return c.Allocator.Allocate(size)
}

// holder keeps every third batch until the end (its buffer must not be reused while held) and
// releases the others at once (theirs may be).
type holder struct{ held []arrow.RecordBatch }

func (h *holder) Emit(_ context.Context, rec arrow.RecordBatch) error {
	if rec.Column(flow.UserOffset).(*array.Int64).Value(0)/RangeBatchRows%3 == 0 && rec.NumRows() == RangeBatchRows {
		h.held = append(h.held, rec)
		return nil
	}
	rec.Release()
	return nil
}

// A Range partition reuses the buffers of batches every holder released, never one still held,
// and returns every byte to the allocator once the source ended and the batches are released.
func TestRangeReusesReleasedIDBuffers(t *testing.T) {
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer checked.AssertSize(t, 0)
	mem := &countingAllocator{Allocator: checked}
	const batches = 60
	h := &holder{}
	r := Range{Start: 0, End: batches*RangeBatchRows + 5, Step: 1}
	if err := r.Run(context.Background(), flow.Env{Mem: mem, Partitions: 1, OutSchema: idSchema}, h); err != nil {
		t.Fatal(err)
	}
	if len(h.held) != batches/3 {
		t.Fatalf("held %d batches, want %d", len(h.held), batches/3)
	}
	for _, rec := range h.held {
		ids := rec.Column(flow.UserOffset).(*array.Int64).Int64Values()
		for i, id := range ids {
			if id != ids[0]+int64(i) || ids[0]/RangeBatchRows%3 != 0 {
				t.Fatalf("held batch from %d: id %d at %d (its buffer was reused)", ids[0], id, i)
			}
		}
		rec.Release()
	}
	// Each held batch needs its own buffer; the released ones share one.
	if want := batches/3 + 1; mem.full != want {
		t.Fatalf("%d id buffers allocated for %d batches, want %d", mem.full, batches, want)
	}
}
