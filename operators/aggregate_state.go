package operators

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/state"
)

// The hash aggregate's checkpointed state (flow.Snapshotter, flow.StateCapturer): its group
// keys, live row counts and every accumulator's state. At a barrier the aggregate only captures
// them (the synchronous part: the accumulators' snapshots and copies of the counts; the key
// batches are shared); the runtime encodes the capture in the background. Restoring rebuilds
// the group table in bulk and marks every live group for emission as a fresh row at the next
// barrier: a restored job's downstream starts empty (a complete-mode sink gets the whole result
// again, an update-mode sink an upsert of every group).

// aggregateState is the snapshot (encoded with expr.StateEncoder, fields in order); Keys are
// Arrow IPC streams of the key columns whose rows, in order, are the groups in id order (one
// stream with a record batch per stored key batch; restore reads any number of streams).
type aggregateState struct {
	Groups int
	Keys   [][]byte
	Counts []int64
	Accs   [][]byte
	// Watermark is the event-time watermark the instance reached; Closed the groups it closed
	// (kept so that late rows still find them closed).
	Watermark int64
	Closed    []bool
}

// aggregateCapture is the aggregate's state at a barrier (flow.StateCapture): the key table's
// stored key batches, retained (Arrow arrays are immutable and the table only ever appends
// batches), copies of the counts and closed flags, and the accumulators' snapshots (their
// serialization is their copy).
type aggregateCapture struct {
	mem    memory.Allocator
	keys   [][]arrow.Array
	counts []int64
	closed []bool
	accs   [][]byte
	wm     int64
	// spilled is a view of the spilled groups at the barrier (nil when none).
	spilled *state.View
}

// CaptureState implements flow.StateCapturer.
func (a *hashAggregate) CaptureState(int64) (flow.StateCapture, error) {
	c := &aggregateCapture{mem: a.env.Mem, counts: slices.Clone(a.counts), closed: slices.Clone(a.closed), wm: a.watermark}
	for k, acc := range a.accs {
		b, err := expr.SnapshotAccumulator(a.spec.Aggs[k], acc)
		if err != nil {
			return nil, err
		}
		c.accs = append(c.accs, b)
	}
	if len(a.spec.KeyCols) > 0 && len(a.counts) > 0 {
		for _, cols := range a.table.batches {
			if len(cols) > 0 {
				c.keys = append(c.keys, retainAll(cols))
			}
		}
	}
	if a.spill != nil {
		c.spilled = a.spill.tail.view()
	}
	return c, nil
}

// SnapshotState implements flow.Snapshotter: the capture, encoded at once.
func (a *hashAggregate) SnapshotState(epoch int64) ([]byte, error) {
	c, err := a.CaptureState(epoch)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	return c.Encode()
}

// Release implements flow.StateCapture.
func (c *aggregateCapture) Release() {
	for _, cols := range c.keys {
		releaseAll(cols)
	}
	c.keys = nil
	if c.spilled != nil {
		_ = c.spilled.Close()
		c.spilled = nil
	}
}

// Encode implements flow.StateCapture.
func (c *aggregateCapture) Encode() ([]byte, error) {
	st := aggregateState{Groups: len(c.counts), Counts: c.counts, Accs: c.accs, Watermark: c.wm, Closed: c.closed}
	if len(c.keys) > 0 {
		keys, err := keyIPC(c.mem, c.keys)
		if err != nil {
			return nil, err
		}
		st.Keys = [][]byte{keys}
	}
	size := 48 + 8*len(st.Counts) + len(st.Closed)
	for _, b := range append(st.Keys[:len(st.Keys):len(st.Keys)], st.Accs...) {
		size += 8 + len(b)
	}
	var e expr.StateEncoder
	e.Grow(size)
	e.Int(int64(st.Groups))
	e.Blobs(st.Keys)
	e.Ints(st.Counts)
	e.Blobs(st.Accs)
	e.Int(st.Watermark)
	e.Bools(st.Closed)
	if c.spilled != nil {
		// The spilled groups follow: their count, then each one's encoded key and record.
		var keys, recs [][]byte
		err := scanSpilledGroups(c.spilled, func(key, rec []byte) error {
			keys, recs = append(keys, bytes.Clone(key)), append(recs, bytes.Clone(rec))
			return nil
		})
		if err != nil {
			return nil, err
		}
		e.Int(int64(len(keys)))
		for i := range keys {
			e.Blob(keys[i])
			e.Blob(recs[i])
		}
	}
	return e.Bytes(), nil
}

