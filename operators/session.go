package operators

import (
	"context"
	"math"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// SessionSpec describes an aggregation grouped by session_window(ts, gap) and other keys.
// Input columns: the aggregate's input, with the other keys and the session time appended by
// the planner. Output: the groups in their order (the session window at SessionPos, a
// struct<start, end> of Window's type), then the aggregates.
type SessionSpec struct {
	// KeyCols and KeyTypes are the other grouping keys; TimeCol the session time column.
	KeyCols  []int
	KeyTypes []sqltypes.DataType
	TimeCol  int
	// SessionPos is the session window's position among the output's groups.
	SessionPos int
	Gap        int64
	Window     sqltypes.DataType
	Aggs       []expr.AggFunc
	TZ         string
	// Streaming (append mode) emits a session once the watermark passes its end, at a barrier,
	// and drops rows whose own session [ts, ts+gap) already ended below the watermark. Batch
	// (false) emits every session at end of data.
	Streaming bool
	// Dropped, when set, counts late rows over all the node's instances.
	Dropped *atomic.Int64
}

// SessionAggregate keeps the rows of each key until their session closes: sorted by time, rows
// closer than the gap (ts < end of the session so far, end = max(ts + gap)) form one session,
// as Spark's session windows merge. A closed session's rows feed fresh accumulators, are
// emitted as one row, and leave the state.
func SessionAggregate(ctx *expr.Context, spec SessionSpec) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		s := &sessionAggregate{env: env, ctx: instanceContext(ctx, env), spec: spec, table: newRowTable(env.Mem),
			watermark: math.MinInt64}
		for i, t := range spec.KeyTypes {
			if i == spec.SessionPos {
				s.outTypes = append(s.outTypes, spec.Window)
			}
			s.outTypes = append(s.outTypes, t)
		}
		if spec.SessionPos >= len(spec.KeyTypes) {
			s.outTypes = append(s.outTypes, spec.Window)
		}
		for _, f := range spec.Aggs {
			s.outTypes = append(s.outTypes, f.Type())
		}
		return s, nil
	}
}

// sessionRow is a buffered input row: its time and where it is stored.
type sessionRow struct {
	ts         int64
	batch, row int32
}

type sessionAggregate struct {
	env       flow.Env
	ctx       *expr.Context
	spec      SessionSpec
	table     *rowTable
	rows      [][]sessionRow      // per key id
	batches   []arrow.RecordBatch // stored input (user columns); nil once no row is left
	live      []int               // rows left per stored batch
	watermark int64
	dropped   atomic.Int64
	outTypes  []sqltypes.DataType
	// held counts the rows kept; added and removed the rows stored and emitted since the last
	// StateMetrics.
	held, added, removed int64
}

func (s *sessionAggregate) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if flow.HasRetractions(rec) {
		return sparkErrRetractions("session_window")
	}
	user := flow.UserColumns(rec)
	times := eventTimeValues(user.Column(s.spec.TimeCol))
	var keep []int64
	var late int64
	for i, t := range times {
		switch {
		case t == noTime:
		case s.spec.Streaming && s.watermark != math.MinInt64 && t+s.spec.Gap <= s.watermark:
			late++
		default:
			keep = append(keep, int64(i))
		}
	}
	if late > 0 {
		s.dropped.Add(late)
		if s.spec.Dropped != nil {
			s.spec.Dropped.Add(late)
		}
	}
	if len(keep) == 0 {
		user.Release()
		return nil
	}
	if len(keep) < len(times) {
		kept, err := takeRecord(s.env.Mem, user, keep)
		user.Release()
		if err != nil {
			return err
		}
		user = kept
	}
	return s.store(user)
}

