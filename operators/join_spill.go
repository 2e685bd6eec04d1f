package operators

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/state"
)

// joinSpill is the spilled part of one side of a stream-stream join. The side's working set is
// its keyedRows in memory; when that outgrows the side's share of the memory budget, the oldest
// stored batches (by insertion) move to a scratch spill store (state.Spill, opened on first
// use). A row lives in exactly one of the two parts. A probe checks memory and then the spill —
// only when the filter of spilled key hashes says the key may be there — and the spilled rows
// it finds are decoded into a probe batch for the duration of one Process (refs of batch
// spilledBatch), whose matched flags and removals are written back at its end. Eviction by
// watermark reads the expired spilled rows as one range of an expiry index.
//
// Spill layout (the side's key columns and user columns encoded by rowCodec):
//
//	"r" + encoded key + seq (8 bytes) → event time (8) + key hash (8) + matched (1) + encoded row
//	"t" + order-preserving event time + seq → the "r" key, for rows with an event time
//
// The encoded key is self-delimiting, so a key's rows are the range of its "r" prefix; seq
// numbers the spilled rows in spill order.
type joinSpill struct {
	// spillTail has the store, the filter of the spilled rows' key hashes and their count; its
	// budget is the side's share of the operator's.
	spillTail
	// codec encodes the side's user columns (made on the first spill).
	codec *rowCodec
	seq   uint64
	// buf, vbuf and tbuf are scratch for keys and values written (the store copies them).
	buf, vbuf, tbuf []byte
	probe           spillProbe
}

// spilledBatch is the batch number of the probe batch's rows (before every memory batch).
const spilledBatch = -1

const (
	spillRowPrefix = 'r'
	// spillTimePrefix ('t') is the expiry index, as the dedup's.
)

// spillProbe is the spilled rows one Process found: their "r" keys and values, in the order
// found, the rows each encoded key found (so a key is read from the store once), and, once
// loaded, the rows decoded as a stored batch (alive and matched change with the joining). Its
// cursor reads the keys' ranges.
type spillProbe struct {
	entries, values [][]byte
	byKey           map[string][]int32
	batch           *storedBatch
	cursor          *state.Cursor
}

// sideBudget is one side's share of the operator's budget: half, at least one byte.
func sideBudget(b state.Budget) state.Budget {
	if b.Limited() {
		b.MemoryBytes = max(1, b.MemoryBytes/2)
	}
	return b
}

// liveRows is the number of rows the side holds, in memory and spilled.
func (s *joinSide) liveRows() int64 { return s.state.live + s.sp.spilled }

// memoryBytes is the side's in-memory size: the rows kept and the spill's filter.
func (s *joinSide) memoryBytes() int64 { return s.state.bytes + s.sp.filterBytes() }

// stored is the stored batch b: a memory batch, or the probe batch.
func (s *joinSide) stored(b int32) *storedBatch {
	if b == spilledBatch {
		return s.sp.probe.batch
	}
	return s.state.batches[b]
}

// gather returns the user columns of stored rows refs (memory or probe batch), in order.
func (s *joinSide) gather(refs []rowRef) ([]arrow.Array, error) {
	return gatherRows(s.state.mem, func(b int32) []arrow.Array { return s.stored(b).cols }, refs, s.types)
}

// removeRow drops a stored row (a probe row leaves the spill when the probe finishes).
func (s *joinSide) removeRow(ref rowRef) {
	if ref.batch == spilledBatch {
		s.sp.probe.batch.alive[ref.row] = false
		return
	}
	s.state.remove(ref)
}

// tidy drops the released memory batches (spilled, evicted or removed) from the list.
func (s *joinSide) tidy() { s.sp.tidy(s.state) }

// spillOver moves the oldest memory batches to the spill until the memory part fits the side's
// share of the budget.
func (s *joinSide) spillOver() error {
	sp := &s.sp
	if !sp.overBudget(s.state) {
		return nil
	}
	if err := s.makeCodec(); err != nil {
		return err
	}
	if err := sp.moveOldest(s.state, s.putSpilled); err != nil {
		return err
	}
	return sp.refilter(spillRowPrefix)
}

// makeCodec makes the codec of the side's user columns unless it is made.
func (s *joinSide) makeCodec() error {
	if s.sp.codec != nil {
		return nil
	}
	codec, err := newRowCodec(s.fields)
	if err != nil {
		return err
	}
	s.sp.codec = codec
	return nil
}

