package pyworker

import (
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestBarrierStage runs a barrier stage of three mapInArrow tasks whose function calls
// BarrierTaskContext.barrier(), allGather(its partition id) and barrier() again: each task
// sees every partition's message in partition order, and once the stage ended the barrier's
// listener and connections are gone (no leak), and a second stage on the same barrier works.
func TestBarrierStage(t *testing.T) {
	base := snapshot(t)
	p := newTestPool(t, 3)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	b := NewBarrier(3)
	for stage := range 2 {
		var wg sync.WaitGroup
		got := make([][]string, 3)
		errs := make([]error, 3)
		for part := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tk := task(t, SQLMapArrowIterUDF, alloc, UDF{Command: command(t, "map_barrier")})
				tk.PartitionIndex, tk.Barrier = part, b
				got[part], _, errs[part] = run(t, p, tk, one(longs(alloc, []string{"id"}, []any{10*part + stage})))
			}()
		}
		wg.Wait()
		for part := range 3 {
			checkRows(t, fmt.Sprintf("stage %d partition %d", stage, part), got[part], errs[part],
				fmt.Sprintf("id=%d all=0,1,2", 10*part+stage))
		}
		b.mu.Lock()
		ln, joined := b.ln, b.joined
		b.mu.Unlock()
		if ln != nil || joined != 0 {
			t.Fatalf("after stage %d: listener %v, %d tasks joined; want none", stage, ln, joined)
		}
	}
	p.Close()
	alloc.AssertSize(t, 0)
	checkNoLeaks(t, base)
}
