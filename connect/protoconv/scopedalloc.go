package protoconv

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// scopedAllocator forwards to a parent allocator and, while tracking, remembers the buffers it
// handed out that are still live and refuses to exceed a byte budget (a corrupt length in an
// IPC message would otherwise make the reader allocate gigabytes). arrow-go's IPC reader recovers from panics on malformed
// streams without freeing the buffers it allocated before the panic; after a failed decode
// (and after releasing the records it did produce) freeLive returns those buffers to the parent.
// Once a decode succeeds, detach stops the bookkeeping; buffers of the retained records still
// free through this allocator, which forwards to the parent.
type scopedAllocator struct {
	parent memory.Allocator

	mu       sync.Mutex
	tracking bool
	live     map[*byte][]byte
	used     int
	budget   int
}

// errAllocationBudget is the panic value when a decode exceeds its budget; the IPC reader (or
// decodeIPC) recovers it into an error.
type errAllocationBudget struct{ budget int }

func (e errAllocationBudget) Error() string {
	return "decoding needs more than " + itoa(int64(e.budget)) + " bytes"
}

func newScopedAllocator(parent memory.Allocator, budget int) *scopedAllocator {
	return &scopedAllocator{parent: parent, tracking: true, live: map[*byte][]byte{}, budget: budget}
}

// reserve accounts size more bytes, panicking past the budget.
func (a *scopedAllocator) reserve(size int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.tracking {
		return
	}
	if size > a.budget-a.used {
		panic(errAllocationBudget{a.budget})
	}
	a.used += size
}

func bufferKey(b []byte) *byte {
	if cap(b) == 0 {
		return nil
	}
	return &b[:1][0]
}

// remember records b, whose size was reserved; a zero-capacity b gives the reservation back.
func (a *scopedAllocator) remember(b []byte, size int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.tracking {
		return
	}
	if k := bufferKey(b); k != nil {
		a.live[k] = b
	} else {
		a.used -= size
	}
}

func (a *scopedAllocator) forget(b []byte) {
	if k := bufferKey(b); k != nil {
		a.mu.Lock()
		if old, ok := a.live[k]; ok {
			a.used -= len(old)
			delete(a.live, k)
		}
		a.mu.Unlock()
	}
}

// Allocate implements memory.Allocator.
func (a *scopedAllocator) Allocate(size int) []byte {
	a.reserve(size)
	b := a.parent.Allocate(size)
	a.remember(b, size)
	return b
}

// Reallocate implements memory.Allocator.
func (a *scopedAllocator) Reallocate(size int, b []byte) []byte {
	a.forget(b)
	a.reserve(size)
	nb := a.parent.Reallocate(size, b)
	a.remember(nb, size)
	return nb
}

// Free implements memory.Allocator.
func (a *scopedAllocator) Free(b []byte) {
	a.forget(b)
	a.parent.Free(b)
}

// freeLive frees every buffer still live and stops tracking.
func (a *scopedAllocator) freeLive() {
	a.mu.Lock()
	leaked := a.live
	a.live, a.tracking = map[*byte][]byte{}, false
	a.mu.Unlock()
	for _, b := range leaked {
		a.parent.Free(b)
	}
}

// detach stops tracking; live buffers now belong to the records that hold them.
func (a *scopedAllocator) detach() {
	a.mu.Lock()
	a.live, a.tracking = map[*byte][]byte{}, false
	a.mu.Unlock()
}
