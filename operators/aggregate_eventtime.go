package operators

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The hash aggregate's event-time behaviour (AggregateSpec.EventTime): the watermark drops late
// rows, closes groups, emits them (append mode) and evicts them.

// Watermark implements flow.WatermarkHandler: the watermark takes effect for the rows that
// follow. In append mode the groups it closes are emitted at once, so that they travel ahead of
// the watermark (a stateful operator downstream must not find them late); in update mode
// closed groups are evicted at the barrier, after the epoch's changes went out.
func (a *hashAggregate) Watermark(ctx context.Context, ts int64, out flow.Emitter) error {
	a.watermark = max(a.watermark, ts)
	if a.spec.Streaming && a.spec.Append && a.spec.EventTime != nil {
		return a.emitEpoch(ctx, out)
	}
	return nil
}

// RowsDroppedByWatermark is how many late input rows this instance dropped; safe to call from
// any goroutine.
func (a *hashAggregate) RowsDroppedByWatermark() int64 { return a.dropped.Load() }

// evicting reports whether the aggregate drops late rows and evicts closed groups.
func (a *hashAggregate) evicting() bool {
	return a.spec.EventTime != nil && a.spec.EventTime.Evict && a.watermark != math.MinInt64
}

// lateRows returns the rows of rec whose event-time key the watermark already closed.
func (a *hashAggregate) lateRows(rec arrow.RecordBatch) []bool {
	if !a.evicting() {
		return nil
	}
	col := rec.Column(flow.UserOffset + a.spec.KeyCols[a.spec.EventTime.Key])
	times := eventTimeValues(col)
	var late []bool
	for i, t := range times {
		if t != noTime && t <= a.watermark {
			if late == nil {
				late = make([]bool, len(times))
			}
			late[i] = true
		}
	}
	return late
}

// dropLate counts and removes the late rows of rec; nil when none is left.
func (a *hashAggregate) dropLate(rec arrow.RecordBatch, late []bool) (arrow.RecordBatch, error) {
	var keep []int64
	var n int64
	for i, l := range late {
		if l {
			n++
		} else {
			keep = append(keep, int64(i))
		}
	}
	a.dropped.Add(n)
	if a.spec.Dropped != nil {
		a.spec.Dropped.Add(n)
	}
	if len(keep) == 0 {
		return nil, nil
	}
	return takeRecord(a.env.Mem, rec, keep)
}

// closes reports whether the watermark closed group g.
func (a *hashAggregate) closes(g uint32) bool {
	k := a.spec.EventTime.Key
	t := a.spec.KeyTypes[k]
	v := a.table.keyValue(g, k, t)
	if t.Kind == sqltypes.Struct {
		w, ok := v.([]any)
		if !ok || len(w) < 2 {
			return false
		}
		v = w[len(w)-1]
		for i, f := range t.Fields {
			if f.Name == "end" {
				v = w[i]
			}
		}
	}
	ts, ok := v.(int64)
	return ok && ts <= a.watermark
}

// emitEpoch is a streaming aggregate's output at a barrier or end of data: changed groups
// (update and complete modes) or closed groups (append mode), then the eviction of closed
// groups; then, with a limited budget, the spill of what memory cannot keep.
func (a *hashAggregate) emitEpoch(ctx context.Context, out flow.Emitter) error {
	if err := a.emitAndEvict(ctx, out); err != nil {
		return err
	}
	return a.spillOver()
}

// appends reports whether the aggregate emits closed groups once (append mode) rather than a
// changelog.
func (a *hashAggregate) appends() bool { return a.spec.Append && a.spec.EventTime != nil }

func (a *hashAggregate) emitAndEvict(ctx context.Context, out flow.Emitter) error {
	if !a.appends() {
		if err := a.emitChanges(ctx, out); err != nil {
			return err
		}
		if !a.evicting() || len(a.spec.KeyCols) == 0 {
			return nil
		}
		if err := a.loadExpired(); err != nil {
			return err
		}
		a.evict(a.closedGroups())
		return nil
	}
	// Append: nothing is emitted until the watermark closes a group.
	for g := range a.changed {
		a.changed[g] = false
	}
	if a.watermark == math.MinInt64 {
		return nil
	}
	if err := a.loadExpired(); err != nil {
		return err
	}
	done := a.closedGroups()
	var live []uint32
	for _, g := range done {
		if a.live(g) {
			live = append(live, g)
		}
	}
	a.evict(done)
	for lo := 0; lo < len(live); lo += BatchRows {
		cols, err := a.rows(live[lo:min(len(live), lo+BatchRows)])
		if err != nil {
			return err
		}
		err = emitColumns(ctx, a.env, out, cols, nil)
		releaseAll(cols)
		if err != nil {
			return err
		}
	}
	return nil
}

// closedGroups lists the open groups the watermark closed, in id order.
func (a *hashAggregate) closedGroups() []uint32 {
	var out []uint32
	for g := range a.counts {
		if !a.closed[g] && a.closes(uint32(g)) {
			out = append(out, uint32(g))
		}
	}
	return out
}

// evict removes groups from the state: they no longer count, emit or retract. (Their key rows
// stay in the key table so that late rows find them closed; accumulator slots are not reused.)
func (a *hashAggregate) evict(gs []uint32) {
	a.evicted += int64(len(gs))
	for _, g := range gs {
		a.closed[g] = true
		a.counts[g] = 0
		a.changed[g] = false
		a.emitted[g] = false
		a.old.pos[g] = 0
	}
}
