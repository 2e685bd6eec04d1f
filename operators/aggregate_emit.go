package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// A streaming aggregate's changelog. A group's row downstream is its result as it was when it
// was last emitted; the aggregate keeps no copy of it, only a flag (emitted) per group: as long
// as the group has not changed since, its accumulators still give that row. The first time an
// epoch changes a group that has a row out, the aggregate computes that row's aggregate values
// (acc.Result, for all the batch's such groups at once) before feeding the batch, and keeps
// them as Arrow arrays until the barrier. At the barrier every changed group emits, in id
// order, the retraction of its old row (if it had one out) and its new row (if it is live).
// Like Spark's update mode, a group touched by the epoch emits even when its value came out
// the same.

// oldRows are the aggregate values of the rows out downstream of the epoch's changed groups,
// captured before their first change.
type oldRows struct {
	// pos is, per group, 1 + the row of its old values in the captures, 0 when none.
	pos []uint32
	// chunks are the captures in order, each one array per aggregate.
	chunks [][]arrow.Array
	n      int
}

// capture records the current results of groups gs as their old rows.
func (o *oldRows) capture(a *hashAggregate, gs []uint32) error {
	chunk := make([]arrow.Array, 0, len(a.accs))
	for _, acc := range a.accs {
		r, err := acc.Result(a.ctx, gs)
		if err != nil {
			releaseAll(chunk)
			return err
		}
		chunk = append(chunk, r)
	}
	o.chunks = append(o.chunks, chunk)
	for i, g := range gs {
		o.pos[g] = uint32(o.n + i + 1)
	}
	o.n += len(gs)
	return nil
}

// column is aggregate k's values at rows src of the captured old rows followed by cur (src
// indices from n on address cur). It releases nothing it is given.
func (o *oldRows) column(a *hashAggregate, k int, cur arrow.Array, src []int64) (arrow.Array, error) {
	if o.n == 0 && isIdentity(src) && len(src) == cur.Len() {
		cur.Retain()
		return cur, nil
	}
	parts := make([]arrow.Array, 0, len(o.chunks)+1)
	for _, c := range o.chunks {
		parts = append(parts, c[k])
	}
	parts = append(parts, cur)
	all, err := array.Concatenate(parts, a.env.Mem)
	if err != nil {
		return nil, sparkerr.Internal("aggregate: concatenating results: %v", err).Wrap(err)
	}
	defer all.Release()
	out, err := take(a.env.Mem, []arrow.Array{all}, src, nil)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// reset drops the captures (the per-group positions are cleared by the emission).
func (o *oldRows) reset() {
	for _, c := range o.chunks {
		releaseAll(c)
	}
	o.chunks, o.n = nil, 0
}

// touch marks groups changed; for a streaming aggregate it first captures the old rows of the
// groups that had a row out and change for the first time this epoch.
func (a *hashAggregate) touch(groups []uint32) error {
	if !a.spec.Streaming {
		return nil
	}
	var first []uint32
	for _, g := range groups {
		if a.changed[g] {
			continue
		}
		a.changed[g] = true
		if a.emitted[g] {
			first = append(first, g)
		}
	}
	if len(first) == 0 {
		return nil
	}
	return a.old.capture(a, first)
}

// emitChanges emits, for each changed group in id order, the retraction of its row out (if
// any) and its new row (if live).
func (a *hashAggregate) emitChanges(ctx context.Context, out flow.Emitter) error {
	defer a.old.reset()
	var changed, fresh []uint32
	for g, c := range a.changed {
		if !c {
			continue
		}
		a.changed[g] = false
		changed = append(changed, uint32(g))
		if a.live(uint32(g)) {
			fresh = append(fresh, uint32(g))
		}
	}
	if len(changed) == 0 {
		return nil
	}
	rowGroups := make([]uint32, 0, len(changed)+len(fresh))
	src := make([]int64, 0, cap(rowGroups))
	retracted := make([]bool, 0, cap(rowGroups))
	next := int64(a.old.n)
	for _, g := range changed {
		if a.emitted[g] {
			p := a.old.pos[g]
			if p == 0 {
				return sparkerr.Internal("aggregate: group %d changed without its emitted row captured", g)
			}
			rowGroups, src, retracted = append(rowGroups, g), append(src, int64(p-1)), append(retracted, true)
		}
		a.old.pos[g] = 0
		live := a.live(g)
		if live {
			rowGroups, src, retracted = append(rowGroups, g), append(src, next), append(retracted, false)
			next++
		}
		a.emitted[g] = live
	}
	if len(rowGroups) == 0 {
		return nil
	}
	cols, err := a.keyColumns(rowGroups)
	if err != nil {
		return err
	}
	defer func() { releaseAll(cols) }()
	for k, acc := range a.accs {
		cur, err := acc.Result(a.ctx, fresh)
		if err != nil {
			return err
		}
		col, err := a.old.column(a, k, cur, src)
		cur.Release()
		if err != nil {
			return err
		}
		cols = append(cols, col)
	}
	r := boolArray(a.env.Mem, retracted)
	defer r.Release()
	return emitInChunks(ctx, a.env, out, cols, r)
}

// keyColumns builds the key columns of groups gs (one row per entry) from the key table's
// stored batches.
func (a *hashAggregate) keyColumns(gs []uint32) ([]arrow.Array, error) {
	cols := make([]arrow.Array, 0, len(a.outTypes))
	if len(a.spec.KeyCols) == 0 {
		return cols, nil
	}
	keys, err := a.table.gather(a.env.Mem, gs)
	if err != nil {
		return nil, err
	}
	for k, col := range keys {
		if keys[k], err = a.conformKey(k, col); err != nil {
			releaseAll(keys[k+1:])
			releaseAll(keys[:k])
			return nil, err
		}
	}
	return append(cols, keys...), nil
}

// conformKey returns key column k (taking over col) with the output's Arrow type: a key stored
// with another Arrow type than the output's (a time zone of its own) is rebuilt from its values.
func (a *hashAggregate) conformKey(k int, col arrow.Array) (arrow.Array, error) {
	if a.env.OutSchema == nil {
		return col, nil
	}
	want := a.env.OutSchema.Field(flow.UserOffset + k).Type
	if arrow.TypeEqual(col.DataType(), want) {
		return col, nil
	}
	vals := make([]any, col.Len())
	for i := range vals {
		vals[i] = expr.ValueAt(col, i, a.spec.KeyTypes[k])
	}
	col.Release()
	rebuilt := expr.BuildArray(a.env.Mem, a.spec.KeyTypes[k], a.spec.TZ, vals)
	if !arrow.TypeEqual(rebuilt.DataType(), want) {
		defer rebuilt.Release()
		return nil, sparkerr.Internal("aggregate: key %d has type %s, the output %s", k, rebuilt.DataType(), want)
	}
	return rebuilt, nil
}
