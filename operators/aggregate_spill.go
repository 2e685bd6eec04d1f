package operators

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/state"
)

// A streaming aggregate's spill (AggregateSpec.Budget limited, grouping keys present). The
// groups live in one of two places: memory (the key table, counts, flags and accumulators,
// dense ids) or a scratch store (state.Spill), never both. At a barrier, after the epoch's
// emission (no group is changed then), when the memory part outgrows the budget, the least
// recently used live groups move to the store until the memory part is half the budget, the
// closed and empty groups are dropped, and the memory part is rebuilt with the rest under new
// dense ids (in their old order). A key that is not in memory and that the store's filter of
// key hashes says may be spilled is looked up there when a batch brings it, and its group comes
// back into memory (and leaves the store) before the batch feeds it. Watermark eviction and
// append-mode emission bring the spilled groups the watermark closes back into memory first
// (an index by event time finds them), then treat them like the others. Snapshots write the
// spilled groups after the memory part (from a view of the store taken at the barrier, read by
// the background encoder); a restore puts them back in the store, or in memory when the budget
// is unlimited or the output is complete mode (every group is emitted again at the first
// barrier after a restore, from memory).
//
// Store layout: "g" + encoded key → the group's record (spillRecord); when the aggregate evicts
// by event time, also "t" + order-preserving event time + encoded key → nothing. The store,
// its filter of key hashes and the counts are a spillTail's (shared with the dedup and the join).

const (
	aggSpillGroup = 'g'
	aggSpillTime  = 't'
)

// aggregateSpill is the spilled part of a streaming aggregate and what the aggregate keeps to
// choose the groups that go.
type aggregateSpill struct {
	tail  spillTail
	codec *rowCodec
	// codecErr is why the keys cannot be encoded (an error once something must spill).
	codecErr error
	// lastUse is, per memory group, the epoch count when a batch last fed it.
	lastUse []uint32
	epoch   uint32
	buf     []byte
}

// spillRecord is a spilled group: its event time (noTime when not indexed) and key hash (to
// rebuild the filter), 8 bytes big-endian each (spillTail's layout), then, encoded with
// expr.StateEncoder, its live row count, whether its row is out downstream and each
// accumulator's group state.
func (a *hashAggregate) spillRecord(g uint32, h uint64, t int64) ([]byte, error) {
	var e expr.StateEncoder
	// Two 8-byte slots, rewritten big-endian.
	e.Int(t)
	e.Int(int64(h))
	head := e.Bytes()
	binary.BigEndian.PutUint64(head, uint64(t))
	binary.BigEndian.PutUint64(head[8:], h)
	e.Int(a.counts[g])
	e.Int(boolInt64(a.emitted[g]))
	for k, acc := range a.accs {
		st, err := expr.EncodeGroupState(a.spec.Aggs[k], acc, a.spill.buf[:0], g)
		if err != nil {
			return nil, err
		}
		a.spill.buf = st
		e.Blob(st)
	}
	return e.Bytes(), nil
}

func boolInt64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// newAggregateSpill prepares the spill of an aggregate with a limited budget and grouping
// keys, nil otherwise.
func newAggregateSpill(a *hashAggregate) *aggregateSpill {
	b := a.spec.Budget
	if !b.Limited() || !a.spec.Streaming || len(a.spec.KeyCols) == 0 || a.env.OutSchema == nil {
		return nil
	}
	codec, err := a.keyCodec()
	return &aggregateSpill{tail: spillTail{budget: b}, codec: codec, codecErr: err}
}

// keyCodec encodes the aggregate's key rows (of the output's key column types).
func (a *hashAggregate) keyCodec() (*rowCodec, error) {
	if a.env.OutSchema == nil {
		return nil, sparkerr.Internal("aggregate spill: no output schema")
	}
	fields := make([]arrow.Field, len(a.spec.KeyCols))
	for k := range fields {
		fields[k] = a.env.OutSchema.Field(flow.UserOffset + k)
	}
	return newRowCodec(fields)
}

// indexesTime reports whether spilled groups are indexed by event time (the aggregate evicts).
func (a *hashAggregate) indexesTime() bool {
	return a.spec.EventTime != nil && a.spec.EventTime.Evict
}

// memoryBytes estimates the memory part: key rows and their hash index, per-group arrays,
// accumulators, the spill's filter.
func (a *hashAggregate) memoryBytes() int64 {
	n := int64(len(a.counts))
	size := n * (8 + 3 + 4 + 4 + 48)
	for _, cols := range a.table.batches {
		size += arraysBytes(cols)
	}
	for _, acc := range a.accs {
		size += acc.SizeBytes()
	}
	if a.spill != nil {
		size += a.spill.tail.filterBytes()
	}
	return size
}

