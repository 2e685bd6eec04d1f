package sinks

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// Changelog turns the flow-event batches a sink receives into what it writes per epoch, by
// output mode (see doc.go): it buffers the open epoch's batches and, when the epoch's barrier
// arrives, yields the epoch's inserted rows (append, update) or the whole result table after
// applying the epoch's changes (complete).
type Changelog struct {
	mode    flow.OutputMode
	mem     memory.Allocator
	pending []arrow.RecordBatch // the open epoch's data batches (flow-event form), retained
	table   *resultTable        // complete mode only
}

func NewChangelog(mode flow.OutputMode, mem memory.Allocator) *Changelog {
	c := &Changelog{mode: mode, mem: mem}
	if mode == flow.OutputComplete {
		c.table = newResultTable(mem)
	}
	return c
}

// add buffers a data batch of the open epoch (retaining it).
func (c *Changelog) Add(rec arrow.RecordBatch) {
	if rec.NumRows() == 0 {
		return
	}
	rec.Retain()
	c.pending = append(c.pending, rec)
}

// discard drops the open epoch's batches (an epoch committed before: a replay).
func (c *Changelog) Discard() {
	ReleaseRecords(c.pending)
	c.pending = nil
}

// commit closes the open epoch and returns what the sink writes for it, as records of user
// columns the caller releases: the epoch's inserted rows, or in complete mode the whole table.
func (c *Changelog) Commit() ([]arrow.RecordBatch, error) {
	pending := c.pending
	c.pending = nil
	defer ReleaseRecords(pending)
	if c.mode == flow.OutputComplete {
		for _, rec := range pending {
			if err := c.table.apply(rec); err != nil {
				return nil, err
			}
		}
		return c.table.snapshot()
	}
	out := make([]arrow.RecordBatch, 0, len(pending))
	for _, rec := range pending {
		ins, err := Inserts(c.mem, rec)
		if err != nil {
			ReleaseRecords(out)
			return nil, err
		}
		if ins.NumRows() == 0 {
			ins.Release()
			continue
		}
		out = append(out, ins)
	}
	return out, nil
}

// Release drops everything the changelog holds.
func (c *Changelog) Release() {
	c.Discard()
	if c.table != nil {
		c.table.release()
	}
}

// inserts returns the user columns of rec's inserted (non-retracted) rows.
func Inserts(mem memory.Allocator, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	user := flow.UserColumns(rec)
	if !flow.HasRetractions(rec) {
		return user, nil
	}
	defer user.Release()
	retracted := flow.Retracted(rec)
	idx := make([]int64, 0, rec.NumRows())
	for i := 0; i < int(rec.NumRows()); i++ {
		if !retracted.Value(i) {
			idx = append(idx, int64(i))
		}
	}
	return takeRows(mem, user, idx)
}

// takeRows gathers rows idx of a record into a new record of its schema.
func takeRows(mem memory.Allocator, rec arrow.RecordBatch, idx []int64) (arrow.RecordBatch, error) {
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(idx, nil)
	ix := ib.NewArray()
	ib.Release()
	defer ix.Release()
	ctx := exec.WithAllocator(context.Background(), mem)
	cols := make([]arrow.Array, 0, rec.NumCols())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, c := range rec.Columns() {
		t, err := compute.TakeArray(ctx, c, ix)
		if err != nil {
			return nil, sparkerr.Internal("sink: take rows: %v", err).Wrap(err)
		}
		cols = append(cols, t)
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(idx))), nil
}

