package operators

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/weirhq/weir/sparkerr"
)

// A batch aggregate may carry the filter below it (AggregateSpec.Filter): the planner fuses a
// WHERE into the aggregate over it, so the kept rows go straight to the groups. When the
// aggregate only counts rows (no keys, every function count(*)), the kept rows are counted
// from the condition's bitmap and never copied; otherwise only the kept rows are gathered, as
// the filter operator would have, without a batch between two operators.

// filterRows evaluates spec.Filter over rec: k is the number of rows it keeps (NULL counts as
// false); kept is those rows, or nil when every row is kept (rec serves as is), none is, or
// the aggregate only needs their number (countsOnly).
func (a *hashAggregate) filterRows(rec arrow.RecordBatch) (kept arrow.RecordBatch, k int, err error) {
	res, err := evalAll(a.ctx, a.filterCond, rec)
	if err != nil {
		return nil, 0, err
	}
	defer releaseAll(res)
	b, ok := res[0].(*array.Boolean)
	if !ok {
		return nil, 0, sparkerr.Internal("aggregate filter evaluated to %s", res[0].DataType())
	}
	n := b.Len()
	if b.NullN() == 0 {
		k = bitutil.CountSetBits(b.Data().Buffers()[1].Bytes(), b.Data().Offset(), n)
		if k == 0 || k == n || a.countsOnly {
			return nil, k, nil
		}
	}
	idx := selectedRows(b)
	k = len(idx)
	if k == 0 || k == n || a.countsOnly {
		return nil, k, nil
	}
	kept, err = takeRecord(a.env.Mem, rec, idx)
	return kept, k, err
}

// countRows feeds k rows to a global aggregate of count(*) functions (countsOnly).
func (a *hashAggregate) countRows(k int) error {
	if cap(a.groups) < k {
		a.groups = make([]uint32, k)
	}
	groups := a.groups[:k] // all zero: a global aggregate's one group
	a.counts[0] += int64(k)
	for _, acc := range a.accs {
		if err := acc.Update(groups, nil); err != nil {
			return err
		}
	}
	return nil
}
