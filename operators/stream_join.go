package operators

import (
	"bytes"
	"context"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	"github.com/weirhq/weir/state"
)

// StreamJoinSpec describes a join of two streams: input 0 (left) and input 1 (right).
type StreamJoinSpec struct {
	// Type is InnerJoin, LeftOuterJoin, RightOuterJoin, FullOuterJoin or LeftSemiJoin.
	Type plan.JoinType
	// LeftKeys[i] = RightKeys[i] are the equi-join keys (at least one).
	LeftKeys, RightKeys []expr.Expr
	// Residual is checked on candidate pairs, over the left++right user columns.
	Residual expr.Expr
	// LeftSchema and RightSchema are the inputs' flow-event schemas.
	LeftSchema, RightSchema *arrow.Schema
	// Left and Right say when a stored row of each side can no longer match.
	Left, Right StateBound
	// LeftLate and RightLate are each side's watermarked event-time column, or -1: rows at or
	// below the watermark are late, dropped and counted, as Spark's join drops them.
	LeftLate, RightLate int
	// Dropped, when set, also counts the late rows dropped (shared by every partition, for a
	// query's progress).
	Dropped *atomic.Int64
	// Budget bounds the rows kept in memory, half for each side; past its share a side's oldest
	// rows spill to a scratch store (joinSpill; the zero value keeps everything in memory).
	Budget state.Budget
}

// StateBound says when a stored row of one join side can no longer match a future row of the
// other: once Slack + its event time (user column TimeCol, microseconds) is at or below the
// watermark. TimeCol < 0 keeps rows forever.
type StateBound struct {
	TimeCol int
	Slack   int64
}

// NoBound keeps a side's rows forever.
var NoBound = StateBound{TimeCol: -1}

// StreamJoin is the symmetric hash join of two streams: each side's rows are kept as state
// (hashed on the join keys; the planner partitions both sides on them); a row arriving on one
// side is joined with the other side's state and then stored, so every matching pair is emitted
// exactly once, by the later of its two rows. When the watermark advances, rows that can no
// longer match (StateBound) are evicted; for outer joins, evicted rows of the outer side(s) that
// never matched are emitted padded with NULLs then (Spark's semantics: outer rows wait for the
// watermark). A left semi join emits a left row once, at its first match: a left row that
// matches on arrival is not kept, and a kept one leaves the state when a right row matches it.
// NULL keys never match. Output is append-only. Rows past a side's share of the memory budget
// spill (joinSpill); they are matched, evicted and snapshotted alike.
func StreamJoin(ctx *expr.Context, spec StreamJoinSpec) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		if len(spec.LeftKeys) == 0 || len(spec.LeftKeys) != len(spec.RightKeys) {
			return nil, sparkerr.Internal("stream-stream join has %d left keys and %d right keys", len(spec.LeftKeys), len(spec.RightKeys))
		}
		switch spec.Type {
		case plan.InnerJoin, plan.LeftOuterJoin, plan.RightOuterJoin, plan.FullOuterJoin, plan.LeftSemiJoin:
		default:
			return nil, sparkerr.Unsupported("stream-stream join of type %d", spec.Type)
		}
		j := &streamJoin{env: env, ctx: instanceContext(ctx, env), spec: spec, watermark: noTime}
		j.sides[0] = newJoinSide(env, spec.LeftKeys, spec.LeftSchema, spec.Left, spec.LeftLate,
			spec.Type == plan.LeftOuterJoin || spec.Type == plan.FullOuterJoin, spec.Budget)
		j.sides[1] = newJoinSide(env, spec.RightKeys, spec.RightSchema, spec.Right, spec.RightLate,
			spec.Type == plan.RightOuterJoin || spec.Type == plan.FullOuterJoin, spec.Budget)
		return j, nil
	}
}

type joinSide struct {
	keys   []expr.Expr
	fields []arrow.Field // user fields
	types  []arrow.DataType
	bound  StateBound
	late   int
	outer  bool
	// state is the rows kept in memory; sp the spilled ones.
	state *keyedRows
	sp    joinSpill
}

func newJoinSide(env flow.Env, keys []expr.Expr, schema *arrow.Schema, bound StateBound, late int, outer bool,
	budget state.Budget) *joinSide {
	s := &joinSide{keys: keys, fields: flow.UserSchema(schema).Fields(), bound: bound, late: late, outer: outer,
		state: newKeyedRows(env.Mem), sp: joinSpill{spillTail: spillTail{budget: sideBudget(budget)}}}
	for _, f := range s.fields {
		s.types = append(s.types, f.Type)
	}
	return s
}

// expired reports whether a row with event time t can no longer match at watermark wm.
func (s *joinSide) expired(t, wm int64) bool {
	return s.bound.TimeCol >= 0 && t != noTime && wm != noTime && t+s.bound.Slack <= wm
}

