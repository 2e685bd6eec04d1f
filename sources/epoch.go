package sources

import (
	"context"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// EpochSource adapts a StreamSource to flow.Source: the leaf of a streaming query's flow graph.
//
// # Epochs
//
// The query's coordinator decides each epoch's offset range (Start, End] and hands it to the
// source with Next; every partition then reads its share of the range (src.Read with its
// partition index), emits the rows as flow-event data batches and then emits Barrier{ID}. The
// barriers travel through the graph and come out of the sink once the epoch is committed.
// Finish says no epoch follows: each partition emits what is still queued and Run returns nil
// (the runtime then sends EndOfData).
//
// Continuous mode (NewEpochSource(src, true)): partitions do not wait for epochs to move rows.
// Every poll interval (WithPollInterval, on the clock of WithClock) one partition asks
// src.Latest and, when it moved, plans the range from the last planned offset to it; all
// partitions read the same planned ranges, so range-dependent sources (rate) split rows
// consistently. An epoch handed to Next then only places Barrier{ID}: after the rows up to its
// End (reading up to End first if nothing planned reached it yet), or right away when the
// planned ranges already passed End — those extra rows are counted in this epoch and the
// coordinator's committed End lags them (continuous processing is at-least-once, as in Spark).
// Reading starts after WithStart's offset, or after the first epoch's Start if an epoch arrives
// before the first poll, or else after src.Initial.
//
// A source implementing LocalLatest is polled without a network call: a poll (on the tick, or
// at once when its Arrivals channel signals) plans up to what its open readers already fetched,
// and src.Latest is asked only every WithFullLatestInterval or when the local view does not
// cover the source. A source that is also an OffsetJoiner has unordered offsets (the local view
// ahead on some partitions, an epoch's End on others) joined instead of failing.
//
// # Ownership and goroutines
//
// The EpochSource starts no goroutine of its own: the flow runtime calls Run once per partition
// (env.Partition in [0, src.Partitions())), each in its runtime-owned goroutine, and Run returns
// when the partition is finished (nil), ctx ends (ctx.Err()) or reading fails (the error).
// Next, Finish and Rows may be called from any goroutine, before or while partitions run; Next
// and Finish never block (each partition has an unbounded queue of planned ranges and
// barriers). The StreamSource stays owned by the caller, who closes it after every Run
// returned; its Latest and Read must be safe for concurrent use. Batches from src.Read are
// released here once wrapped; emitted batches belong to the runtime.
type EpochSource struct {
	src        StreamSource
	continuous bool
	cfg        epochConfig
	parts      int

	mu       sync.Mutex
	plan     []planItem // items not yet read by every partition; plan[0] has sequence number base
	base     int64
	cursors  []int64         // per partition: sequence number of its next item
	wake     []chan struct{} // per partition, capacity 1: the plan grew or the source finished
	finished bool
	pos      Offset // continuous: end of the last planned range; nil until known
	rows     map[int64]int64
	lastID   int64

	pollMu   sync.Mutex // one continuous poll at a time
	lastFull time.Time  // under pollMu: when src.Latest was last asked (LocalLatest sources)
	covered  bool       // under pollMu: the last local view covered the source
}

// Epoch is one epoch's offset range (Start, End] and identity.
type Epoch struct {
	ID         int64
	Start, End Offset
}

// EpochOption configures an EpochSource.
type EpochOption func(*epochConfig)

type epochConfig struct {
	clock      clock.Clock
	poll       time.Duration
	fullLatest time.Duration
	start      Offset
}

// DefaultPollInterval is how often a continuous EpochSource asks its source for new rows.
const DefaultPollInterval = 5 * time.Millisecond

// WithClock sets the clock a continuous EpochSource polls on (default: the wall clock).
func WithClock(c clock.Clock) EpochOption { return func(cfg *epochConfig) { cfg.clock = c } }

// WithPollInterval sets how often a continuous EpochSource polls src.Latest.
func WithPollInterval(d time.Duration) EpochOption {
	return func(cfg *epochConfig) {
		if d > 0 {
			cfg.poll = d
		}
	}
}

// WithStart sets the offset a continuous EpochSource reads after (a restarted query's last
// committed end); without it reading starts at the first epoch's Start or src.Initial.
func WithStart(off Offset) EpochOption { return func(cfg *epochConfig) { cfg.start = off } }

// MicroBatchOnly is implemented by stream sources that cannot be read continuously (Spark's
// tables without the CONTINUOUS_READ capability, e.g. rate-micro-batch).
type MicroBatchOnly interface {
	MicroBatchOnly() bool
}

// rowsKept bounds how many epochs' row counts Rows remembers.
const rowsKept = 1024

type planKind uint8

const (
	planRange planKind = iota + 1
	planBarrier
	planFail
)

// planItem is one step every partition takes in order.
type planItem struct {
	kind       planKind
	start, end Offset
	// epoch is the epoch a range's rows count for, or -1 when it is only known at the next
	// barrier (continuous polls); a barrier's epoch ID.
	epoch int64
	err   error
}

// NewEpochSource wraps src; continuous selects continuous mode.
func NewEpochSource(src StreamSource, continuous bool, opts ...EpochOption) *EpochSource {
	cfg := epochConfig{clock: clock.New(), poll: DefaultPollInterval, fullLatest: FullLatestInterval}
	for _, o := range opts {
		o(&cfg)
	}
	n := src.Partitions()
	e := &EpochSource{
		src: src, continuous: continuous, cfg: cfg, parts: n,
		cursors: make([]int64, n), wake: make([]chan struct{}, n),
		rows: map[int64]int64{}, lastID: -1,
	}
	for i := range e.wake {
		e.wake[i] = make(chan struct{}, 1)
	}
	if continuous && cfg.start != nil {
		e.pos = cfg.start
	}
	return e
}

// Next hands the next epoch to every partition. It never blocks; epochs after Finish are
// ignored.
func (e *EpochSource) Next(ep Epoch) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finished {
		return
	}
	if _, ok := e.rows[ep.ID]; !ok {
		e.rows[ep.ID] = 0
	}
	e.lastID = ep.ID
	e.pruneRows()
	if !e.continuous {
		e.plan = append(e.plan,
			planItem{kind: planRange, start: ep.Start, end: ep.End, epoch: ep.ID},
			planItem{kind: planBarrier, epoch: ep.ID})
		e.wakeAll()
		return
	}
	if e.pos == nil {
		e.pos = ep.Start
	}
	if err := e.planTo(ep.End); err != nil {
		e.plan = append(e.plan, planItem{kind: planFail, err: err})
	}
	e.plan = append(e.plan, planItem{kind: planBarrier, epoch: ep.ID})
	e.wakeAll()
}