// store keeps the rows of user (user columns; times not NULL), taking its reference.
func (s *sessionAggregate) store(user arrow.RecordBatch) error {
	times := eventTimeValues(user.Column(s.spec.TimeCol))
	n := int(user.NumRows())
	if n == 0 {
		user.Release()
		return nil
	}
	ids := make([]uint32, n)
	if len(s.spec.KeyCols) > 0 {
		keys := make([]arrow.Array, len(s.spec.KeyCols))
		for i, c := range s.spec.KeyCols {
			keys[i] = user.Column(c)
		}
		if _, err := s.table.lookup(keys, ids, true, func() uint32 {
			s.rows = append(s.rows, nil)
			return uint32(len(s.rows) - 1)
		}); err != nil {
			user.Release()
			return err
		}
	} else if len(s.rows) == 0 {
		s.rows = append(s.rows, nil)
	}
	s.held += int64(n)
	s.added += int64(n)
	b := int32(len(s.batches))
	s.batches = append(s.batches, user)
	s.live = append(s.live, n)
	for i := 0; i < n; i++ {
		s.rows[ids[i]] = append(s.rows[ids[i]], sessionRow{ts: times[i], batch: b, row: int32(i)})
	}
	return nil
}

// Watermark implements flow.WatermarkHandler: the sessions it closes are emitted at once,
// ahead of the watermark.
func (s *sessionAggregate) Watermark(ctx context.Context, ts int64, out flow.Emitter) error {
	s.watermark = max(s.watermark, ts)
	if !s.spec.Streaming {
		return nil
	}
	return s.emit(ctx, out, s.watermark)
}

// Barrier implements flow.BarrierHandler: sessions the watermark closed are emitted.
func (s *sessionAggregate) Barrier(ctx context.Context, _ int64, out flow.Emitter) error {
	if !s.spec.Streaming || s.watermark == math.MinInt64 {
		return nil
	}
	return s.emit(ctx, out, s.watermark)
}

// EndOfData implements flow.EndOfDataHandler: a batch query emits every session; a stream
// emits only what the watermark closed (Spark never emits open sessions).
func (s *sessionAggregate) EndOfData(ctx context.Context, out flow.Emitter) error {
	if s.spec.Streaming {
		if s.watermark == math.MinInt64 {
			return nil
		}
		return s.emit(ctx, out, s.watermark)
	}
	return s.emit(ctx, out, math.MaxInt64)
}

// RowsDroppedByWatermark is how many late rows this instance dropped; safe from any goroutine.
func (s *sessionAggregate) RowsDroppedByWatermark() int64 { return s.dropped.Load() }

// session is one closed session of key: its bounds and rows.
type session struct {
	key        uint32
	start, end int64
	rows       []sessionRow
}

// emit emits and removes the sessions ending at or below bound.
func (s *sessionAggregate) emit(ctx context.Context, out flow.Emitter, bound int64) error {
	var done []session
	for k := range s.rows {
		rows := s.rows[k]
		if len(rows) == 0 {
			continue
		}
		slices.SortStableFunc(rows, func(x, y sessionRow) int { return cmp(x.ts, y.ts) })
		var open []sessionRow
		for lo := 0; lo < len(rows); {
			end := rows[lo].ts + s.spec.Gap
			hi := lo + 1
			for hi < len(rows) && rows[hi].ts < end {
				end = max(end, rows[hi].ts+s.spec.Gap)
				hi++
			}
			if end <= bound {
				done = append(done, session{key: uint32(k), start: rows[lo].ts, end: end, rows: rows[lo:hi]})
			} else {
				open = append(open, rows[lo:hi]...)
			}
			lo = hi
		}
		s.rows[k] = open
	}
	if len(done) == 0 {
		return nil
	}
	for lo := 0; lo < len(done); lo += BatchRows {
		if err := s.emitSessions(ctx, out, done[lo:min(len(done), lo+BatchRows)]); err != nil {
			return err
		}
	}
	for _, d := range done {
		s.held -= int64(len(d.rows))
		s.removed += int64(len(d.rows))
		for _, r := range d.rows {
			s.live[r.batch]--
			if s.live[r.batch] == 0 {
				s.batches[r.batch].Release()
				s.batches[r.batch] = nil
			}
		}
	}
	return nil
}