type streamJoin struct {
	env       flow.Env
	ctx       *expr.Context
	spec      StreamJoinSpec
	sides     [2]*joinSide
	watermark int64

	updated, removed int64
	dropped          atomic.Int64
}

// pair is a candidate match: row i of the arriving batch and a stored row of the other side.
type pair struct {
	i   int64
	ref rowRef
}

func (j *streamJoin) Process(ctx context.Context, in int, rec arrow.RecordBatch, out flow.Emitter) error {
	if flow.HasRetractions(rec) {
		return sparkerr.Unsupported("stream-stream join over a stream with retractions (an aggregation in update or complete mode)")
	}
	side, other := j.sides[in], j.sides[1-in]
	rec, release, err := j.dropLate(side, rec)
	if err != nil || rec == nil {
		return err
	}
	defer release()
	user := flow.UserColumns(rec)
	defer user.Release()
	n := int(user.NumRows())
	keys, err := evalUser(j.ctx, side.keys, user)
	if err != nil {
		return err
	}
	defer releaseAll(keys)
	hs := make([]uint64, n)
	hashColumns(keys, 0, hs)
	var pairs []pair
	nullKey := make([]bool, n)
	defer other.dropProbe()
	for i := 0; i < n; i++ {
		if anyNull(keys, i) {
			nullKey[i] = true
			continue
		}
		found := func(ref rowRef) { pairs = append(pairs, pair{int64(i), ref}) }
		other.state.find(keys, i, hs[i], found)
		if other.sp.spilled > 0 {
			if err := other.findSpilled(keys, i, hs[i], found); err != nil {
				return err
			}
		}
	}
	if err := other.loadProbe(); err != nil {
		return err
	}
	matched := make([]bool, n)
	if err := j.joinPairs(ctx, in, user.Columns(), pairs, matched, out); err != nil {
		return err
	}
	if err := other.finishProbe(); err != nil {
		return err
	}
	semi := j.spec.Type == plan.LeftSemiJoin
	// Store the rows that can still match; emit at once the outer rows that cannot.
	times := eventTimes(user, side.bound.TimeCol)
	var store, lone []int64
	indexed := make([]bool, n)
	for i := 0; i < n; i++ {
		t := int64(noTime)
		if times != nil {
			t = times[i]
		}
		switch {
		case side.expired(t, j.watermark):
			if side.outer && !matched[i] {
				lone = append(lone, int64(i))
			}
		case nullKey[i] && !side.outer:
		case semi && in == 0 && matched[i]:
			// Emitted already; nothing more to match.
		default:
			store = append(store, int64(i))
			indexed[i] = !nullKey[i]
		}
	}
	first := len(side.state.batches)
	if err := side.state.add(user.Columns(), keys, hs, times, store, indexed); err != nil {
		return err
	}
	if len(store) > 0 {
		b := side.state.batches[first]
		for k, i := range store {
			b.matched[k] = matched[i]
		}
	}
	j.updated += int64(len(store))
	if err := side.spillOver(); err != nil {
		return err
	}
	if len(lone) == 0 {
		return nil
	}
	cols, err := take(j.env.Mem, user.Columns(), lone, nil)
	if err != nil {
		return err
	}
	defer releaseAll(cols)
	return j.emitPadded(ctx, in, cols, out)
}

// dropLate removes the rows of rec that are at or below the watermark on side's event time.
// It returns the rows to join (nil: none) and what releases them.
func (j *streamJoin) dropLate(side *joinSide, rec arrow.RecordBatch) (arrow.RecordBatch, func(), error) {
	if side.late < 0 || j.watermark == noTime {
		return rec, func() {}, nil
	}
	user := flow.UserColumns(rec)
	times := eventTimes(user, side.late)
	user.Release()
	var keep []int64
	for i, t := range times {
		if t == noTime || t > j.watermark {
			keep = append(keep, int64(i))
		}
	}
	switch len(keep) {
	case len(times):
		return rec, func() {}, nil
	case 0:
		j.countDropped(int64(len(times)))
		return nil, nil, nil
	}
	j.countDropped(int64(len(times) - len(keep)))
	t, err := takeRecord(j.env.Mem, rec, keep)
	if err != nil {
		return nil, nil, err
	}
	return t, t.Release, nil
}

func (j *streamJoin) countDropped(n int64) {
	j.dropped.Add(n)
	if j.spec.Dropped != nil {
		j.spec.Dropped.Add(n)
	}
}

