package operators

import (
	"bytes"
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/state"
)

// StreamDedupSpec configures a streaming deduplication.
type StreamDedupSpec struct {
	// KeyCols are the key column indices of the input (nil: every column).
	KeyCols []int
	// TimeCol is the key column holding the event time (a timestamp with a watermark, or a
	// window over one), or -1: keys whose event time is at or below the watermark are evicted
	// (dropDuplicates(["id", "eventTime"])). Within watermark, it is the input's event time.
	TimeCol int
	// LateCol is the input's watermarked event-time column, or -1: rows whose event time is at
	// or below the watermark are late and dropped (Spark drops them whether or not the event
	// time is a key).
	LateCol int
	// WithinWatermark is dropDuplicatesWithinWatermark: a key stays deduplicated until the
	// watermark passes its first occurrence's event time + Delay (microseconds).
	WithinWatermark bool
	Delay           int64
	// Dropped, when set, also counts the late rows dropped (shared by every partition, for a
	// query's progress).
	Dropped *atomic.Int64
	// Budget bounds the keys kept in memory; past it the oldest spill to a scratch store
	// (state.Budget; the zero value keeps everything in memory).
	Budget state.Budget
}

// StreamDedup is the streaming dropDuplicates: it emits a row the first time its key is seen in
// any epoch and never again, keeping the keys seen as state (hash-partitioned on the keys by the
// planner). With an event-time column (see StreamDedupSpec) the state is bounded by the
// watermark. NULLs compare equal. It reports state metrics (flow.StateReporter), counts late
// rows (RowsDroppedByWatermark) and snapshots its keys (flow.Snapshotter). Keys past the
// memory budget spill (spillingKeys); they stay deduplicated, evicted and snapshotted alike.
func StreamDedup(spec StreamDedupSpec) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		if spec.WithinWatermark && (spec.TimeCol < 0 || spec.LateCol < 0) {
			return nil, sparkerr.Internal("dropDuplicatesWithinWatermark needs an event-time column")
		}
		fields := keyFields(env.OutSchema, spec.KeyCols)
		return &streamDedup{env: env, spec: spec, fields: fields, watermark: noTime,
			state: newSpillingKeys(newKeyedRows(env.Mem), spec.Budget, fields)}, nil
	}
}

type streamDedup struct {
	env       flow.Env
	spec      StreamDedupSpec
	fields    []arrow.Field // the key columns'
	state     *spillingKeys
	watermark int64

	updated, removed int64
	dropped          atomic.Int64
}

func (d *streamDedup) keyColumns(user arrow.RecordBatch) []arrow.Array {
	if d.spec.KeyCols == nil {
		return user.Columns()
	}
	keys := make([]arrow.Array, len(d.spec.KeyCols))
	for i, c := range d.spec.KeyCols {
		keys[i] = user.Column(c)
	}
	return keys
}

