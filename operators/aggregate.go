package operators

import (
	"context"
	"math"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// AggregateSpec describes a hash aggregation. Group keys are input columns (the planner
// projects evaluated grouping expressions into columns before the exchange); aggregate
// arguments are evaluated over the input's user columns. Output: the keys, then the aggregates.
type AggregateSpec struct {
	KeyCols  []int
	KeyTypes []sqltypes.DataType
	Aggs     []expr.AggFunc
	// TZ is the session time zone timestamp key columns are built with.
	TZ string
	// Streaming emits, at every aligned barrier (and at end of data), the groups that changed
	// since the last emission: a retraction of the row emitted before (if any) then the new row
	// (none when the group became empty). Batch (false) emits every group once at end of data.
	Streaming bool
	// EventTime, when set, is the grouping key on the watermarked event time: the aggregate
	// follows the watermark (see EventTimeKey). Nil: watermarks are ignored.
	EventTime *EventTimeKey
	// Append (streaming, with EventTime) emits each group once, as an insert, when the
	// watermark closes it, and never emits changes (append output mode).
	Append bool
	// Complete (streaming) is set when the output is complete mode: a restored aggregate then
	// emits every live group (the sink rebuilds its table from the changelog and starts empty
	// after a restart); otherwise it emits only the groups later epochs change.
	Complete bool
	// Budget (streaming, with keys) bounds the groups' memory: past it, the least recently
	// used groups spill to a scratch store (see aggregate_spill.go). Unlimited: all in memory.
	Budget state.Budget
	// Dropped, when set, counts the input rows dropped as late, over all the node's instances.
	Dropped *atomic.Int64
	// Filter (batch only), when set, keeps the input rows where it is true (NULL: false)
	// before they are grouped: the WHERE below the aggregate, fused into it
	// (aggregate_filter.go).
	Filter expr.Expr
	// SkipPartial (batch, with keys), when set, marks a partial aggregate (its output is merged
	// by a final aggregate after an exchange) that stops aggregating when its groups compact
	// too little (aggregate_skip.go).
	SkipPartial *SkipPartial
}

// EventTimeKey describes an aggregate's event-time key (Spark's watermark-based state
// cleanup). A group closes once the watermark reaches its key: a timestamp key t when t <=
// watermark, a window key when its end <= watermark.
type EventTimeKey struct {
	// Key is the key's position among AggregateSpec.KeyCols.
	Key int
	// Evict drops input rows whose group is already closed (late rows) and removes closed
	// groups from the state (append and update modes); complete mode keeps every group.
	Evict bool
}

// HashAggregate groups rows by key columns into dense group ids and feeds each aggregate's
// grouped accumulator. Retracted input rows are retracted from the accumulators. Without keys
// there is exactly one group, emitted even for empty input (count(*) = 0).
func HashAggregate(ctx *expr.Context, spec AggregateSpec) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		c := instanceContext(ctx, env)
		a := &hashAggregate{env: env, ctx: c, spec: spec, table: newRowTable(env.Mem), watermark: math.MinInt64}
		for _, f := range spec.Aggs {
			acc := f.NewAccumulator(c)
			if !spec.Streaming {
				// A batch aggregate's input never retracts.
				acc = expr.InsertOnly(acc)
			}
			a.accs = append(a.accs, acc)
			a.everyRow = append(a.everyRow, expr.CountsEveryRow(f))
		}
		a.argsOf = sharedArgs(spec.Aggs, a.everyRow)
		for _, t := range spec.KeyTypes {
			a.outTypes = append(a.outTypes, t)
		}
		for _, f := range spec.Aggs {
			a.outTypes = append(a.outTypes, f.Type())
		}
		if len(spec.KeyCols) == 0 {
			a.addGroup()
		}
		if spec.Filter != nil {
			if spec.Streaming {
				return nil, sparkerr.Internal("aggregate: a filter fused into a streaming aggregate")
			}
			a.filterCond = []expr.Expr{spec.Filter}
			a.countsOnly = len(spec.KeyCols) == 0 && !slices.Contains(a.everyRow, false)
		}
		switch {
		case spec.Streaming:
		case fixedKeyTypes(spec.KeyTypes):
			a.fixed = newFixedKeyIDs(len(spec.KeyTypes))
		case byteKeyTypes(spec.KeyTypes):
			a.fixed = newByteKeyIDs()
		}
		a.spill = newAggregateSpill(a)
		a.skip = newPartialSkip(spec)
		return a, nil
	}
}