// restore loads a side's rows from a snapshot, oldest first (user columns, key columns, key
// hashes, event times, matched flags, whether each key is indexed): the newest that fit the
// side's share of the budget into memory, in chunks of about an eighth of it (an estimate a
// little off spills a chunk, not all), the others straight into the spill.
func (s *joinSide) restore(cols, keys []arrow.Array, hs []uint64, times []int64, matched, indexed []bool) error {
	n := len(times)
	split, chunk := 0, n
	if s.sp.budget.Limited() {
		perRow := (arraysBytes(cols)+arraysBytes(keys))/int64(n) + 40
		fit := min(s.sp.budget.MemoryBytes/max(perRow, 1), int64(n))
		split, chunk = n-int(fit), int(min(max(fit/8, 1), BatchRows))
	}
	if split > 0 {
		all := &storedBatch{cols: cols, keys: keys, hashes: hs, times: times, matched: matched, hashed: indexed}
		if err := s.spillRows(all, split); err != nil {
			return err
		}
	}
	for lo := split; lo < n; lo += chunk {
		idx := make([]int64, min(n, lo+chunk)-lo)
		for k := range idx {
			idx[k] = int64(lo + k)
		}
		if err := s.state.add(cols, keys, hs, times, idx, indexed); err != nil {
			return err
		}
		copy(s.state.batches[len(s.state.batches)-1].matched, matched[lo:])
		if err := s.spillOver(); err != nil {
			return err
		}
	}
	return nil
}

// spillRows writes the first n rows of b straight to the spill.
func (s *joinSide) spillRows(b *storedBatch, n int) error {
	if err := s.makeCodec(); err != nil {
		return err
	}
	if err := s.sp.open(); err != nil {
		return err
	}
	const chunk = 4096
	for lo := 0; lo < n; lo += chunk {
		w := s.sp.spill.NewBatch()
		for r := lo; r < min(lo+chunk, n); r++ {
			if err := s.putSpilled(w, b, r); err != nil {
				w.Close()
				return err
			}
		}
		if err := w.Commit(); err != nil {
			return err
		}
	}
	return s.sp.refilter(spillRowPrefix)
}

// putSpilled writes row r of memory batch b to the spill through w.
func (s *joinSide) putSpilled(w *state.Batch, b *storedBatch, r int) error {
	sp := &s.sp
	for _, k := range b.keys {
		if !encodable(k.DataType()) {
			return sparkerr.Unsupported("spilling stream-stream join state keyed by a column of type %s", k.DataType())
		}
	}
	key := sp.codec.encode(append(sp.buf[:0], spillRowPrefix), b.keys, r)
	key = binary.BigEndian.AppendUint64(key, sp.seq)
	sp.buf = key
	v := append(sp.vbuf[:0], make([]byte, 17)...)
	binary.BigEndian.PutUint64(v, uint64(b.times[r]))
	binary.BigEndian.PutUint64(v[8:], b.hashes[r])
	if b.matched[r] {
		v[16] = 1
	}
	v = sp.codec.encode(v, b.cols, r)
	sp.vbuf = v
	if err := w.Put(key, v); err != nil {
		return err
	}
	sp.added(b.hashes[r], b.hashed[r])
	sp.seq++
	if b.times[r] == noTime {
		return nil
	}
	sp.tbuf = appendTimeKey(sp.tbuf[:0], b.times[r], key)
	return w.Put(sp.tbuf, key)
}

// appendTimeKey appends the expiry index key of the spilled row of "r" key key and event time
// t to buf.
func appendTimeKey(buf []byte, t int64, key []byte) []byte {
	buf = binary.BigEndian.AppendUint64(append(buf, spillTimePrefix), orderedTime(t))
	return append(buf, key[len(key)-8:]...)
}