// keyIPC writes key batches, in order, as one Arrow IPC stream.
func keyIPC(mem memory.Allocator, batches [][]arrow.Array) ([]byte, error) {
	cols := batches[0]
	fields := make([]arrow.Field, len(cols))
	for k, c := range cols {
		fields[k] = arrow.Field{Name: fmt.Sprintf("k%d", k), Type: c.DataType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	var b bytes.Buffer
	size := 1024
	for _, cols := range batches {
		size += 512 + int(arraysBytes(cols))
	}
	b.Grow(size)
	w := ipc.NewWriter(&b, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	var err error
	for _, cols := range batches {
		rec := array.NewRecordBatch(schema, cols, int64(cols[0].Len()))
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("aggregate state: %w", err)
	}
	return b.Bytes(), nil
}

// RestoreState implements flow.Snapshotter. It runs before the instance sees input: it builds
// the group table in bulk (pre-sized, the snapshot's key batches kept as the table's stored
// batches) and takes the decoded slices as the group arrays.
func (a *hashAggregate) RestoreState(data []byte) error {
	d := expr.NewStateDecoder(data)
	st := aggregateState{Groups: int(d.Int()), Keys: d.Blobs(), Counts: d.Ints(), Accs: d.Blobs(),
		Watermark: d.Int(), Closed: d.Bools()}
	var spilledKeys, spilledRecs [][]byte
	if d.Err == nil && d.Len() > 0 {
		n := d.Int()
		for i := int64(0); i < n && d.Err == nil; i++ {
			spilledKeys, spilledRecs = append(spilledKeys, d.Blob()), append(spilledRecs, d.Blob())
		}
	}
	if d.Err != nil {
		return fmt.Errorf("aggregate state: %w", d.Err)
	}
	n := st.Groups
	if len(st.Accs) != len(a.accs) || len(st.Counts) != n || len(st.Closed) > n {
		return fmt.Errorf("aggregate state: snapshot has %d aggregates and %d groups, the operator %d aggregates",
			len(st.Accs), n, len(a.accs))
	}
	if len(a.spec.KeyCols) > 0 {
		if err := a.table.restoreRows(a.env.Mem, st.Keys, len(a.spec.KeyCols), n); err != nil {
			return err
		}
	} else if n != 1 {
		return fmt.Errorf("aggregate state: a global aggregate's snapshot has %d groups", n)
	}
	a.counts = st.Counts
	a.closed = make([]bool, n)
	copy(a.closed, st.Closed)
	a.changed = make([]bool, n)
	a.emitted = make([]bool, n)
	a.old.pos = make([]uint32, n)
	a.watermark = max(a.watermark, st.Watermark)
	for k, acc := range a.accs {
		acc.Grow(n)
		if err := expr.RestoreAccumulator(a.spec.Aggs[k], acc, st.Accs[k]); err != nil {
			return err
		}
	}
	// Downstream has every live group's row, except a complete-mode sink, which starts empty
	// after a restart and gets every group again. (In append mode no row is out until the
	// watermark closes its group, which then leaves the state.)
	for g := range a.counts {
		if a.live(uint32(g)) {
			a.changed[g] = a.spec.Complete
			a.emitted[g] = !a.spec.Complete && !a.appends()
		}
	}
	if a.spill != nil {
		a.spill.lastUse = make([]uint32, n)
	}
	if err := a.restoreSpilled(spilledKeys, spilledRecs); err != nil {
		return err
	}
	// Memory keeps what the budget allows; the rest spills.
	return a.spillOver()
}

// restoreRows fills an empty table with n distinct key rows (ncols columns) read from Arrow
// IPC streams, ids in row order: each record batch becomes a stored batch as it is, the hash
// map is pre-sized, each key costs one map insert (distinct keys, so nothing to look up or
// compare) and the one-id lists share one backing array (no per-key allocation).
func (t *rowTable) restoreRows(mem memory.Allocator, streams [][]byte, ncols, n int) error {
	if len(t.refs) != 0 {
		return fmt.Errorf("aggregate state: restoring into a table that holds %d keys", len(t.refs))
	}
	t.byHash = make(map[uint64][]uint32, n)
	t.refs = make([]rowRef, 0, n)
	backing := make([]uint32, n)
	var hs []uint64
	for _, data := range streams {
		r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(mem))
		if err != nil {
			return fmt.Errorf("aggregate state: %w", err)
		}
		for r.Next() {
			rec := r.RecordBatch()
			rows := int(rec.NumRows())
			if int(rec.NumCols()) != ncols {
				r.Release()
				return fmt.Errorf("aggregate state: snapshot has %d key columns, the operator %d", rec.NumCols(), ncols)
			}
			if len(t.refs)+rows > n {
				r.Release()
				return fmt.Errorf("aggregate state: snapshot keys make more than %d groups", n)
			}
			if rows == 0 {
				continue
			}
			bi := int32(len(t.batches))
			t.batches = append(t.batches, retainAll(rec.Columns()))
			hs = slices.Grow(hs[:0], rows)[:rows]
			hashColumns(rec.Columns(), 0, hs)
			for i, h := range hs {
				id := uint32(len(t.refs))
				t.refs = append(t.refs, rowRef{bi, int32(i)})
				backing[id] = id
				t.byHash[h] = backing[id : id+1 : id+1]
			}
		}
		err = r.Err()
		r.Release()
		if err != nil {
			return fmt.Errorf("aggregate state: %w", err)
		}
	}
	if len(t.refs) != n {
		return fmt.Errorf("aggregate state: snapshot keys make %d groups, expected %d", len(t.refs), n)
	}
	if len(t.byHash) != n {
		// Distinct keys whose 64-bit hashes collide (rare): the blind inserts above kept one
		// id per hash; index every id again, listing the colliding ones together.
		t.byHash = make(map[uint64][]uint32, n)
		id := uint32(0)
		for _, cols := range t.batches {
			hs = slices.Grow(hs[:0], cols[0].Len())[:cols[0].Len()]
			hashColumns(cols, 0, hs)
			for _, h := range hs {
				if ids, ok := t.byHash[h]; ok {
					t.byHash[h] = append(ids, id)
				} else {
					t.byHash[h] = backing[id : id+1 : id+1]
				}
				id++
			}
		}
	}
	return nil
}

// StateMetrics implements flow.StateReporter: called at each barrier before the epoch's
// emission, so changed groups are this epoch's, and groups the watermark closes at this barrier
// count as removed (not in the total).
func (a *hashAggregate) StateMetrics() flow.StateMetrics {
	var m flow.StateMetrics
	closing := map[uint32]bool{}
	if a.evicting() && len(a.spec.KeyCols) > 0 {
		for _, g := range a.closedGroups() {
			closing[g] = true
		}
	}
	for g := range a.counts {
		if a.closed[g] {
			continue
		}
		live := a.live(uint32(g))
		if closing[uint32(g)] {
			if live || a.emitted[g] {
				m.NumRowsRemoved++
			}
			continue
		}
		if live {
			m.NumRowsTotal++
		}
		if !a.changed[g] {
			continue
		}
		switch {
		case live:
			m.NumRowsUpdated++
		case a.emitted[g]:
			m.NumRowsRemoved++
		}
	}
	m.MemoryUsedBytes = int64(len(a.counts)) * 48
	for _, acc := range a.accs {
		m.MemoryUsedBytes += acc.SizeBytes()
	}
	if a.spill != nil {
		// Spilled groups are live; those the watermark closes at this barrier count as removed.
		expired := a.spilledExpired()
		m.NumRowsTotal += a.spill.tail.spilled - expired
		m.NumRowsRemoved += expired
		m.MemoryUsedBytes = a.memoryBytes()
		m.SpillBytes = a.spill.tail.spillBytes()
	}
	return m
}
