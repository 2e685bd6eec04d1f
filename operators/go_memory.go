package operators

import "github.com/weirhq/weir/flow"

// goMemory is Go-side memory an operator holds outside Arrow's allocator (normalized sort keys,
// heaps, row indexes), counted against the query's budget (flow.Env.Reserve) so that the budget
// bounds what the operator really holds, not only its Arrow buffers.
type goMemory struct {
	env flow.Env
	n   int64
}

// grow counts n more bytes, or returns the budget's UNABLE_TO_ACQUIRE_MEMORY error (counting
// nothing); call it before making the allocation it stands for.
func (m *goMemory) grow(n int64) error {
	if err := m.env.Reserve(n); err != nil {
		return err
	}
	m.n += n
	return nil
}

// shrink returns n bytes grow counted.
func (m *goMemory) shrink(n int64) {
	n = min(n, m.n)
	m.env.Release(n)
	m.n -= n
}

// release returns every byte still counted.
func (m *goMemory) release() { m.shrink(m.n) }

// normBytes is the size of the normalized keys sortOrder.encode makes for n rows of keys
// columns (none when the keys do not normalize: they compare through the kept columns).
func (o *sortOrder) normBytes(n, keys int) int64 {
	if !o.normalized {
		return 0
	}
	return int64(n) * int64(keys) * 2 * 8
}
