package flow

import (
	"errors"
	"fmt"
	"github.com/weirhq/weir/conf"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
)

// MemoryBudget is one query's memory account: a memory.Allocator over the session's allocator
// that counts the bytes the query's Arrow buffers hold, plus Go-side buffers its operators and
// sources declare with Reserve. Once an allocation would take the total past the limit it is
// refused: Reserve returns the error, Allocate and Reallocate (which cannot return one, and
// which Arrow builders call) panic with it. The runtime recovers that panic in the task that
// made the allocation and fails the job with the error (IsOutOfMemory), so the query fails
// and the process goes on; closing the job releases what it buffered, returning the bytes.
//
// A limit ≤ 0 counts without refusing. A MemoryBudget is safe for concurrent use.
type MemoryBudget struct {
	mem   memory.Allocator
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// NewMemoryBudget returns a budget of limit bytes over mem (the default allocator when nil).
func NewMemoryBudget(mem memory.Allocator, limit int64) *MemoryBudget {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	return &MemoryBudget{mem: mem, limit: limit}
}

// Limit returns the budget in bytes (≤ 0: unlimited).
func (b *MemoryBudget) Limit() int64 { return b.limit }

// Used returns the bytes currently counted.
func (b *MemoryBudget) Used() int64 { return b.used.Load() }

// Peak returns the most bytes counted at once.
func (b *MemoryBudget) Peak() int64 { return b.peak.Load() }

// Reserve counts n more bytes, or returns Spark's UNABLE_TO_ACQUIRE_MEMORY error (counting
// nothing) when they do not fit. n ≤ 0 always fits.
func (b *MemoryBudget) Reserve(n int64) error {
	if n <= 0 {
		return nil
	}
	for {
		used := b.used.Load()
		if b.limit > 0 && used+n > b.limit {
			return outOfMemory(n, used, b.limit)
		}
		if b.used.CompareAndSwap(used, used+n) {
			for p := b.peak.Load(); used+n > p && !b.peak.CompareAndSwap(p, used+n); p = b.peak.Load() {
			}
			return nil
		}
	}
}

// Release returns n reserved bytes.
func (b *MemoryBudget) Release(n int64) {
	if n > 0 {
		b.used.Add(-n)
	}
}

// Allocate implements memory.Allocator; it panics with the budget's error when size does not fit.
func (b *MemoryBudget) Allocate(size int) []byte {
	if err := b.Reserve(int64(size)); err != nil {
		panic(err)
	}
	return b.mem.Allocate(size)
}

// Reallocate implements memory.Allocator; it panics with the budget's error when the growth
// does not fit.
func (b *MemoryBudget) Reallocate(size int, buf []byte) []byte {
	grow := int64(size) - int64(len(buf))
	if err := b.Reserve(grow); err != nil {
		panic(err)
	}
	out := b.mem.Reallocate(size, buf)
	if grow < 0 {
		b.Release(-grow)
	}
	return out
}

// Free implements memory.Allocator.
func (b *MemoryBudget) Free(buf []byte) {
	b.Release(int64(len(buf)))
	b.mem.Free(buf)
}

// outOfMemory is Spark's sparkerr.SparkOutOfMemoryError for a refused acquisition of n bytes, with what
// the query holds, its budget and the conf that raises it.
func outOfMemory(n, used, limit int64) *sparkerr.Error {
	return sparkerr.UnableToAcquireMemory(n, 0, fmt.Sprintf("The query holds %d bytes of its memory budget of %d bytes; "+
		"set %s to a larger size (e.g. \"4g\") to run it.", used, limit, conf.QueryMemoryBudgetKey))
}

// IsOutOfMemory reports whether err is, or has as a cause, a refused memory acquisition.
func IsOutOfMemory(err error) bool {
	for err != nil {
		if e, ok := err.(*sparkerr.Error); ok && e.Class == "UNABLE_TO_ACQUIRE_MEMORY" {
			return true
		}
		err = errors.Unwrap(err)
	}
	return false
}

// recoveredError turns a value recovered from a panic in a task into the job's error: a
// refused memory acquisition is the query's error as it is; anything else is a bug in the
// panicking node.
func recoveredError(r any, node string, partition int) error {
	if err, ok := r.(error); ok && IsOutOfMemory(err) {
		return err
	}
	return fmt.Errorf("flow: node %q partition %d panicked: %v", node, partition, r)
}

// Reserve counts n Go-side bytes (buffers that are not Arrow allocations: line buffers, rows
// held by an operator) against env's budget; without a budget it always succeeds.
func (env Env) Reserve(n int64) error {
	if env.Budget == nil {
		return nil
	}
	return env.Budget.Reserve(n)
}

// Release returns n bytes Reserve counted.
func (env Env) Release(n int64) {
	if env.Budget != nil {
		env.Budget.Release(n)
	}
}
