package operators

import (
	"context"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
)

// A batch aggregate's groups come out in the order of their first row when the partition's
// input is read sender by sender (producer partition 0's rows first, each sender's in order), as
// Spark's HashAggregate emits its groups in insertion order while its shuffle read takes the map
// outputs in map order. The local runner interleaves different senders' batches as they arrive,
// so first appearance in arrival order would be a race; ranking each group by its first row in
// sender order makes the order deterministic, and the same for the builtin aggregate and
// AggregateInPython over the same input (PySpark compares groupBy().agg(pandas_udf) with
// groupBy().agg(sum) unsorted).

// firstRows ranks groups by their first row in sender order.
type firstRows struct {
	// seen counts the rows received per sender.
	seen []int64
	// rank is, per group id, sender<<40 | the sender's row number of the group's first row.
	rank []uint64
	// top is at least every rank set (ranks only ever decrease).
	top uint64
}

// note records that the next len(groups) rows of sender belong to groups (dense group ids
// below ngroups, the number of groups so far). When every group already has a rank and all
// ranks are below this batch's first row, no row of it can lower one: the scan is skipped
// (the common case of a partition reading its own input, one sender in order).
func (f *firstRows) note(sender int, groups []uint32, ngroups int) {
	for len(f.seen) <= sender {
		f.seen = append(f.seen, 0)
	}
	base := uint64(sender)<<40 | uint64(f.seen[sender])
	f.seen[sender] += int64(len(groups))
	if ngroups <= len(f.rank) && f.top < base {
		return
	}
	for i, g := range groups {
		for int(g) >= len(f.rank) {
			f.rank = append(f.rank, math.MaxUint64)
		}
		if r := base + uint64(i); r < f.rank[g] {
			if f.rank[g] == math.MaxUint64 {
				f.top = max(f.top, r)
			}
			f.rank[g] = r
		}
	}
}

// sort orders gs (group ids noted before) by their first rows.
func (f *firstRows) sort(gs []uint32) {
	slices.SortFunc(gs, func(a, b uint32) int {
		ra, rb := uint64(math.MaxUint64), uint64(math.MaxUint64)
		if int(a) < len(f.rank) {
			ra = f.rank[a]
		}
		if int(b) < len(f.rank) {
			rb = f.rank[b]
		}
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return int(a) - int(b)
	})
}

// ProcessFrom implements flow.SenderAware: the sender ranks the batch aggregate's groups.
func (a *hashAggregate) ProcessFrom(ctx context.Context, in, sender int, rec arrow.RecordBatch, out flow.Emitter) error {
	a.sender = sender
	return a.Process(ctx, in, rec, out)
}

// SenderEnded implements flow.SenderAware.
func (a *hashAggregate) SenderEnded(context.Context, int, int, flow.Emitter) error { return nil }

// ProcessFrom implements flow.SenderAware: the partition's rows are kept per sender.
func (p *pythonAgg) ProcessFrom(ctx context.Context, in, sender int, rec arrow.RecordBatch, out flow.Emitter) error {
	p.sender = sender
	return p.Process(ctx, in, rec, out)
}

// SenderEnded implements flow.SenderAware.
func (p *pythonAgg) SenderEnded(context.Context, int, int, flow.Emitter) error { return nil }
