package operators

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// keyedRows is the state of the streaming deduplication and the stream-stream join: rows kept
// across epochs in retained Arrow batches, found by the hash of their key columns, each with an
// optional event time (microseconds) and a matched flag, removable one by one. A stored batch
// is released once none of its rows is live; pack drops released batches from the list. It is
// used by one goroutine.
type keyedRows struct {
	mem     memory.Allocator
	batches []*storedBatch
	// released counts the released batches still in batches.
	released int
	// byHash has the first live indexed row of each key hash, more the others in insertion
	// order (equal keys, or colliding hashes).
	byHash map[uint64]rowRef
	more   map[uint64][]rowRef
	live   int64
	bytes  int64
}

type storedBatch struct {
	cols    []arrow.Array // the stored columns
	keys    []arrow.Array // the key columns (may share arrays with cols)
	hashes  []uint64
	times   []int64 // event time per row, math.MinInt64 when the row has none
	alive   []bool
	matched []bool
	hashed  []bool // whether the row is in byHash (rows with NULL keys are not)
	nlive   int
	bytes   int64
}

func newKeyedRows(mem memory.Allocator) *keyedRows {
	return &keyedRows{mem: mem, byHash: map[uint64]rowRef{}, more: map[uint64][]rowRef{}}
}

// noTime marks a row without an event time.
const noTime = math.MinInt64

// add stores rows idx of cols (keys are the rows' key columns, aligned with cols; hashes their
// hashes; times their event times or nil). Rows with a NULL key are stored but not indexed
// when index is false for them. It takes its own references.
func (s *keyedRows) add(cols, keys []arrow.Array, hashes []uint64, times []int64, idx []int64, indexed []bool) error {
	if len(idx) == 0 {
		return nil
	}
	b := &storedBatch{nlive: len(idx)}
	var err error
	shared := sameArrays(cols, keys)
	switch {
	case int64(len(idx)) == int64(cols[0].Len()) && isIdentity(idx):
		b.cols = retainAll(cols)
		b.keys = b.cols
		if !shared {
			b.keys = retainAll(keys)
		}
	default:
		if b.cols, err = take(s.mem, cols, idx, nil); err != nil {
			return err
		}
		b.keys = b.cols
		if !shared {
			if b.keys, err = take(s.mem, keys, idx, nil); err != nil {
				releaseAll(b.cols)
				return err
			}
		}
	}
	b.hashes = make([]uint64, len(idx))
	b.times = make([]int64, len(idx))
	b.alive = make([]bool, len(idx))
	b.matched = make([]bool, len(idx))
	b.hashed = make([]bool, len(idx))
	bi := int32(len(s.batches))
	for k, i := range idx {
		b.hashes[k] = hashes[i]
		b.times[k] = noTime
		if times != nil {
			b.times[k] = times[i]
		}
		b.alive[k] = true
		if indexed == nil || indexed[i] {
			b.hashed[k] = true
			s.index(hashes[i], rowRef{bi, int32(k)})
		}
	}
	b.bytes = arraysBytes(b.cols) + int64(len(idx))*40
	if !sameArrays(b.cols, b.keys) {
		b.bytes += arraysBytes(b.keys)
	}
	s.batches = append(s.batches, b)
	s.live += int64(len(idx))
	s.bytes += b.bytes
	return nil
}

func (s *keyedRows) index(h uint64, ref rowRef) {
	if _, ok := s.byHash[h]; !ok {
		s.byHash[h] = ref
		return
	}
	s.more[h] = append(s.more[h], ref)
}

// find calls fn for every live indexed row whose key equals row i of keys (hash h), in
// insertion order.
func (s *keyedRows) find(keys []arrow.Array, i int, h uint64, fn func(ref rowRef)) {
	first, ok := s.byHash[h]
	if !ok {
		return
	}
	if rowsEqual(s.batches[first.batch].keys, int(first.row), keys, i) {
		fn(first)
	}
	for _, ref := range s.more[h] {
		if rowsEqual(s.batches[ref.batch].keys, int(ref.row), keys, i) {
			fn(ref)
		}
	}
}

// unindex removes ref from the hash index.
func (s *keyedRows) unindex(h uint64, ref rowRef) {
	refs := s.more[h]
	if s.byHash[h] == ref {
		if len(refs) == 0 {
			delete(s.byHash, h)
			return
		}
		s.byHash[h] = refs[0]
		refs = refs[1:]
	} else {
		for k, r := range refs {
			if r == ref {
				refs = append(refs[:k:k], refs[k+1:]...)
				break
			}
		}
	}
	if len(refs) == 0 {
		delete(s.more, h)
	} else {
		s.more[h] = refs
	}
}

