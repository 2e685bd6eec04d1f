package operators

import (
	"encoding/binary"

	"github.com/weirhq/weir/state"
)

// spillTail is what a spilling keyed state (the dedup's keys, a join side's rows) keeps besides
// its memory part, a keyedRows whose oldest batches move out first: the scratch store (opened
// on first use), the filter of the spilled entries' key hashes, and their counts. Every entry
// of the store's rows range (one prefix byte) has its key hash at bytes 8..16 of its value.
type spillTail struct {
	budget state.Budget
	spill  *state.Spill
	// filter has the hashes of the spilled entries' keys (and of stale ones removed since it
	// was built).
	filter *state.HashFilter
	stale  int64
	// spilled counts the entries in the spill; oldest is the first memory batch that may be
	// live.
	spilled int64
	oldest  int
}

// minFilterKeys is the smallest capacity of the spill's filter.
const minFilterKeys = 1024

// overBudget reports whether mem holds more bytes of rows than the budget allows.
func (t *spillTail) overBudget(mem *keyedRows) bool {
	return t.budget.Limited() && mem.bytes > t.budget.MemoryBytes
}

// moveOldest moves the oldest memory batches of mem to the spill until mem fits the budget:
// put writes each live row (row r of b) through w, then the row leaves mem.
func (t *spillTail) moveOldest(mem *keyedRows, put func(w *state.Batch, b *storedBatch, r int) error) error {
	if err := t.open(); err != nil {
		return err
	}
	w := t.spill.NewBatch()
	for t.oldest < len(mem.batches) && mem.bytes > t.budget.MemoryBytes {
		// Removing the batch's last live row clears it: read it beforehand.
		b := *mem.batches[t.oldest]
		bi := int32(t.oldest)
		for r, alive := range b.alive {
			if !alive {
				continue
			}
			if err := put(w, &b, r); err != nil {
				w.Close()
				return err
			}
			mem.remove(rowRef{bi, int32(r)})
		}
		t.oldest++
	}
	t.tidy(mem)
	return w.Commit()
}

// open opens the store unless it is open.
func (t *spillTail) open() error {
	if t.spill != nil {
		return nil
	}
	sp, err := state.OpenSpill(t.budget.Dir)
	if err != nil {
		return err
	}
	t.spill = sp
	return nil
}

// tidy drops the released memory batches (spilled, evicted or removed) from mem's list: at its
// end at once, the others by pack. The batches before oldest are all released, so after a pack
// the first live batch is the first.
func (t *spillTail) tidy(mem *keyedRows) {
	mem.compact()
	t.oldest = min(t.oldest, len(mem.batches))
	if mem.pack() {
		t.oldest = 0
	}
}

// added counts an entry written to the spill whose key hash is h; indexed says whether a
// lookup may look for it (the filter learns h).
func (t *spillTail) added(h uint64, indexed bool) {
	if indexed {
		if t.filter == nil {
			t.filter = state.NewHashFilter(minFilterKeys)
		}
		t.filter.Add(h)
	}
	t.spilled++
}

// removed counts n entries deleted from the spill.
func (t *spillTail) removed(n int64) {
	t.spilled -= n
	t.stale += n
}

// mayHold reports whether an entry of key hash h may be in the spill.
func (t *spillTail) mayHold(h uint64) bool {
	return t.spilled > 0 && t.filter != nil && t.filter.MayContain(h)
}

// spillBytes is the spill store's size (0 before anything spilled).
func (t *spillTail) spillBytes() int64 {
	if t.spill == nil {
		return 0
	}
	return t.spill.SizeBytes()
}

// filterBytes is the filter's memory size.
func (t *spillTail) filterBytes() int64 {
	if t.filter == nil {
		return 0
	}
	return t.filter.Bytes()
}

// refilter rebuilds the filter when the spilled entries outgrew it or many of its hashes are
// stale: sized for twice the entries spilled, from the hashes stored with the entries of the
// rows range prefix.
func (t *spillTail) refilter(prefix byte) error {
	if t.filter == nil || (t.spilled <= t.filter.Capacity() && t.stale <= t.filter.Capacity()/2) {
		return nil
	}
	f := state.NewHashFilter(max(2*t.spilled, minFilterKeys))
	err := t.spill.Scan([]byte{prefix}, []byte{prefix + 1}, func(_, value []byte) error {
		f.Add(binary.BigEndian.Uint64(value[8:]))
		return nil
	})
	if err != nil {
		return err
	}
	t.filter, t.stale = f, 0
	return nil
}

// view is a view of the spill as it is now (nil when nothing is spilled).
func (t *spillTail) view() *state.View {
	if t.spilled == 0 {
		return nil
	}
	return t.spill.View()
}

// reset forgets the spilled entries and closes (removes) the store.
func (t *spillTail) reset() error {
	t.oldest, t.spilled, t.filter, t.stale = 0, 0, nil, 0
	if t.spill == nil {
		return nil
	}
	err := t.spill.Close()
	t.spill = nil
	return err
}

// scanChunks calls each for every entry of the rows range prefix of a view of the spill (each
// must not keep key or value), and flush after every chunk of n entries and once at the end.
func scanChunks(v *state.View, prefix byte, n int, each func(key, value []byte), flush func() error) error {
	k := 0
	err := v.Scan([]byte{prefix}, []byte{prefix + 1}, func(key, value []byte) error {
		each(key, value)
		if k++; k == n {
			k = 0
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