// ConcatRecords concatenates records of one schema into one new record (copying).
func ConcatRecords(mem memory.Allocator, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	schema := recs[0].Schema()
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	cols := make([]arrow.Array, 0, schema.NumFields())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i := 0; i < schema.NumFields(); i++ {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, sparkerr.Internal("sink: concatenate: %v", err).Wrap(err)
		}
		cols = append(cols, a)
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

func ReleaseRecords(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// CountRows is the number of rows in recs.
func CountRows(recs []arrow.RecordBatch) int64 {
	n := int64(0)
	for _, r := range recs {
		n += r.NumRows()
	}
	return n
}

// resultTable is complete mode's result table: a multiset of rows kept in insertion order. It
// holds the user columns of the batches that inserted rows (segments), with the rows removed
// since marked dead, and a hash index of the live rows by content.
type resultTable struct {
	mem   memory.Allocator
	segs  []*segment
	index map[uint64][]rowRef
	live  int
	dead  int
}

// segment is one batch's user columns; dead marks rows that are not (or no longer) in the table.
type segment struct {
	rec   arrow.RecordBatch
	dead  []bool
	ndead int
}

// rowRef addresses a row of a segment.
type rowRef struct {
	seg *segment
	row int
}

// compactMinDead is how many dead rows the table tolerates before compacting regardless of the
// live/dead ratio; compactMaxSegments bounds the number of segments.
const (
	compactMinDead     = 4096
	compactMaxSegments = 256
)

func newResultTable(mem memory.Allocator) *resultTable {
	return &resultTable{mem: mem, index: map[uint64][]rowRef{}}
}

// apply applies one flow-event batch, row by row in order: an insert adds its row, a retraction
// removes the oldest equal live row (a retraction of a row not in the table changes nothing).
func (t *resultTable) apply(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	user := flow.UserColumns(rec)
	seg := &segment{rec: user, dead: make([]bool, n)}
	cols := user.Columns()
	hashes := make([]uint64, n)
	expr.HashColumns(cols, 0, hashes)
	retracted := flow.Retracted(rec)
	retractions := 0
	for i := 0; i < n; i++ {
		h := hashes[i]
		if !retracted.Value(i) {
			t.index[h] = append(t.index[h], rowRef{seg: seg, row: i})
			t.live++
			continue
		}
		seg.dead[i] = true
		seg.ndead++
		retractions++
		refs := t.index[h]
		for j, ref := range refs {
			if !expr.RowsEqual(ref.seg.rec.Columns(), ref.row, cols, i) {
				continue
			}
			ref.seg.dead[ref.row] = true
			ref.seg.ndead++
			t.live--
			t.dead++
			if len(refs) == 1 {
				delete(t.index, h)
			} else {
				t.index[h] = append(refs[:j:j], refs[j+1:]...)
			}
			break
		}
	}
	t.dead += retractions
	t.segs = append(t.segs, seg)
	t.dropDeadSegments()
	if t.dead > compactMinDead && t.dead > t.live || len(t.segs) > compactMaxSegments {
		return t.compact()
	}
	return nil
}

// dropDeadSegments releases segments none of whose rows are live.
func (t *resultTable) dropDeadSegments() {
	kept := t.segs[:0]
	for _, s := range t.segs {
		if s.ndead == int(s.rec.NumRows()) {
			t.dead -= s.ndead
			s.rec.Release()
			continue
		}
		kept = append(kept, s)
	}
	clear(t.segs[len(kept):])
	t.segs = kept
}

// snapshot returns the live rows in insertion order as records the caller releases (whole
// segments are shared, not copied).
func (t *resultTable) snapshot() ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, 0, len(t.segs))
	for _, s := range t.segs {
		if s.ndead == 0 {
			s.rec.Retain()
			out = append(out, s.rec)
			continue
		}
		r, err := takeRows(t.mem, s.rec, s.liveRows())
		if err != nil {
			ReleaseRecords(out)
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *segment) liveRows() []int64 {
	idx := make([]int64, 0, len(s.dead)-s.ndead)
	for i, d := range s.dead {
		if !d {
			idx = append(idx, int64(i))
		}
	}
	return idx
}

// compact rewrites the live rows into one segment and rebuilds the index.
func (t *resultTable) compact() error {
	if len(t.segs) == 0 {
		return nil
	}
	live, err := t.snapshot()
	if err != nil {
		return err
	}
	rec, err := ConcatRecords(t.mem, live)
	ReleaseRecords(live)
	if err != nil {
		return err
	}
	t.release()
	seg := &segment{rec: rec, dead: make([]bool, rec.NumRows())}
	t.segs = []*segment{seg}
	hashes := make([]uint64, rec.NumRows())
	expr.HashColumns(rec.Columns(), 0, hashes)
	for i, h := range hashes {
		t.index[h] = append(t.index[h], rowRef{seg: seg, row: i})
	}
	t.live = int(rec.NumRows())
	return nil
}

// Release drops the table's rows.
func (t *resultTable) release() {
	for _, s := range t.segs {
		s.rec.Release()
	}
	t.segs = nil
	t.index = map[uint64][]rowRef{}
	t.live, t.dead = 0, 0
}