type hashAggregate struct {
	env   flow.Env
	ctx   *expr.Context
	spec  AggregateSpec
	table *rowTable
	accs  []expr.GroupedAccumulator
	// groups is Process's buffer of the batch's group ids.
	groups []uint32
	// everyRow marks the aggregates fed without arguments (expr.CountsEveryRow).
	everyRow []bool
	// argsOf[k] is the aggregate whose evaluated arguments aggregate k reads (sharedArgs).
	argsOf  []int
	counts  []int64 // live rows per group
	changed []bool
	// emitted (streaming) marks the groups whose row is out downstream: the row equals the
	// group's result as it was before the group's first change of the epoch.
	emitted []bool
	// old holds, for the epoch's changed groups that had a row out, that row's aggregate
	// values, captured before their first change (see aggregate_emit.go).
	old      oldRows
	outTypes []sqltypes.DataType
	// watermark is the input watermark (math.MinInt64 before the first); closed marks groups
	// evicted by it.
	watermark int64
	closed    []bool
	dropped   atomic.Int64
	// evicted counts the groups evicted since it was last reset (state metrics' rows removed).
	evicted int64
	// spill is the spilled part (nil: the budget is unlimited, or no keys).
	spill *aggregateSpill
	// sender sent the batch in Process; order ranks the groups of a batch aggregate by it
	// (aggregate_order.go).
	sender int
	order  firstRows
	// fixed (batch aggregates of integer-like keys, or of keys byteKeyIDs normalizes) finds
	// groups by key values; nil: through table.
	fixed keyIndex
	// filterCond is spec.Filter as evalAll takes it; countsOnly marks a global aggregate of
	// count(*) functions only, which counts the rows the filter keeps without gathering them.
	filterCond []expr.Expr
	countsOnly bool
	// skip is a partial aggregate's adaptive state (nil: it always aggregates).
	skip *partialSkip
}

// keyIndex finds a batch aggregate's groups by their key values (fixedKeyIDs, byteKeyIDs):
// lookup sets groups[i] to the group of row i of keys, creating groups through create and
// recording new key rows in table; ok is false when a key column's layout is not one the
// index reads.
type keyIndex interface {
	lookup(table *rowTable, keys []arrow.Array, groups []uint32, create func() uint32) (ok bool, err error)
}

func (a *hashAggregate) addGroup() uint32 {
	g := a.newGroup()
	a.growAccs()
	return g
}

// newGroup is addGroup without growing the accumulators: a lookup that creates many groups
// grows them once after it (growAccs), not once per group.
func (a *hashAggregate) newGroup() uint32 {
	g := uint32(len(a.counts))
	a.counts = append(a.counts, 0)
	a.changed = append(a.changed, true)
	a.emitted = append(a.emitted, false)
	a.old.pos = append(a.old.pos, 0)
	if a.spill != nil {
		a.spill.lastUse = append(a.spill.lastUse, a.spill.epoch)
	}
	a.closed = append(a.closed, false)
	return g
}

// growAccs makes every accumulator hold a state for each group.
func (a *hashAggregate) growAccs() {
	for _, acc := range a.accs {
		acc.Grow(len(a.counts))
	}
}

func (a *hashAggregate) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	if a.filterCond != nil {
		kept, k, err := a.filterRows(rec)
		switch {
		case err != nil || k == 0:
			return err
		case kept != nil:
			defer kept.Release()
			rec, n = kept, k
		case k < n:
			return a.countRows(k)
		}
	}
	if late := a.lateRows(rec); len(late) > 0 {
		kept, err := a.dropLate(rec, late)
		if err != nil || kept == nil {
			return err
		}
		defer kept.Release()
		rec, n = kept, int(kept.NumRows())
	}
	user := flow.UserColumns(rec)
	defer user.Release()
	if a.skip != nil && a.skip.skipping {
		return a.passThrough(ctx, user, out)
	}
	// The group ids of a batch live until Process returns (accumulators and the order copy
	// what they keep), so one buffer serves every batch; without keys it stays all zero.
	if cap(a.groups) < n {
		a.groups = make([]uint32, n)
	}
	groups := a.groups[:n]
	if len(a.spec.KeyCols) > 0 {
		keys := make([]arrow.Array, len(a.spec.KeyCols))
		for i, c := range a.spec.KeyCols {
			keys[i] = user.Column(c)
		}
		done := false
		if a.fixed != nil {
			var err error
			done, err = a.fixed.lookup(a.table, keys, groups, a.newGroup)
			a.growAccs()
			if err != nil {
				return err
			}
			if !done && len(a.counts) > 0 {
				return sparkerr.Internal("aggregate: a key column changed its layout")
			}
			if !done {
				a.fixed = nil
			}
		}
		if !done {
			if err := a.lookupKeys(keys, groups); err != nil {
				return err
			}
		}
		if a.spill != nil {
			a.spill.used(groups)
		}
	}
	if err := a.touch(groups); err != nil {
		return err
	}
	if !a.spec.Streaming && len(a.spec.KeyCols) > 0 {
		// (A global aggregate has one group: nothing to order.)
		a.order.note(a.sender, groups, len(a.counts))
	}
	var ins, rets []int64
	if ret := flow.Retracted(rec); countRetracted(ret) == 0 {
		// Batch input, or a streaming batch of insertions: feed never needs ins.
		for _, g := range groups {
			a.counts[g]++
		}
	} else {
		for i := 0; i < n; i++ {
			g := groups[i]
			if ret.Value(i) {
				a.counts[g]--
				rets = append(rets, int64(i))
			} else {
				a.counts[g]++
				ins = append(ins, int64(i))
			}
		}
	}
	evaluated := make([][]arrow.Array, len(a.spec.Aggs))
	defer func() {
		for _, args := range evaluated {
			releaseAll(args)
		}
	}()
	for k, f := range a.spec.Aggs {
		var args []arrow.Array
		switch j := a.argsOf[k]; {
		case a.everyRow[k]:
		case j != k:
			args = evaluated[j]
		default:
			var err error
			if args, err = evalUser(a.ctx, f.Args(), user); err != nil {
				return err
			}
			evaluated[k] = args
		}
		if err := a.feed(a.accs[k], groups, args, ins, rets); err != nil {
			return err
		}
		if a.argsOf[k] == k && !slices.Contains(a.argsOf[k+1:], k) {
			releaseAll(args)
			evaluated[k] = nil
		}
	}
	if a.skip != nil {
		return a.afterBatch(ctx, n, out)
	}
	return nil
}