// remove drops a live row.
func (s *keyedRows) remove(ref rowRef) {
	b := s.batches[ref.batch]
	if !b.alive[ref.row] {
		return
	}
	b.alive[ref.row] = false
	if b.hashed[ref.row] {
		s.unindex(b.hashes[ref.row], ref)
	}
	s.live--
	b.nlive--
	if b.nlive == 0 {
		s.bytes -= b.bytes
		releaseAll(b.cols)
		if !sameArrays(b.cols, b.keys) {
			releaseAll(b.keys)
		}
		*b = storedBatch{}
		s.released++
	}
}

// each calls fn for every live row, in storage order.
func (s *keyedRows) each(fn func(ref rowRef, b *storedBatch)) {
	for bi, b := range s.batches {
		for r := range b.alive {
			if b.alive[r] {
				fn(rowRef{int32(bi), int32(r)}, b)
			}
		}
	}
	s.compact()
}

// compact drops released batches from the end of the list (indices of live ones stay).
func (s *keyedRows) compact() {
	n := len(s.batches)
	for n > 0 && s.batches[n-1].nlive == 0 {
		n--
		s.released--
	}
	clear(s.batches[n:])
	s.batches = s.batches[:n]
}

// pack drops the released batches from the list once they are at least half of it, and
// renumbers the live rows' references (byHash, more) to the batches' new places; it reports
// whether it did. A rowRef taken before a pack that did is stale. Released batches then cost
// at most as many list entries as live ones, however long the state lives, and each pack's
// work (the live rows' references) is paid for by the rows released since the previous one.
func (s *keyedRows) pack() bool {
	if s.released == 0 || 2*s.released < len(s.batches) {
		return false
	}
	renumber := make([]int32, len(s.batches))
	kept := s.batches[:0]
	for bi, b := range s.batches {
		renumber[bi] = int32(len(kept))
		if b.nlive > 0 {
			kept = append(kept, b)
		}
	}
	clear(s.batches[len(kept):])
	s.batches, s.released = kept, 0
	for h, ref := range s.byHash {
		s.byHash[h] = rowRef{renumber[ref.batch], ref.row}
	}
	for _, refs := range s.more {
		for k, ref := range refs {
			refs[k].batch = renumber[ref.batch]
		}
	}
	return true
}

// gather returns the stored columns of refs, in order.
func (s *keyedRows) gather(refs []rowRef, types []arrow.DataType) ([]arrow.Array, error) {
	return gatherRows(s.mem, func(b int32) []arrow.Array { return s.batches[b].cols }, refs, types)
}

// gatherRows returns the columns of refs (rows of the batches colsOf gives), in order: each run
// of refs in one batch is taken from it.
func gatherRows(mem memory.Allocator, colsOf func(batch int32) []arrow.Array, refs []rowRef, types []arrow.DataType) ([]arrow.Array, error) {
	return gatherRuns(mem, colsOf, refs, types, false)
}

// gatherRuns is gatherRows; with sliceRuns, a run of consecutive rows is a slice of its batch
// (sharing its buffers, so only for results that do not outlive the batch's owner's use of
// it) instead of a copy.
func gatherRuns(mem memory.Allocator, colsOf func(batch int32) []arrow.Array, refs []rowRef, types []arrow.DataType,
	sliceRuns bool) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(types))
	if len(refs) == 0 {
		for c, t := range types {
			out[c] = array.MakeArrayOfNull(mem, t, 0)
		}
		return out, nil
	}
	// Take runs of refs from one batch, then concatenate the pieces.
	var pieces [][]arrow.Array
	defer func() {
		for _, p := range pieces {
			releaseAll(p)
		}
	}()
	for lo := 0; lo < len(refs); {
		hi := lo
		idx := []int64{}
		for hi < len(refs) && refs[hi].batch == refs[lo].batch {
			idx = append(idx, int64(refs[hi].row))
			hi++
		}
		batch := colsOf(refs[lo].batch)
		lo = hi
		if sliceRuns && isRange(idx) {
			pieces = append(pieces, sliceRows(batch, idx[0], int64(len(idx))))
			continue
		}
		p, err := take(mem, batch, idx, nil)
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, p)
	}
	if len(pieces) == 1 {
		out = pieces[0]
		pieces = nil
		return out, nil
	}
	for c := range types {
		parts := make([]arrow.Array, len(pieces))
		for k, p := range pieces {
			parts[k] = p[c]
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			releaseAll(out)
			return nil, sparkerr.Internal("concatenate: %v", err).Wrap(err)
		}
		out[c] = a
	}
	return out, nil
}