// joinPairs checks the residual on candidate pairs, marks both rows of every match and emits the
// joined rows (a left semi join: the left rows matched for the first time).
func (j *streamJoin) joinPairs(ctx context.Context, in int, cols []arrow.Array, pairs []pair, matched []bool, out flow.Emitter) error {
	var semiRows []int64  // arriving left rows matched
	var semiRefs []rowRef // stored left rows matched for the first time
	other := j.sides[1-in]
	// Group stored rows by batch so that gathering them takes few slices.
	slices.SortStableFunc(pairs, func(a, b pair) int {
		if a.ref.batch != b.ref.batch {
			return int(a.ref.batch - b.ref.batch)
		}
		return int(a.ref.row - b.ref.row)
	})
	for lo := 0; lo < len(pairs); lo += BatchRows {
		chunk := pairs[lo:min(len(pairs), lo+BatchRows)]
		idx := make([]int64, len(chunk))
		refs := make([]rowRef, len(chunk))
		for k, p := range chunk {
			idx[k], refs[k] = p.i, p.ref
		}
		mine, err := take(j.env.Mem, cols, idx, nil)
		if err != nil {
			return err
		}
		theirs, err := other.gather(refs)
		if err != nil {
			releaseAll(mine)
			return err
		}
		row := append(append([]arrow.Array(nil), mine...), theirs...)
		if in == 1 {
			row = append(append([]arrow.Array(nil), theirs...), mine...)
		}
		keep, err := j.residual(row, len(chunk))
		if err != nil {
			releaseAll(row)
			return err
		}
		for _, k := range keep {
			p := chunk[k]
			if !matched[p.i] && in == 0 {
				semiRows = append(semiRows, p.i)
			}
			matched[p.i] = true
			stored := other.stored(p.ref.batch)
			if !stored.matched[p.ref.row] && in == 1 {
				semiRefs = append(semiRefs, p.ref)
			}
			stored.matched[p.ref.row] = true
		}
		if j.spec.Type == plan.LeftSemiJoin {
			releaseAll(row)
			continue
		}
		if len(keep) < len(chunk) {
			var kept []arrow.Array
			kept, err = take(j.env.Mem, row, keep, nil)
			releaseAll(row)
			if err != nil {
				return err
			}
			row = kept
		}
		err = emitColumns(ctx, j.env, out, row, nil)
		releaseAll(row)
		if err != nil {
			return err
		}
	}
	if j.spec.Type == plan.LeftSemiJoin {
		return j.emitSemi(ctx, cols, semiRows, semiRefs, out)
	}
	return nil
}

// emitSemi emits the left rows a left semi join matched for the first time: arriving ones
// (rows of cols) or stored ones, which then leave the state.
func (j *streamJoin) emitSemi(ctx context.Context, cols []arrow.Array, rows []int64, refs []rowRef, out flow.Emitter) error {
	if len(rows) > 0 {
		slices.Sort(rows)
		taken, err := take(j.env.Mem, cols, rows, nil)
		if err != nil {
			return err
		}
		err = emitInChunks(ctx, j.env, out, taken, nil)
		releaseAll(taken)
		if err != nil {
			return err
		}
	}
	if len(refs) == 0 {
		return nil
	}
	left := j.sides[0]
	stored, err := left.gather(refs)
	if err != nil {
		return err
	}
	err = emitInChunks(ctx, j.env, out, stored, nil)
	releaseAll(stored)
	for _, ref := range refs {
		left.removeRow(ref)
	}
	left.tidy()
	j.removed += int64(len(refs))
	return err
}

// residual returns the pairs (rows of the joined columns) whose residual condition is true.
func (j *streamJoin) residual(row []arrow.Array, n int) ([]int64, error) {
	all := make([]int64, n)
	for k := range all {
		all[k] = int64(k)
	}
	if j.spec.Residual == nil || n == 0 {
		return all, nil
	}
	fields := append(append([]arrow.Field(nil), j.sides[0].fields...), j.sides[1].fields...)
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), row, int64(n))
	defer rec.Release()
	res, err := evalUser(j.ctx, []expr.Expr{j.spec.Residual}, rec)
	if err != nil {
		return nil, err
	}
	defer releaseAll(res)
	b, ok := res[0].(*array.Boolean)
	if !ok {
		return nil, sparkerr.Internal("join condition evaluated to %s", res[0].DataType())
	}
	keep := all[:0]
	for k := 0; k < n; k++ {
		if b.IsValid(k) && b.Value(k) {
			keep = append(keep, int64(k))
		}
	}
	return keep, nil
}

// emitPadded emits rows of side `in` (its user columns) with the other side's columns NULL.
func (j *streamJoin) emitPadded(ctx context.Context, in int, cols []arrow.Array, out flow.Emitter) error {
	if len(cols) == 0 || cols[0].Len() == 0 {
		return nil
	}
	n := cols[0].Len()
	other := j.sides[1-in]
	nulls := make([]arrow.Array, len(other.types))
	for c, t := range other.types {
		nulls[c] = array.MakeArrayOfNull(j.env.Mem, t, n)
	}
	defer releaseAll(nulls)
	row := append(append([]arrow.Array(nil), cols...), nulls...)
	if in == 1 {
		row = append(append([]arrow.Array(nil), nulls...), cols...)
	}
	return emitInChunks(ctx, j.env, out, row, nil)
}