func (d *streamDedup) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	if flow.HasRetractions(rec) {
		return sparkerr.Unsupported("dropDuplicates over a stream with retractions (an aggregation in update or complete mode)")
	}
	user := flow.UserColumns(rec)
	defer user.Release()
	keys := d.keyColumns(user)
	n := int(rec.NumRows())
	times := eventTimes(user, d.spec.TimeCol)
	late := times
	if d.spec.LateCol != d.spec.TimeCol {
		late = eventTimes(user, d.spec.LateCol)
	}
	hs := make([]uint64, n)
	hashColumns(keys, 0, hs)
	var keep []int64
	var expire []int64
	kept := map[uint64][]int64{} // this batch's new keys by hash
	for i := 0; i < n; i++ {
		if late != nil && late[i] != noTime && d.watermark != noTime && late[i] <= d.watermark {
			d.dropped.Add(1)
			if d.spec.Dropped != nil {
				d.spec.Dropped.Add(1)
			}
			continue
		}
		seen, err := d.state.seen(keys, i, hs[i])
		if err != nil {
			return err
		}
		// An earlier row of this batch with the same key.
		for _, k := range kept[hs[i]] {
			if !seen && rowsEqual(keys, int(k), keys, i) {
				seen = true
			}
		}
		if seen {
			continue
		}
		keep = append(keep, int64(i))
		kept[hs[i]] = append(kept[hs[i]], int64(i))
		if times != nil {
			t := times[i]
			if d.spec.WithinWatermark && t != noTime {
				t += d.spec.Delay
			}
			expire = append(expire, t)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	var stateTimes []int64
	if times != nil {
		stateTimes = make([]int64, n)
		for k, i := range keep {
			stateTimes[i] = expire[k]
		}
	}
	if err := d.state.add(keys, hs, stateTimes, keep); err != nil {
		return err
	}
	d.updated += int64(len(keep))
	return emitRows(ctx, d.env, out, rec, keep)
}

// eventTimes reads column col of user as event times (microseconds), or nil when col < 0: a
// timestamp, or a window struct whose end is one (Spark evicts windows by their end).
func eventTimes(user arrow.RecordBatch, col int) []int64 {
	if col < 0 {
		return nil
	}
	return eventTimeValues(user.Column(col))
}

// Watermark implements flow.WatermarkHandler: keys whose (expiry) time is at or below the
// watermark leave the state.
func (d *streamDedup) Watermark(_ context.Context, ts int64, _ flow.Emitter) error {
	d.watermark = ts
	if d.spec.TimeCol < 0 {
		return nil
	}
	n, err := d.state.evict(ts)
	d.removed += n
	return err
}

// StateMetrics implements flow.StateReporter: the keys held (in memory and spilled), and the
// keys added and evicted since the previous call; the memory used is the in-memory part's.
func (d *streamDedup) StateMetrics() flow.StateMetrics {
	m := flow.StateMetrics{NumRowsTotal: d.state.live(), NumRowsUpdated: d.updated, NumRowsRemoved: d.removed,
		MemoryUsedBytes: d.state.memoryBytes(), SpillBytes: d.state.spillBytes()}
	d.updated, d.removed = 0, 0
	return m
}

// RowsDroppedByWatermark is how many late rows the operator dropped since it started; safe to
// call from any goroutine.
func (d *streamDedup) RowsDroppedByWatermark() int64 { return d.dropped.Load() }

// SnapshotState implements flow.Snapshotter: the live keys with their expiry times, and the
// current watermark.
func (d *streamDedup) SnapshotState(epoch int64) ([]byte, error) {
	c, err := d.CaptureState(epoch)
	if err != nil {
		return nil, err
	}
	return encodeNow(c)
}

// CaptureState implements flow.StateCapturer: the memory part's rows and a view of the spill.
func (d *streamDedup) CaptureState(int64) (flow.StateCapture, error) {
	rows, view := d.state.capture()
	return &dedupCapture{keyed: keyedCapture{watermark: d.watermark, rows: []*rowsCapture{rows},
		fields: [][]arrow.Field{d.fields}}, view: view, codec: d.state.codec}, nil
}

// RestoreState implements flow.Snapshotter.
func (d *streamDedup) RestoreState(data []byte) error {
	r := bytes.NewReader(data)
	wm, err := readVarint(r)
	if err != nil {
		return err
	}
	cols, times, _, err := readSnapshot(d.env.Mem, r)
	if err != nil {
		return err
	}
	defer releaseAll(cols)
	if err := d.state.reset(); err != nil {
		return err
	}
	d.watermark = wm
	return d.state.restore(cols, times)
}

// keyFields are the fields of the key columns of an event schema's user part.
func keyFields(event *arrow.Schema, keyCols []int) []arrow.Field {
	user := flow.UserSchema(event).Fields()
	if keyCols == nil {
		return user
	}
	out := make([]arrow.Field, len(keyCols))
	for i, c := range keyCols {
		out[i] = user[c]
	}
	return out
}

func (d *streamDedup) Close() { _ = d.state.close() }