// sliceRows is rows [first, first+n) of batch's columns: the columns themselves (retained)
// when that is all of them, else slices.
func sliceRows(batch []arrow.Array, first, n int64) []arrow.Array {
	part := make([]arrow.Array, len(batch))
	for k, c := range batch {
		if first == 0 && n == int64(c.Len()) {
			c.Retain()
			part[k] = c
		} else {
			part[k] = array.NewSlice(c, first, first+n)
		}
	}
	return part
}

// isRange reports whether idx counts up by one.
func isRange(idx []int64) bool {
	for k, i := range idx {
		if i != idx[0]+int64(k) {
			return false
		}
	}
	return true
}

func (s *keyedRows) release() {
	for _, b := range s.batches {
		if b.nlive > 0 {
			releaseAll(b.cols)
			if !sameArrays(b.cols, b.keys) {
				releaseAll(b.keys)
			}
		}
	}
	s.batches, s.byHash, s.more, s.live, s.bytes = nil, map[uint64]rowRef{}, map[uint64][]rowRef{}, 0, 0
	s.released = 0
}

func isIdentity(idx []int64) bool {
	for k, i := range idx {
		if int64(k) != i {
			return false
		}
	}
	return true
}

func retainAll(as []arrow.Array) []arrow.Array {
	out := append([]arrow.Array(nil), as...)
	for _, a := range out {
		a.Retain()
	}
	return out
}

func sameArrays(a, b []arrow.Array) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func arraysBytes(as []arrow.Array) int64 {
	var n int64
	for _, a := range as {
		n += int64(a.Data().SizeInBytes())
	}
	return n
}

// Snapshot encoding: the live rows of a keyedRows as one Arrow IPC stream whose record holds
// the stored columns followed by _time (int64) and _matched (boolean), written from a capture
// taken at the barrier.

// rowsCapture is a keyedRows' live rows at a barrier (the asynchronous snapshot's capture):
// the stored batches' columns, retained (Arrow arrays never change), each with a copy of the
// per-row flags that later input changes (alive, matched); event times never change once
// stored, so they are shared.
type rowsCapture struct {
	mem     memory.Allocator
	batches []capturedRows
}

type capturedRows struct {
	cols           []arrow.Array
	alive, matched []bool
	times          []int64
}

// capture takes s's live rows as they are now.
func (s *keyedRows) capture() *rowsCapture {
	s.compact()
	c := &rowsCapture{mem: s.mem}
	for _, b := range s.batches {
		if b.nlive == 0 {
			continue
		}
		c.batches = append(c.batches, capturedRows{cols: retainAll(b.cols), alive: slices.Clone(b.alive),
			matched: slices.Clone(b.matched), times: b.times})
	}
	return c
}

// release drops the capture's references.
func (c *rowsCapture) release() {
	for _, b := range c.batches {
		releaseAll(b.cols)
	}
	c.batches = nil
}

// keyedCapture is the state of a streaming deduplication or join at a barrier
// (flow.StateCapture): the watermark, then each keyedRows' captured rows with their stored
// columns' fields. Its encoding is the operators' snapshot format.
type keyedCapture struct {
	watermark int64
	rows      []*rowsCapture
	fields    [][]arrow.Field
}

