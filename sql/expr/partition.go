package expr

import "sync"

// partitionState is what nondeterministic expressions keep for one partition, as Spark's
// Nondeterministic.initialize(partitionIndex) does: random generators seeded with seed +
// partition index, monotonically_increasing_id's row count. Values are keyed by the
// expression's perPartition (shared by its copies).
type partitionState struct {
	index int
	mu    sync.Mutex
	vals  map[any]any
}

// ForPartition returns a copy of c evaluating partition index of a node (one operator
// instance): spark_partition_id() returns index, and random and row-id functions start their
// per-partition state afresh. Contexts made otherwise evaluate as partition 0, their state
// shared by every such context.
func (c *Context) ForPartition(index int) *Context {
	var x Context
	if c != nil {
		x = *c
	}
	x.part = &partitionState{index: index}
	return &x
}

// partitionIndex is the index of the partition c evaluates (0 without ForPartition).
func (c *Context) partitionIndex() int {
	if c == nil || c.part == nil {
		return 0
	}
	return c.part.index
}

// perPartition is one expression's per-partition value, made by init(partition index) on first
// use in a partition.
type perPartition[T any] struct {
	init func(partition int) T
	// shared is the value of contexts without partition state.
	once   sync.Once
	shared T
}

func newPerPartition[T any](init func(partition int) T) *perPartition[T] {
	return &perPartition[T]{init: init}
}

func (p *perPartition[T]) get(ctx *Context) T {
	if ctx == nil || ctx.part == nil {
		p.once.Do(func() { p.shared = p.init(0) })
		return p.shared
	}
	s := ctx.part
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.vals[p]; ok {
		return v.(T)
	}
	if s.vals == nil {
		s.vals = map[any]any{}
	}
	v := p.init(s.index)
	s.vals[p] = v
	return v
}