// findSpilled calls fn for every spilled row whose key equals row i of keys (hash h; no NULL),
// as a reference into the probe batch (loadProbe decodes it). The caller checked that
// something is spilled.
func (s *joinSide) findSpilled(keys []arrow.Array, i int, h uint64, fn func(ref rowRef)) error {
	sp := &s.sp
	if !sp.mayHold(h) {
		return nil
	}
	p := &sp.probe
	sp.buf = sp.codec.encode(append(sp.buf[:0], spillRowPrefix), keys, i)
	rows, ok := p.byKey[string(sp.buf)]
	if !ok {
		if p.byKey == nil {
			p.byKey = map[string][]int32{}
		}
		if p.cursor == nil {
			c, err := sp.spill.Cursor()
			if err != nil {
				return err
			}
			p.cursor = c
		}
		err := p.cursor.Scan(sp.buf, prefixEnd(sp.buf), func(key, value []byte) error {
			rows = append(rows, int32(len(p.entries)))
			p.entries = append(p.entries, bytes.Clone(key))
			p.values = append(p.values, bytes.Clone(value))
			return nil
		})
		if err != nil {
			return err
		}
		p.byKey[string(sp.buf)] = rows
	}
	for _, r := range rows {
		fn(rowRef{spilledBatch, r})
	}
	return nil
}

// prefixEnd is the smallest key above every key that starts with prefix (nil: none).
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for n := len(end) - 1; n >= 0; n-- {
		if end[n] != 0xff {
			end[n]++
			return end[:n+1]
		}
	}
	return nil
}

// loadProbe decodes the rows findSpilled found into the probe batch.
func (s *joinSide) loadProbe() error {
	p := &s.sp.probe
	if len(p.entries) == 0 {
		return nil
	}
	b, err := decodeSpilled(s.state.mem, s.sp.codec, p.values)
	if err != nil {
		return err
	}
	p.batch = b
	return nil
}

// decodeSpilled decodes spilled "r" values into a stored batch (every row alive).
func decodeSpilled(mem memory.Allocator, codec *rowCodec, values [][]byte) (*storedBatch, error) {
	n := len(values)
	b := &storedBatch{times: make([]int64, n), hashes: make([]uint64, n), alive: make([]bool, n),
		matched: make([]bool, n), nlive: n}
	rows := make([][]byte, n)
	for k, v := range values {
		if len(v) < 17 {
			return nil, sparkerr.Internal("state spill store: a corrupt join row")
		}
		b.times[k] = int64(binary.BigEndian.Uint64(v))
		b.hashes[k] = binary.BigEndian.Uint64(v[8:])
		b.matched[k] = v[16] == 1
		b.alive[k] = true
		rows[k] = v[17:]
	}
	cols, err := codec.decode(mem, rows)
	if err != nil {
		return nil, err
	}
	b.cols, b.keys = cols, cols
	return b, nil
}

// finishProbe writes the probe's changes back to the spill: rows matched for the first time,
// rows removed (a left semi join's matched left rows). It then drops the probe.
func (s *joinSide) finishProbe() error {
	sp := &s.sp
	p := &sp.probe
	if p.batch == nil {
		s.dropProbe()
		return nil
	}
	w := sp.spill.NewBatch()
	removed := int64(0)
	for k, key := range p.entries {
		v := p.values[k]
		switch {
		case !p.batch.alive[k]:
			if err := s.deleteSpilled(w, key, int64(binary.BigEndian.Uint64(v))); err != nil {
				w.Close()
				s.dropProbe()
				return err
			}
			removed++
		case p.batch.matched[k] && v[16] != 1:
			v[16] = 1
			if err := w.Put(key, v); err != nil {
				w.Close()
				s.dropProbe()
				return err
			}
		}
	}
	s.dropProbe()
	if err := w.Commit(); err != nil {
		return err
	}
	sp.removed(removed)
	return sp.refilter(spillRowPrefix)
}

// deleteSpilled deletes the spilled row of "r" key key and event time t through w.
func (s *joinSide) deleteSpilled(w *state.Batch, key []byte, t int64) error {
	if err := w.Delete(key); err != nil {
		return err
	}
	if t == noTime {
		return nil
	}
	return w.Delete(appendTimeKey(nil, t, key))
}

// dropProbe releases the probe batch and forgets the rows found.
func (s *joinSide) dropProbe() {
	p := &s.sp.probe
	if p.batch != nil {
		releaseAll(p.batch.cols)
	}
	if p.cursor != nil {
		// A cursor only reads: closing it cannot lose anything.
		_ = p.cursor.Close()
	}
	p.batch, p.cursor = nil, nil
	p.entries, p.values = p.entries[:0], p.values[:0]
	clear(p.byKey)
}