// emitSessions aggregates the rows of sessions (group i = sessions[i]) and emits their rows.
func (s *sessionAggregate) emitSessions(ctx context.Context, out flow.Emitter, sessions []session) error {
	accs := make([]expr.GroupedAccumulator, len(s.spec.Aggs))
	for k, f := range s.spec.Aggs {
		accs[k] = f.NewAccumulator(s.ctx)
		accs[k].Grow(len(sessions))
	}
	// Feed stored batch by stored batch: the rows of these sessions it holds.
	byBatch := map[int32][]int{} // batch → indexes into idx/groups below
	var idx [][]int64
	var groups [][]uint32
	var order []int32
	for g, sess := range sessions {
		for _, r := range sess.rows {
			slot, ok := byBatch[r.batch]
			if !ok {
				slot = []int{len(idx)}
				byBatch[r.batch] = slot
				idx = append(idx, nil)
				groups = append(groups, nil)
				order = append(order, r.batch)
			}
			i := slot[0]
			idx[i] = append(idx[i], int64(r.row))
			groups[i] = append(groups[i], uint32(g))
		}
	}
	for i, b := range order {
		rows, err := takeRecord(s.env.Mem, s.batches[b], idx[i])
		if err != nil {
			return err
		}
		for k, f := range s.spec.Aggs {
			args, err := evalUser(s.ctx, f.Args(), rows)
			if err == nil {
				err = accs[k].Update(groups[i], args)
				releaseAll(args)
			}
			if err != nil {
				rows.Release()
				return err
			}
		}
		rows.Release()
	}
	gs := make([]uint32, len(sessions))
	for i := range gs {
		gs[i] = uint32(i)
	}
	cols := make([]arrow.Array, 0, len(s.outTypes))
	defer func() { releaseAll(cols) }()
	window := func() arrow.Array {
		vals := make([]any, len(sessions))
		for i, sess := range sessions {
			vals[i] = []any{sess.start, sess.end}
		}
		return expr.BuildArray(s.env.Mem, s.spec.Window, s.spec.TZ, vals)
	}
	for k, t := range s.spec.KeyTypes {
		if k == s.spec.SessionPos {
			cols = append(cols, window())
		}
		vals := make([]any, len(sessions))
		for i, sess := range sessions {
			vals[i] = s.table.keyValue(sess.key, k, t)
		}
		cols = append(cols, expr.BuildArray(s.env.Mem, t, s.spec.TZ, vals))
	}
	if s.spec.SessionPos >= len(s.spec.KeyTypes) {
		cols = append(cols, window())
	}
	for _, acc := range accs {
		r, err := acc.Result(s.ctx, gs)
		if err != nil {
			return err
		}
		cols = append(cols, r)
	}
	return emitColumns(ctx, s.env, out, cols, nil)
}

// StateMetrics implements flow.StateReporter: rows held, and rows stored and emitted since the
// previous call.
func (s *sessionAggregate) StateMetrics() flow.StateMetrics {
	m := flow.StateMetrics{NumRowsTotal: s.held, NumRowsUpdated: s.added, NumRowsRemoved: s.removed,
		MemoryUsedBytes: s.held * 48}
	for _, b := range s.batches {
		if b != nil {
			for _, c := range b.Columns() {
				m.MemoryUsedBytes += int64(c.Data().SizeInBytes())
			}
		}
	}
	s.added, s.removed = 0, 0
	return m
}

// Close implements flow.Closer.
func (s *sessionAggregate) Close() {
	for _, b := range s.batches {
		if b != nil {
			b.Release()
		}
	}
	s.batches = nil
	s.table.release()
}

func sparkErrRetractions(what string) error {
	return sparkerr.Unsupported("%s over a stream with retractions (an aggregation in update or complete mode)", what)
}
