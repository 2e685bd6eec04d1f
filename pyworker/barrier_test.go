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
		run, joined := b.run, b.joined
		b.mu.Unlock()
		if run != nil || joined != 0 {
			t.Fatalf("after stage %d: listener run %v, %d tasks joined; want none", stage, run, joined)
		}
	}
	p.Close()
	alloc.AssertSize(t, 0)
	checkNoLeaks(t, base)
}

// TestBarrierRejoinWhileStopping has tasks join and leave a barrier over and over from two
// goroutines, so a join often starts a new run while the last leave of the previous run still
// waits for its goroutines (each run has its own WaitGroup: under -race a shared one was reused
// before its Wait returned). Every run ends with its listener closed and nothing left joined.
func TestBarrierRejoinWhileStopping(t *testing.T) {
	base := snapshot(t)
	b := NewBarrier(2)
	var wg sync.WaitGroup
	for part := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if _, _, err := b.join(part); err != nil {
					t.Error(err)
					return
				}
				b.leave()
			}
		}()
	}
	wg.Wait()
	b.mu.Lock()
	run, joined := b.run, b.joined
	b.mu.Unlock()
	if run != nil || joined != 0 {
		t.Fatalf("listener run %v, %d tasks joined; want none", run, joined)
	}
	checkNoLeaks(t, base)
}