// evictSpilled removes the spilled rows that can no longer match at watermark wm and calls
// lone with the user columns (in chunks) of the unmatched ones of an outer side. It returns how
// many rows left.
func (s *joinSide) evictSpilled(wm int64, lone func(cols []arrow.Array) error) (int64, error) {
	sp := &s.sp
	if sp.spilled == 0 || s.bound.TimeCol < 0 || wm == noTime {
		return 0, nil
	}
	// Expired: t + slack <= wm, that is t <= wm - slack.
	slack := s.bound.Slack
	var upper []byte
	switch {
	case slack > 0 && wm < math.MinInt64+slack:
		return 0, nil
	case slack < 0 && wm > math.MaxInt64+slack:
		upper = []byte{spillTimePrefix + 1}
	case wm-slack == math.MaxInt64:
		upper = []byte{spillTimePrefix + 1}
	default:
		upper = binary.BigEndian.AppendUint64([]byte{spillTimePrefix}, orderedTime(wm-slack)+1)
	}
	var tkeys, keys [][]byte
	err := sp.spill.Scan([]byte{spillTimePrefix}, upper, func(key, value []byte) error {
		tkeys = append(tkeys, bytes.Clone(key))
		keys = append(keys, bytes.Clone(value))
		return nil
	})
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	if s.outer {
		// Emit the unmatched ones in spill order.
		var values [][]byte
		order := make([]int, len(keys))
		for k := range order {
			order[k] = k
		}
		slices.SortFunc(order, func(a, b int) int { return bytes.Compare(tkeys[a][9:], tkeys[b][9:]) })
		for _, k := range order {
			v, ok, err := sp.spill.Get(keys[k])
			if err != nil {
				return 0, err
			}
			if ok && v[16] != 1 {
				values = append(values, v)
			}
		}
		for lo := 0; lo < len(values); lo += BatchRows {
			b, err := decodeSpilled(s.state.mem, sp.codec, values[lo:min(len(values), lo+BatchRows)])
			if err != nil {
				return 0, err
			}
			err = lone(b.cols)
			releaseAll(b.cols)
			if err != nil {
				return 0, err
			}
		}
	}
	w := sp.spill.NewBatch()
	for k := range keys {
		if err := w.Delete(tkeys[k]); err != nil {
			w.Close()
			return 0, err
		}
		if err := w.Delete(keys[k]); err != nil {
			w.Close()
			return 0, err
		}
	}
	if err := w.Commit(); err != nil {
		return 0, err
	}
	n := int64(len(keys))
	sp.removed(n)
	return n, sp.refilter(spillRowPrefix)
}

// scanSpilledRows calls add with the spilled rows of a view, decoded in chunks: user columns,
// event times and matched flags.
func scanSpilledRows(mem memory.Allocator, codec *rowCodec, v *state.View,
	add func(cols []arrow.Array, times []int64, matched []bool) error) error {
	var values [][]byte
	flush := func() error {
		if len(values) == 0 {
			return nil
		}
		b, err := decodeSpilled(mem, codec, values)
		if err != nil {
			return err
		}
		defer releaseAll(b.cols)
		values = values[:0]
		return add(b.cols, b.times, b.matched)
	}
	return scanChunks(v, spillRowPrefix, BatchRows, func(_, value []byte) { values = append(values, bytes.Clone(value)) }, flush)
}

// resetSpill drops the spilled rows (closing the store) before a restore or at close.
func (s *joinSide) resetSpill() error {
	s.dropProbe()
	s.sp.seq = 0
	return s.sp.reset()
}

// joinCapture is a stream-stream join's state at a barrier: its keyedCapture (watermark and
// each side's memory rows) and a view of each side's spill (nil when nothing spilled), which
// Encode writes before the side's memory rows in the same Arrow stream — the snapshot format of
// keyedCapture, so a restore reads it either way.
type joinCapture struct {
	keyed  keyedCapture
	views  []*state.View
	codecs []*rowCodec
}

// Encode implements flow.StateCapture.
func (c *joinCapture) Encode() ([]byte, error) {
	var buf bytes.Buffer
	writeVarint(&buf, c.keyed.watermark)
	for i, rows := range c.keyed.rows {
		var spilled func(add rowsAdder) error
		if v := c.views[i]; v != nil {
			spilled = func(add rowsAdder) error { return scanSpilledRows(rows.mem, c.codecs[i], v, add) }
		}
		if err := rows.writeRows(&buf, c.keyed.fields[i], spilled, nil); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// Release implements flow.StateCapture.
func (c *joinCapture) Release() {
	c.keyed.Release()
	for i, v := range c.views {
		if v != nil {
			_ = v.Close()
			c.views[i] = nil
		}
	}
}