// Finish says no more epochs follow: partitions emit what is queued, then Run returns nil.
func (e *EpochSource) Finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.finished = true
	e.wakeAll()
}

// Rows is the number of rows emitted so far for an epoch, all partitions together (in
// continuous mode a partition's rows count once its barrier for the epoch is emitted). Only
// the latest epochs' counts are kept.
func (e *EpochSource) Rows(epoch int64) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rows[epoch]
}

func (e *EpochSource) pruneRows() {
	if len(e.rows) <= 2*rowsKept {
		return
	}
	for id := range e.rows {
		if id < e.lastID-rowsKept {
			delete(e.rows, id)
		}
	}
}

func (e *EpochSource) wakeAll() {
	for _, w := range e.wake {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

func (e *EpochSource) compare(a, b Offset) (int, error) {
	if oc, ok := e.src.(OffsetComparer); ok {
		return oc.CompareOffsets(a, b)
	}
	return CompareOffsets(a, b)
}

// take returns partition p's next item, or reports that the plan is exhausted and whether the
// source is finished.
func (e *EpochSource) take(p int) (item planItem, ok, finished bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	i := e.cursors[p] - e.base
	if i >= int64(len(e.plan)) {
		return planItem{}, false, e.finished
	}
	item = e.plan[i]
	e.cursors[p]++
	low := e.cursors[0]
	for _, c := range e.cursors[1:] {
		low = min(low, c)
	}
	if drop := low - e.base; drop > 0 {
		clear(e.plan[:drop])
		e.plan = e.plan[drop:]
		e.base = low
	}
	return item, true, false
}

func (e *EpochSource) addRows(epoch, n int64) {
	if n == 0 {
		return
	}
	e.mu.Lock()
	e.rows[epoch] += n
	e.mu.Unlock()
}

// Run implements flow.Source for partition env.Partition.
func (e *EpochSource) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	p := env.Partition
	if env.Partitions != e.parts || p < 0 || p >= e.parts {
		return sparkerr.Internal("stream source %s has %d partitions but runs as partition %d of %d",
			e.src.Description(), e.parts, p, env.Partitions)
	}
	if e.continuous {
		if mb, ok := e.src.(MicroBatchOnly); ok && mb.MicroBatchOnly() {
			return sparkerr.Unsupported("Data source %s does not support continuous processing.", e.src.Description())
		}
	}
	var tick <-chan time.Time
	var arrivals <-chan struct{}
	if e.continuous {
		t := e.cfg.clock.Ticker(e.cfg.poll)
		defer t.Stop()
		tick = t.C
		if ll, ok := e.src.(LocalLatest); ok {
			arrivals = ll.Arrivals()
		}
	}
	var pending int64 // continuous: rows read since this partition's last barrier
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		item, ok, finished := e.take(p)
		if ok {
			switch item.kind {
			case planRange:
				n, err := e.read(ctx, env, out, item)
				if err != nil {
					return err
				}
				if item.epoch >= 0 {
					e.addRows(item.epoch, n)
				} else {
					pending += n
				}
			case planBarrier:
				e.addRows(item.epoch, pending)
				pending = 0
				m := flow.NewMarkerBatch(env.Mem, env.OutSchema, flow.Marker{Kind: flow.MarkerBarrier, Epoch: item.epoch})
				if err := out.Emit(ctx, m); err != nil {
					return err
				}
			case planFail:
				return item.err
			}
			continue
		}
		if finished {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-e.wake[p]:
		case <-tick:
			if err := e.poll(ctx, false); err != nil {
				return err
			}
		case <-arrivals:
			if err := e.poll(ctx, true); err != nil {
				return err
			}
		}
	}
}