// Encode implements flow.StateCapture.
func (c *keyedCapture) Encode() ([]byte, error) {
	var buf bytes.Buffer
	writeVarint(&buf, c.watermark)
	for i, r := range c.rows {
		if err := r.write(&buf, c.fields[i]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// Release implements flow.StateCapture.
func (c *keyedCapture) Release() {
	for _, r := range c.rows {
		r.release()
	}
}

// encodeNow encodes a capture at once (SnapshotState).
func encodeNow(c flow.StateCapture) ([]byte, error) {
	defer c.Release()
	return c.Encode()
}

// write writes the captured rows (stored columns of schema cols) to w.
func (c *rowsCapture) write(w io.Writer, cols []arrow.Field) error { return c.writeWith(w, cols, nil) }

// writeWith writes the captured rows (stored columns of schema cols) to w, followed, in the same
// Arrow stream, by the rows more adds (stored columns and event times; not matched).
func (c *rowsCapture) writeWith(w io.Writer, cols []arrow.Field,
	more func(add func(data []arrow.Array, times []int64) error) error) error {
	if more == nil {
		return c.writeRows(w, cols, nil, nil)
	}
	return c.writeRows(w, cols, nil, func(add rowsAdder) error {
		return more(func(data []arrow.Array, times []int64) error {
			return add(data, times, make([]bool, len(times)))
		})
	})
}

// rowsAdder adds rows to a snapshot being written: stored columns, event times, matched flags.
type rowsAdder = func(data []arrow.Array, times []int64, matched []bool) error

// writeRows writes to w, in one Arrow stream, the rows before adds, the captured rows (stored
// columns of schema cols), and the rows after adds (before and after may be nil).
func (c *rowsCapture) writeRows(w io.Writer, cols []arrow.Field, before, after func(add rowsAdder) error) error {
	var refs []rowRef
	var times []int64
	var matched []bool
	for bi, b := range c.batches {
		for r, alive := range b.alive {
			if alive {
				refs = append(refs, rowRef{int32(bi), int32(r)})
				times = append(times, b.times[r])
				matched = append(matched, b.matched[r])
			}
		}
	}
	types := make([]arrow.DataType, len(cols))
	for i, f := range cols {
		types[i] = f.Type
	}
	data, err := gatherRows(c.mem, func(b int32) []arrow.Array { return c.batches[b].cols }, refs, types)
	if err != nil {
		return err
	}
	defer releaseAll(data)
	fields := append(append([]arrow.Field(nil), cols...),
		arrow.Field{Name: "_time", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "_matched", Type: arrow.FixedWidthTypes.Boolean})
	schema := arrow.NewSchema(fields, nil)
	var buf bytes.Buffer
	iw := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(c.mem))
	add := func(data []arrow.Array, times []int64, matched []bool) error {
		tb := array.NewInt64Builder(c.mem)
		tb.AppendValues(times, nil)
		ta := tb.NewArray()
		tb.Release()
		defer ta.Release()
		ma := boolArray(c.mem, matched)
		defer ma.Release()
		rec := array.NewRecordBatch(schema, append(append([]arrow.Array(nil), data...), ta, ma), int64(len(times)))
		defer rec.Release()
		if err := iw.Write(rec); err != nil {
			return sparkerr.Internal("state snapshot: %v", err).Wrap(err)
		}
		return nil
	}
	if before != nil {
		if err := before(add); err != nil {
			return err
		}
	}
	if err := add(data, times, matched); err != nil {
		return err
	}
	if after != nil {
		if err := after(add); err != nil {
			return err
		}
	}
	if err := iw.Close(); err != nil {
		return sparkerr.Internal("state snapshot: %v", err).Wrap(err)
	}
	var n [binary.MaxVarintLen64]byte
	if _, err := w.Write(n[:binary.PutUvarint(n[:], uint64(buf.Len()))]); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// readSnapshot reads one snapshot written by snapshot: the stored columns, times and matched
// flags of every row. The caller releases the columns.
func readSnapshot(mem memory.Allocator, r *bytes.Reader) (cols []arrow.Array, times []int64, matched []bool, err error) {
	size, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, nil, nil, sparkerr.Internal("state snapshot: %v", err).Wrap(err)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, nil, nil, sparkerr.Internal("state snapshot: %v", err).Wrap(err)
	}
	ir, err := ipc.NewReader(bytes.NewReader(body), ipc.WithAllocator(mem))
	if err != nil {
		return nil, nil, nil, sparkerr.Internal("state snapshot: %v", err).Wrap(err)
	}
	defer ir.Release()
	var parts []arrow.RecordBatch
	for ir.Next() {
		rec := ir.RecordBatch()
		rec.Retain()
		parts = append(parts, rec)
	}
	defer releaseRecords(parts)
	if err := ir.Err(); err != nil {
		return nil, nil, nil, sparkerr.Internal("state snapshot: %v", err).Wrap(err)
	}
	schema := ir.Schema()
	nc := schema.NumFields() - 2
	for c := 0; c < nc; c++ {
		var a arrow.Array
		if len(parts) == 0 {
			a = array.MakeArrayOfNull(mem, schema.Field(c).Type, 0)
		} else {
			pieces := make([]arrow.Array, len(parts))
			for k, p := range parts {
				pieces[k] = p.Column(c)
			}
			if a, err = array.Concatenate(pieces, mem); err != nil {
				releaseAll(cols)
				return nil, nil, nil, sparkerr.Internal("state snapshot: %v", err).Wrap(err)
			}
		}
		cols = append(cols, a)
	}
	for _, p := range parts {
		t := p.Column(nc).(*array.Int64)
		m := p.Column(nc + 1).(*array.Boolean)
		for i := 0; i < t.Len(); i++ {
			times = append(times, t.Value(i))
			matched = append(matched, m.Value(i))
		}
	}
	return cols, times, matched, nil
}

func writeVarint(w *bytes.Buffer, v int64) {
	var n [binary.MaxVarintLen64]byte
	w.Write(n[:binary.PutVarint(n[:], v)])
}

func readVarint(r *bytes.Reader) (int64, error) {
	v, err := binary.ReadVarint(r)
	if err != nil {
		return 0, sparkerr.Internal("state snapshot: %v", err).Wrap(err)
	}
	return v, nil
}