// used records that groups were fed this epoch.
func (s *aggregateSpill) used(groups []uint32) {
	for _, g := range groups {
		s.lastUse[g] = s.epoch
	}
}

// lookupKeys maps the key rows of a batch to group ids (creating groups for new keys) and,
// when groups are spilled, brings the batch's spilled keys back into memory first.
func (a *hashAggregate) lookupKeys(keys []arrow.Array, groups []uint32) error {
	if a.spill == nil || a.spill.tail.spilled == 0 {
		_, err := a.table.lookup(keys, groups, true, a.addGroup)
		return err
	}
	hs := make([]uint64, len(groups))
	hashColumns(keys, 0, hs)
	fresh, err := a.table.lookupHashed(keys, hs, groups, true, a.addGroup)
	if err != nil {
		return err
	}
	s := a.spill
	var w *state.Batch
	for _, r := range fresh {
		if !s.tail.mayHold(hs[r]) {
			continue
		}
		key := s.codec.encode([]byte{aggSpillGroup}, keys, int(r))
		rec, ok, err := s.tail.spill.Get(key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if w == nil {
			w = s.tail.spill.NewBatch()
		}
		if err := a.unspill(w, groups[r], key, rec); err != nil {
			w.Close()
			return err
		}
	}
	if w == nil {
		return nil
	}
	if err := w.Commit(); err != nil {
		return err
	}
	return s.tail.refilter(aggSpillGroup)
}

// unspill loads a spilled group's record (key: its store key) into the new memory group g
// and removes it from the store through w.
func (a *hashAggregate) unspill(w *state.Batch, g uint32, key, rec []byte) error {
	if len(rec) < 16 {
		return sparkerr.Internal("aggregate spill: a record of %d bytes", len(rec))
	}
	t := int64(binary.BigEndian.Uint64(rec))
	d := expr.NewStateDecoder(rec[16:])
	count, emitted := d.Int(), d.Int() != 0
	states := make([][]byte, len(a.accs))
	for k := range states {
		states[k] = d.Blob()
	}
	if d.Err != nil {
		return sparkerr.Internal("aggregate spill: bad record: %v", d.Err).Wrap(d.Err)
	}
	for k, acc := range a.accs {
		if err := expr.LoadGroupState(a.spec.Aggs[k], acc, g, states[k]); err != nil {
			return err
		}
	}
	a.counts[g], a.emitted[g], a.changed[g] = count, emitted, false
	if w == nil {
		return nil
	}
	s := a.spill
	if err := w.Delete(key); err != nil {
		return err
	}
	if t != noTime {
		if err := w.Delete(timeKey(t, key[1:])); err != nil {
			return err
		}
	}
	s.tail.removed(1)
	return nil
}

// timeKey is the event-time index key of an encoded key.
func timeKey(t int64, key []byte) []byte {
	tk := binary.BigEndian.AppendUint64([]byte{aggSpillTime}, orderedTime(t))
	return append(tk, key...)
}

// loadRecords brings spilled groups (encoded keys without prefix, records) into memory as new
// groups; w, when set, removes them from the store.
func (a *hashAggregate) loadRecords(w *state.Batch, keys, recs [][]byte) error {
	const chunk = 4096
	for lo := 0; lo < len(keys); lo += chunk {
		hi := min(len(keys), lo+chunk)
		cols, err := a.spill.codec.decode(a.env.Mem, keys[lo:hi])
		if err != nil {
			return err
		}
		groups := make([]uint32, hi-lo)
		_, err = a.table.lookup(cols, groups, true, a.addGroup)
		releaseAll(cols)
		if err != nil {
			return err
		}
		for i, g := range groups {
			key := append([]byte{aggSpillGroup}, keys[lo+i]...)
			if err := a.unspill(w, g, key, recs[lo+i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// scanExpired calls fn with the encoded key of every spilled group the watermark closed (none
// unless the aggregate evicts by event time).
func (a *hashAggregate) scanExpired(fn func(key []byte)) error {
	s := a.spill
	if s == nil || s.tail.spilled == 0 || !a.evicting() || !a.indexesTime() {
		return nil
	}
	upper := binary.BigEndian.AppendUint64([]byte{aggSpillTime}, orderedTime(a.watermark)+1)
	if a.watermark == math.MaxInt64 {
		upper = []byte{aggSpillTime + 1}
	}
	return s.tail.spill.Scan([]byte{aggSpillTime}, upper, func(k, _ []byte) error {
		fn(k[9:])
		return nil
	})
}

// spilledExpired counts the spilled groups the watermark closed (0 when it cannot tell).
func (a *hashAggregate) spilledExpired() int64 {
	var n int64
	if err := a.scanExpired(func([]byte) { n++ }); err != nil {
		return 0
	}
	return n
}

// loadExpired brings the spilled groups the watermark closed back into memory.
func (a *hashAggregate) loadExpired() error {
	s := a.spill
	var keys, recs [][]byte
	err := a.scanExpired(func(k []byte) { keys = append(keys, bytes.Clone(k)) })
	if err != nil || len(keys) == 0 {
		return err
	}
	for _, k := range keys {
		rec, ok, err := s.tail.spill.Get(append([]byte{aggSpillGroup}, k...))
		if err != nil {
			return err
		}
		if !ok {
			return sparkerr.Internal("aggregate spill: a time index entry without its group")
		}
		recs = append(recs, rec)
	}
	w := s.tail.spill.NewBatch()
	if err := a.loadRecords(w, keys, recs); err != nil {
		w.Close()
		return err
	}
	if err := w.Commit(); err != nil {
		return err
	}
	return s.tail.refilter(aggSpillGroup)
}

// spillOver moves the least recently used groups to the store when the memory part is over
// budget (see the file comment). It runs at a barrier after the emission.
func (a *hashAggregate) spillOver() error {
	s := a.spill
	if s == nil {
		return nil
	}
	s.epoch++
	size := a.memoryBytes()
	if size <= s.tail.budget.MemoryBytes || len(a.counts) == 0 {
		return nil
	}
	if s.codecErr != nil {
		return s.codecErr
	}
	var keep, cold []uint32
	for g := range a.counts {
		switch {
		case a.changed[g]:
			keep = append(keep, uint32(g)) // to be emitted (a restored complete-mode state)
		case a.closed[g] || !a.live(uint32(g)):
		default:
			cold = append(cold, uint32(g))
		}
	}
	// Most recently used first; the first ones stay while they fit half the budget (less the
	// filter, which grows with what spills).
	slices.SortStableFunc(cold, func(x, y uint32) int { return int(s.lastUse[y]) - int(s.lastUse[x]) })
	filter := s.tail.filterBytes()
	perGroup := max(1, (size-filter)/int64(len(a.counts)))
	room := int(max(0, (s.tail.budget.MemoryBytes/2-filter)/perGroup-int64(len(keep))))
	room = min(room, len(cold))
	keep = append(keep, cold[:room]...)
	cold = cold[room:]
	if len(keep) == len(a.counts) {
		return nil // nothing can go (every group is to be emitted)
	}
	slices.Sort(keep)
	if len(cold) > 0 {
		if err := a.writeSpilled(cold); err != nil {
			return err
		}
	}
	return a.rebuild(keep)
}

// writeSpilled writes groups gs to the store.
func (a *hashAggregate) writeSpilled(gs []uint32) error {
	s := a.spill
	if err := s.tail.open(); err != nil {
		return err
	}
	const chunk = 4096
	for lo := 0; lo < len(gs); lo += chunk {
		part := gs[lo:min(len(gs), lo+chunk)]
		keys, err := a.table.gather(a.env.Mem, part)
		if err != nil {
			return err
		}
		hs := make([]uint64, len(part))
		hashColumns(keys, 0, hs)
		var times []int64
		if a.indexesTime() {
			times = eventTimeValues(keys[a.spec.EventTime.Key])
		}
		w := s.tail.spill.NewBatch()
		for i, g := range part {
			t := int64(noTime)
			if times != nil {
				t = times[i]
			}
			key := s.codec.encode([]byte{aggSpillGroup}, keys, i)
			rec, err := a.spillRecord(g, hs[i], t)
			if err == nil {
				err = w.Put(key, rec)
			}
			if err == nil && t != noTime {
				err = w.Put(timeKey(t, key[1:]), nil)
			}
			if err != nil {
				w.Close()
				releaseAll(keys)
				return err
			}
			s.tail.added(hs[i], true)
		}
		releaseAll(keys)
		if err := w.Commit(); err != nil {
			return err
		}
	}
	return s.tail.refilter(aggSpillGroup)
}

// rebuild makes the memory part hold only groups keep (in id order) under new dense ids.
func (a *hashAggregate) rebuild(keep []uint32) error {
	table := newRowTable(a.env.Mem)
	accs := make([]expr.GroupedAccumulator, len(a.accs))
	for k, f := range a.spec.Aggs {
		accs[k] = f.NewAccumulator(a.ctx)
		accs[k].Grow(len(keep))
	}
	n := len(keep)
	counts, changed, emitted, closed := make([]int64, n), make([]bool, n), make([]bool, n), make([]bool, n)
	lastUse := make([]uint32, n)
	for j, g := range keep {
		counts[j], changed[j], emitted[j], closed[j] = a.counts[g], a.changed[g], a.emitted[g], a.closed[g]
		lastUse[j] = a.spill.lastUse[g]
		for k, acc := range a.accs {
			st, err := expr.EncodeGroupState(a.spec.Aggs[k], acc, a.spill.buf[:0], g)
			if err == nil {
				a.spill.buf = st
				err = expr.LoadGroupState(a.spec.Aggs[k], accs[k], uint32(j), st)
			}
			if err != nil {
				table.release()
				return err
			}
		}
	}
	if n > 0 {
		keys, err := a.table.gather(a.env.Mem, keep)
		if err != nil {
			table.release()
			return err
		}
		// Copies: gathered columns may be slices that hold on to the old batches' buffers.
		for k, col := range keys {
			c, err := array.Concatenate([]arrow.Array{col}, a.env.Mem)
			if err != nil {
				releaseAll(keys)
				table.release()
				return sparkerr.Internal("aggregate spill: copying keys: %v", err).Wrap(err)
			}
			col.Release()
			keys[k] = c
		}
		next := uint32(0)
		ids := make([]uint32, n)
		_, err = table.lookup(keys, ids, true, func() uint32 { next++; return next - 1 })
		releaseAll(keys)
		if err != nil {
			table.release()
			return err
		}
	}
	a.table.release()
	a.table, a.accs = table, accs
	a.counts, a.changed, a.emitted, a.closed = counts, changed, emitted, closed
	a.old.pos = make([]uint32, n)
	a.spill.lastUse = lastUse
	return nil
}

// scanSpilledGroups calls fn with the encoded key (without prefix) and record of every group
// of a view of the store.
func scanSpilledGroups(v *state.View, fn func(key, rec []byte) error) error {
	return v.Scan([]byte{aggSpillGroup}, []byte{aggSpillGroup + 1}, func(k, rec []byte) error {
		return fn(k[1:], rec)
	})
}

// restoreSpilled puts a snapshot's spilled groups back: in the store, or into memory when the
// budget is unlimited or the output is complete mode.
func (a *hashAggregate) restoreSpilled(keys, recs [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	if a.spill == nil || a.spec.Complete {
		if a.spill == nil {
			// Unlimited now: only the key codec is needed, while loading.
			codec, err := a.keyCodec()
			if err != nil {
				return err
			}
			a.spill = &aggregateSpill{codec: codec, lastUse: make([]uint32, len(a.counts))}
			defer func() { a.spill = nil }()
		}
		if err := a.loadRecords(nil, keys, recs); err != nil {
			return err
		}
		if a.spec.Complete {
			for g := range a.counts {
				if a.live(uint32(g)) {
					a.changed[g], a.emitted[g] = true, false
				}
			}
		}
		return nil
	}
	s := a.spill
	if err := s.tail.open(); err != nil {
		return err
	}
	w := s.tail.spill.NewBatch()
	for i, k := range keys {
		key := append([]byte{aggSpillGroup}, k...)
		err := w.Put(key, recs[i])
		if err == nil && len(recs[i]) < 16 {
			err = sparkerr.Internal("aggregate state: a spilled group of %d bytes", len(recs[i]))
		}
		var t int64
		var h uint64
		if err == nil {
			t, h = int64(binary.BigEndian.Uint64(recs[i])), binary.BigEndian.Uint64(recs[i][8:])
		}
		if err == nil && t != noTime {
			err = w.Put(timeKey(t, k), nil)
		}
		if err != nil {
			w.Close()
			return err
		}
		s.tail.added(h, true)
	}
	if err := w.Commit(); err != nil {
		return err
	}
	return s.tail.refilter(aggSpillGroup)
}

// close closes (removes) the store.
func (s *aggregateSpill) close() {
	if s != nil {
		_ = s.tail.reset()
	}
}