// poll plans the range from the last planned offset to src.Latest, or to the source's local
// view (LocalLatest) between full look-ups (continuous mode). A poll on a tick is skipped while
// another partition polls, and while the local view covers the source and no full look-up is
// due (arrivals trigger those polls); one on an arrival waits for a running poll, so that no
// arrival goes unseen.
func (e *EpochSource) poll(ctx context.Context, arrival bool) error {
	if arrival {
		e.pollMu.Lock()
	} else if !e.pollMu.TryLock() {
		return nil // another partition is polling
	}
	defer e.pollMu.Unlock()
	if !arrival && e.covered && e.cfg.clock.Now().Sub(e.lastFull) < e.cfg.fullLatest {
		return nil // nothing arrived since the last poll planned what the readers hold
	}
	e.mu.Lock()
	finished, known, pos := e.finished, e.pos != nil, e.pos
	e.mu.Unlock()
	if finished {
		return nil
	}
	if !known {
		initial, err := e.src.Initial(ctx)
		if err != nil {
			return err
		}
		e.mu.Lock()
		if e.pos == nil {
			e.pos = initial
		}
		pos = e.pos
		e.mu.Unlock()
	}
	latest, err := e.latest(ctx, pos)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finished || latest == nil {
		return nil
	}
	return e.planTo(latest)
}

// planTo plans the range from the last planned offset to end when end is past it (continuous
// mode; the caller holds mu). Offsets that are not ordered (a source's local view ahead of a
// listing on some partitions, behind on others) are joined when the source is an OffsetJoiner.
func (e *EpochSource) planTo(end Offset) error {
	c, err := e.compare(end, e.pos)
	if err != nil {
		j, ok := e.src.(OffsetJoiner)
		if !ok {
			return err
		}
		if end, err = j.JoinOffsets(end, e.pos); err != nil {
			return err
		}
		if c, err = e.compare(end, e.pos); err != nil {
			return err
		}
	}
	if c > 0 {
		e.plan = append(e.plan, planItem{kind: planRange, start: e.pos, end: end, epoch: -1})
		e.pos = end
		e.wakeAll()
	}
	return nil
}

