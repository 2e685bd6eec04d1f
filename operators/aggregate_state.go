package operators

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/flow"
)

// The hash aggregate's checkpointed state (flow.Snapshotter): its group keys, live row counts
// and every accumulator's state. Restoring rebuilds the groups in id order and marks every live
// group for emission as a fresh row at the next barrier: a restored job's downstream starts
// empty (a complete-mode sink gets the whole result again, an update-mode sink an upsert of
// every group).

// aggregateState is the snapshot (encoded with expr.StateEncoder, fields in order); Keys are Arrow IPC streams of the key
// columns whose rows, in order, are the groups in id order.
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

// SnapshotState implements flow.Snapshotter.
func (a *hashAggregate) SnapshotState(int64) ([]byte, error) {
	st := aggregateState{Groups: len(a.counts), Counts: a.counts, Watermark: a.watermark, Closed: a.closed}
	if len(a.spec.KeyCols) > 0 && len(a.counts) > 0 {
		keys, err := a.keyIPC()
		if err != nil {
			return nil, err
		}
		st.Keys = keys
	}
	for k, acc := range a.accs {
		b, err := expr.SnapshotAccumulator(a.spec.Aggs[k], acc)
		if err != nil {
			return nil, err
		}
		st.Accs = append(st.Accs, b)
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
	return e.Bytes(), nil
}

// keyIPC writes every group's key columns, in id order, as Arrow IPC streams: the key table's
// stored key batches as they are (ids are assigned in stored-row order), one stream each.
func (a *hashAggregate) keyIPC() ([][]byte, error) {
	var out [][]byte
	for _, cols := range a.table.batches {
		if len(cols) == 0 {
			continue
		}
		fields := make([]arrow.Field, len(cols))
		for k, c := range cols {
			fields[k] = arrow.Field{Name: fmt.Sprintf("k%d", k), Type: c.DataType(), Nullable: true}
		}
		schema := arrow.NewSchema(fields, nil)
		rec := array.NewRecordBatch(schema, cols, int64(cols[0].Len()))
		var b bytes.Buffer
		w := ipc.NewWriter(&b, ipc.WithSchema(schema), ipc.WithAllocator(a.env.Mem))
		err := w.Write(rec)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("aggregate state: %w", err)
		}
		out = append(out, b.Bytes())
	}
	return out, nil
}

// RestoreState implements flow.Snapshotter. It runs before the instance sees input.
func (a *hashAggregate) RestoreState(data []byte) error {
	d := expr.NewStateDecoder(data)
	st := aggregateState{Groups: int(d.Int()), Keys: d.Blobs(), Counts: d.Ints(), Accs: d.Blobs(),
		Watermark: d.Int(), Closed: d.Bools()}
	if d.Err != nil {
		return fmt.Errorf("aggregate state: %w", d.Err)
	}
	if len(st.Accs) != len(a.accs) || len(st.Counts) != st.Groups {
		return fmt.Errorf("aggregate state: snapshot has %d aggregates and %d groups, the operator %d aggregates",
			len(st.Accs), st.Groups, len(a.accs))
	}
	if len(a.spec.KeyCols) > 0 && st.Groups > 0 {
		if err := a.restoreKeys(st.Keys, st.Groups); err != nil {
			return err
		}
	}
	for len(a.counts) < st.Groups {
		a.addGroup()
	}
	copy(a.counts, st.Counts)
	copy(a.closed, st.Closed)
	a.watermark = max(a.watermark, st.Watermark)
	for k, acc := range a.accs {
		if err := expr.RestoreAccumulator(a.spec.Aggs[k], acc, st.Accs[k]); err != nil {
			return err
		}
	}
	for g := range a.counts {
		a.emitted[g] = nil
		a.changed[g] = a.live(uint32(g))
	}
	return nil
}

// restoreKeys re-creates groups 0..n-1 from their key rows.
func (a *hashAggregate) restoreKeys(streams [][]byte, n int) error {
	for _, data := range streams {
		if err := a.restoreKeyStream(data); err != nil {
			return err
		}
	}
	if len(a.counts) != n {
		return fmt.Errorf("aggregate state: snapshot keys make %d groups, expected %d", len(a.counts), n)
	}
	return nil
}

func (a *hashAggregate) restoreKeyStream(data []byte) error {
	r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(a.env.Mem))
	if err != nil {
		return fmt.Errorf("aggregate state: %w", err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		if int(rec.NumCols()) != len(a.spec.KeyCols) {
			return fmt.Errorf("aggregate state: snapshot has %d key columns, the operator %d", rec.NumCols(), len(a.spec.KeyCols))
		}
		ids := make([]uint32, rec.NumRows())
		if _, err := a.table.lookup(rec.Columns(), ids, true, func() uint32 { return a.addGroup() }); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("aggregate state: %w", err)
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
			if live || a.emitted[g] != nil {
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
		case a.emitted[g] != nil:
			m.NumRowsRemoved++
		}
	}
	m.MemoryUsedBytes = int64(len(a.counts)) * 48
	for _, acc := range a.accs {
		m.MemoryUsedBytes += acc.SizeBytes()
	}
	return m
}