// sharedArgs maps each aggregate to the first one with the same argument expressions (the
// same Expr values, as a split avg's or decimal sum's partial sum and count have): its
// arguments are evaluated once per batch. Aggregates fed without arguments (everyRow) share
// nothing.
func sharedArgs(aggs []expr.AggFunc, everyRow []bool) []int {
	argsOf := make([]int, len(aggs))
	for k, f := range aggs {
		argsOf[k] = k
		if everyRow[k] {
			continue
		}
		for j := range k {
			if argsOf[j] == j && !everyRow[j] && sameExprs(aggs[j].Args(), f.Args()) {
				argsOf[k] = j
				break
			}
		}
	}
	return argsOf
}

func sameExprs(a, b []expr.Expr) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// countRetracted is the number of retraction rows of a batch's _retracted column.
func countRetracted(ret *array.Boolean) int {
	if ret.Len() == 0 {
		return 0
	}
	return bitutil.CountSetBits(ret.Data().Buffers()[1].Bytes(), ret.Data().Offset(), ret.Len())
}

// feed updates acc with the inserted rows and retracts the retracted ones.
func (a *hashAggregate) feed(acc expr.GroupedAccumulator, groups []uint32, args []arrow.Array, ins, rets []int64) error {
	if len(rets) == 0 {
		return acc.Update(groups, args)
	}
	for _, part := range []struct {
		idx     []int64
		retract bool
	}{{ins, false}, {rets, true}} {
		if len(part.idx) == 0 {
			continue
		}
		sub, err := take(a.env.Mem, args, part.idx, nil)
		if err != nil {
			return err
		}
		gs := make([]uint32, len(part.idx))
		for i, r := range part.idx {
			gs[i] = groups[r]
		}
		if part.retract {
			err = acc.Retract(gs, sub)
		} else {
			err = acc.Update(gs, sub)
		}
		releaseAll(sub)
		if err != nil {
			return err
		}
	}
	return nil
}

// live reports whether group g has a row to show: a global aggregate always does.
func (a *hashAggregate) live(g uint32) bool {
	return len(a.spec.KeyCols) == 0 || a.counts[g] > 0
}

func (a *hashAggregate) Barrier(ctx context.Context, _ int64, out flow.Emitter) error {
	if !a.spec.Streaming {
		return nil
	}
	return a.emitEpoch(ctx, out)
}

func (a *hashAggregate) EndOfData(ctx context.Context, out flow.Emitter) error {
	if a.spec.Streaming {
		return a.emitEpoch(ctx, out)
	}
	return a.emitGroups(ctx, out)
}

// emitGroups emits every live group of a batch aggregate, in first-row order.
func (a *hashAggregate) emitGroups(ctx context.Context, out flow.Emitter) error {
	var gs []uint32
	for g := range a.counts {
		if a.live(uint32(g)) {
			gs = append(gs, uint32(g))
		}
	}
	a.order.sort(gs)
	for lo := 0; lo < len(gs); lo += BatchRows {
		cols, err := a.rows(gs[lo:min(len(gs), lo+BatchRows)])
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

// rows builds the output columns (keys, then aggregate results) of groups gs.
func (a *hashAggregate) rows(gs []uint32) ([]arrow.Array, error) {
	cols, err := a.keyColumns(gs)
	if err != nil {
		return nil, err
	}
	for _, acc := range a.accs {
		r, err := acc.Result(a.ctx, gs)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols = append(cols, r)
	}
	return cols, nil
}

func (a *hashAggregate) Close() {
	a.table.release()
	a.old.reset()
	a.spill.close()
}