// latest is where a poll plans up to from pos: the source's local view while it covers the
// source and the last full look-up is recent, else src.Latest; nil when nothing is new. The
// caller holds pollMu.
func (e *EpochSource) latest(ctx context.Context, pos Offset) (Offset, error) {
	now := e.cfg.clock.Now()
	if ll, ok := e.src.(LocalLatest); ok && now.Sub(e.lastFull) < e.cfg.fullLatest {
		off, covered, err := ll.LocalLatest(pos)
		e.covered = covered && err == nil
		if err != nil || covered {
			return off, err
		}
	}
	e.lastFull, e.covered = now, false
	return e.src.Latest(ctx)
}

// read emits partition env.Partition's rows of one planned range and returns how many.
func (e *EpochSource) read(ctx context.Context, env flow.Env, out flow.Emitter, item planItem) (int64, error) {
	var n int64
	err := e.src.Read(ctx, env.Partition, item.start, item.end, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		rows := rec.NumRows()
		if rows == 0 {
			return nil
		}
		cols, err := conformColumns(ctx, env.Mem, rec, env.OutSchema)
		if err != nil {
			return err
		}
		// The source's batch environment (a file source's input file) goes on with the rows.
		batch := flow.NewDataBatchRows(env.Mem, flow.EnvSchema(env.OutSchema, rec), cols, nil, int(rows))
		for _, c := range cols {
			c.Release()
		}
		n += rows
		return out.Emit(ctx, batch)
	})
	return n, err
}

// conformColumns returns rec's columns typed as schema's user columns (new references). Sources
// and clients send representations Spark treats as one type: a timestamp column of another time
// zone is relabelled (the same instants); others (pandas 3 strings as large_utf8) are cast; a
// mismatch no cast bridges is an error.
func conformColumns(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, schema *arrow.Schema) ([]arrow.Array, error) {
	want := schema.NumFields() - flow.UserOffset
	if int(rec.NumCols()) != want {
		return nil, sparkerr.Internal("a batch of %d columns where the query expects %d", rec.NumCols(), want)
	}
	cols := make([]arrow.Array, 0, want)
	fail := func(err error) ([]arrow.Array, error) {
		for _, c := range cols {
			c.Release()
		}
		return nil, err
	}
	for i := 0; i < want; i++ {
		col := rec.Column(i)
		wt := schema.Field(flow.UserOffset + i).Type
		if arrow.TypeEqual(col.DataType(), wt) {
			col.Retain()
			cols = append(cols, col)
			continue
		}
		gt, gok := col.DataType().(*arrow.TimestampType)
		tt, tok := wt.(*arrow.TimestampType)
		if gok && tok && gt.Unit == tt.Unit {
			d := array.NewData(wt, col.Len(), col.Data().Buffers(), nil, col.NullN(), col.Data().Offset())
			cols = append(cols, array.MakeFromData(d))
			d.Release()
			continue
		}
		if !sameSparkType(col.DataType(), wt) {
			return fail(sparkerr.Internal("column %d is %s where the query expects %s", i, col.DataType(), wt))
		}
		cast, err := compute.CastArray(compute.WithAllocator(ctx, mem), col, compute.SafeCastOptions(wt))
		if err != nil {
			return fail(sparkerr.Internal("column %d is %s where the query expects %s: %v", i, col.DataType(), wt, err))
		}
		cols = append(cols, cast)
	}
	return cols, nil
}

// sameSparkType reports whether got is another Arrow representation of want's Spark type: large
// or view strings and binaries, a dictionary (a pandas category) of such values, lists of them.
func sameSparkType(got, want arrow.DataType) bool {
	if arrow.TypeEqual(got, want) {
		return true
	}
	if d, ok := got.(*arrow.DictionaryType); ok {
		return sameSparkType(d.ValueType, want)
	}
	stringy := func(t arrow.DataType) bool {
		switch t.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			return true
		}
		return false
	}
	binary := func(t arrow.DataType) bool {
		switch t.ID() {
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
			return true
		}
		return false
	}
	switch {
	case stringy(got) && stringy(want), binary(got) && binary(want):
		return true
	}
	gl, gok := got.(arrow.ListLikeType)
	wl, wok := want.(arrow.ListLikeType)
	if gok && wok && got.ID() != arrow.MAP && want.ID() != arrow.MAP {
		return sameSparkType(gl.Elem(), wl.Elem())
	}
	return false
}