// Watermark implements flow.WatermarkHandler: rows that can no longer match leave the state
// (spilled ones first, then those in memory); unmatched ones of an outer side are emitted with
// NULLs.
func (j *streamJoin) Watermark(ctx context.Context, ts int64, out flow.Emitter) error {
	j.watermark = ts
	for in, side := range j.sides {
		if side.bound.TimeCol < 0 {
			continue
		}
		n, err := side.evictSpilled(ts, func(cols []arrow.Array) error { return j.emitPadded(ctx, in, cols, out) })
		j.removed += n
		if err != nil {
			return err
		}
		var gone, lone []rowRef
		side.state.each(func(ref rowRef, b *storedBatch) {
			if side.expired(b.times[ref.row], ts) {
				gone = append(gone, ref)
				if side.outer && !b.matched[ref.row] {
					lone = append(lone, ref)
				}
			}
		})
		if len(lone) > 0 {
			cols, err := side.gather(lone)
			if err != nil {
				return err
			}
			err = j.emitPadded(ctx, in, cols, out)
			releaseAll(cols)
			if err != nil {
				return err
			}
		}
		for _, ref := range gone {
			side.state.remove(ref)
		}
		side.tidy()
		j.removed += int64(len(gone))
	}
	return nil
}

// StateMetrics implements flow.StateReporter: the rows held on both sides (in memory and
// spilled), and the rows stored and evicted since the previous call; the memory used is the
// in-memory parts'.
func (j *streamJoin) StateMetrics() flow.StateMetrics {
	m := flow.StateMetrics{NumRowsUpdated: j.updated, NumRowsRemoved: j.removed}
	for _, s := range j.sides {
		m.NumRowsTotal += s.liveRows()
		m.MemoryUsedBytes += s.memoryBytes()
		m.SpillBytes += s.sp.spillBytes()
	}
	j.updated, j.removed = 0, 0
	return m
}

// RowsDroppedByWatermark is how many late rows the join dropped since it started; safe to call
// from any goroutine.
func (j *streamJoin) RowsDroppedByWatermark() int64 { return j.dropped.Load() }

// SnapshotState implements flow.Snapshotter: the watermark and both sides' rows (in memory and
// spilled) with their matched flags.
func (j *streamJoin) SnapshotState(epoch int64) ([]byte, error) {
	c, err := j.CaptureState(epoch)
	if err != nil {
		return nil, err
	}
	return encodeNow(c)
}

// CaptureState implements flow.StateCapturer: each side's memory rows and a view of its spill.
func (j *streamJoin) CaptureState(int64) (flow.StateCapture, error) {
	c := &joinCapture{keyed: keyedCapture{watermark: j.watermark}}
	for _, s := range j.sides {
		c.keyed.rows = append(c.keyed.rows, s.state.capture())
		c.keyed.fields = append(c.keyed.fields, s.fields)
		c.views = append(c.views, s.sp.view())
		c.codecs = append(c.codecs, s.sp.codec)
	}
	return c, nil
}

// RestoreState implements flow.Snapshotter.
func (j *streamJoin) RestoreState(data []byte) error {
	r := bytes.NewReader(data)
	wm, err := readVarint(r)
	if err != nil {
		return err
	}
	j.watermark = wm
	for _, s := range j.sides {
		cols, times, matched, err := readSnapshot(j.env.Mem, r)
		if err != nil {
			return err
		}
		err = j.restoreSide(s, cols, times, matched)
		releaseAll(cols)
		if err != nil {
			return err
		}
	}
	return nil
}

// restoreSide loads a side's rows: into memory while its share of the budget allows, the
// oldest into the spill.
func (j *streamJoin) restoreSide(s *joinSide, cols []arrow.Array, times []int64, matched []bool) error {
	s.state.release()
	if err := s.resetSpill(); err != nil {
		return err
	}
	n := len(times)
	if n == 0 {
		return nil
	}
	user := array.NewRecordBatch(arrow.NewSchema(s.fields, nil), cols, int64(n))
	defer user.Release()
	keys, err := evalUser(j.ctx, s.keys, user)
	if err != nil {
		return err
	}
	defer releaseAll(keys)
	hs := make([]uint64, n)
	hashColumns(keys, 0, hs)
	indexed := make([]bool, n)
	for i := range indexed {
		indexed[i] = !anyNull(keys, i)
	}
	return s.restore(cols, keys, hs, times, matched, indexed)
}

func (j *streamJoin) Close() {
	for _, s := range j.sides {
		s.state.release()
		_ = s.resetSpill()
	}
}
