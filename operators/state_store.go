package operators

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/state"
)

// spillingKeys is the keyed state of the streaming deduplication: a set of key rows, each with
// an optional expiry time. Its working set is a keyedRows in memory; when the memory budget is
// exceeded, the oldest stored batches (by insertion) move to a scratch spill store
// (state.Spill, opened on first use). A key lives in exactly one of the two parts, so a lookup
// checks memory and then the spill — only when the spill's filter of key hashes says the key
// may be there — and the live count is their sum.
//
// Spill layout: "k" + encoded key → expiry time (8 bytes, big-endian; noTime when none) and
// key hash (8 bytes), and,
// for keys with an expiry time, "t" + order-preserving time + encoded key → nothing, which
// lets eviction by watermark read the expired keys as one range.
type spillingKeys struct {
	mem   *keyedRows
	codec *rowCodec
	// codecErr is why the keys cannot be encoded (only an error once something must spill).
	codecErr error
	// spillTail has the store, the filter of the spilled keys' hashes and their count.
	spillTail
	buf []byte
}

const (
	spillKeyPrefix  = 'k'
	spillTimePrefix = 't'
)

func newSpillingKeys(mem *keyedRows, budget state.Budget, fields []arrow.Field) *spillingKeys {
	codec, err := newRowCodec(fields)
	return &spillingKeys{mem: mem, codec: codec, codecErr: err, spillTail: spillTail{budget: budget}}
}

// live is the number of keys held, in memory and spilled.
func (s *spillingKeys) live() int64 { return s.mem.live + s.spilled }

// memoryBytes is the memory part's size: the rows kept and the spill's filter.
func (s *spillingKeys) memoryBytes() int64 { return s.mem.bytes + s.filterBytes() }

// seen reports whether the key of row i of keys (hash h) is held.
func (s *spillingKeys) seen(keys []arrow.Array, i int, h uint64) (bool, error) {
	found := false
	s.mem.find(keys, i, h, func(rowRef) { found = true })
	if found || !s.mayHold(h) {
		return found, nil
	}
	s.buf = s.codec.encode(append(s.buf[:0], spillKeyPrefix), keys, i)
	return s.spill.Has(s.buf)
}

// add stores rows idx of keys (hashes hs, expiry times or nil), then spills if the memory
// part is over budget.
func (s *spillingKeys) add(keys []arrow.Array, hs []uint64, times []int64, idx []int64) error {
	if err := s.mem.add(keys, keys, hs, times, idx, nil); err != nil {
		return err
	}
	return s.spillOver()
}

// spillOver moves the oldest memory batches to the spill until the memory part fits the
// budget.
func (s *spillingKeys) spillOver() error {
	if !s.overBudget(s.mem) {
		return nil
	}
	if s.codecErr != nil {
		return s.codecErr
	}
	err := s.moveOldest(s.mem, func(w *state.Batch, b *storedBatch, r int) error {
		return s.putSpilled(w, b.keys, r, b.hashes[r], b.times[r])
	})
	if err != nil {
		return err
	}
	return s.refilter(spillKeyPrefix)
}

// putSpilled writes row r of keys (hash h) with expiry time t to the spill through w.
func (s *spillingKeys) putSpilled(w *state.Batch, keys []arrow.Array, r int, h uint64, t int64) error {
	s.buf = s.codec.encode(append(s.buf[:0], spillKeyPrefix), keys, r)
	var v [16]byte
	binary.BigEndian.PutUint64(v[:], uint64(t))
	binary.BigEndian.PutUint64(v[8:], h)
	if err := w.Put(s.buf, v[:]); err != nil {
		return err
	}
	s.added(h, true)
	if t == noTime {
		return nil
	}
	tk := binary.BigEndian.AppendUint64([]byte{spillTimePrefix}, orderedTime(t))
	return w.Put(append(tk, s.buf[1:]...), nil)
}

// orderedTime maps an int64 to a uint64 of the same order.
func orderedTime(t int64) uint64 { return uint64(t) ^ (1 << 63) }

// evict removes the keys whose expiry time is at or below ts and returns how many.
func (s *spillingKeys) evict(ts int64) (int64, error) {
	var gone []rowRef
	s.mem.each(func(ref rowRef, b *storedBatch) {
		if t := b.times[ref.row]; t != noTime && t <= ts {
			gone = append(gone, ref)
		}
	})
	for _, ref := range gone {
		s.mem.remove(ref)
	}
	s.tidy(s.mem)
	n := int64(len(gone))
	if s.spilled == 0 {
		return n, nil
	}
	upper := binary.BigEndian.AppendUint64([]byte{spillTimePrefix}, orderedTime(ts)+1)
	if ts == math.MaxInt64 {
		upper = []byte{spillTimePrefix + 1}
	}
	var expired [][]byte
	err := s.spill.Scan([]byte{spillTimePrefix}, upper, func(key, _ []byte) error {
		expired = append(expired, append([]byte(nil), key...))
		return nil
	})
	if err != nil {
		return n, err
	}
	w := s.spill.NewBatch()
	for _, tk := range expired {
		if err := w.Delete(tk); err != nil {
			w.Close()
			return n, err
		}
		tk[8] = spillKeyPrefix
		if err := w.Delete(tk[8:]); err != nil {
			w.Close()
			return n, err
		}
	}
	if err := w.Commit(); err != nil {
		return n, err
	}
	s.removed(int64(len(expired)))
	return n + int64(len(expired)), s.refilter(spillKeyPrefix)
}

// capture takes the keys as they are now: the memory part's rows and a view of the spill.
func (s *spillingKeys) capture() (*rowsCapture, *state.View) {
	return s.mem.capture(), s.view()
}

// restore loads keys (with expiry times): into memory while the budget allows, the rest
// straight into the spill.
func (s *spillingKeys) restore(keys []arrow.Array, times []int64) error {
	n := len(times)
	hs := make([]uint64, n)
	hashColumns(keys, 0, hs)
	const chunk = 4096
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		if s.overBudget(s.mem) {
			if err := s.spillOver(); err != nil {
				return err
			}
			for lo := lo; lo < n; lo += chunk {
				w := s.spill.NewBatch()
				for r := lo; r < min(lo+chunk, n); r++ {
					if err := s.putSpilled(w, keys, r, hs[r], times[r]); err != nil {
						w.Close()
						return err
					}
				}
				if err := w.Commit(); err != nil {
					return err
				}
			}
			return s.refilter(spillKeyPrefix)
		}
		idx := make([]int64, hi-lo)
		for k := range idx {
			idx[k] = int64(lo + k)
		}
		if err := s.mem.add(keys, keys, hs, times, idx, nil); err != nil {
			return err
		}
	}
	return s.spillOver()
}

// reset drops every key (memory and spill) before a restore.
func (s *spillingKeys) reset() error {
	s.mem.release()
	return s.spillTail.reset()
}

// close releases the memory part and closes (removes) the spill.
func (s *spillingKeys) close() error { return s.reset() }

// dedupCapture is a streaming deduplication's state at a barrier: its keyedCapture (watermark
// and memory rows) and a view of the spilled keys, which Encode appends to the rows' Arrow
// stream — the snapshot format of keyedCapture, so a restore reads it either way.
type dedupCapture struct {
	keyed keyedCapture
	view  *state.View
	codec *rowCodec
}

// Encode implements flow.StateCapture.
func (c *dedupCapture) Encode() ([]byte, error) {
	if c.view == nil {
		return c.keyed.Encode()
	}
	var buf bytes.Buffer
	writeVarint(&buf, c.keyed.watermark)
	mem := c.keyed.rows[0].mem
	err := c.keyed.rows[0].writeWith(&buf, c.keyed.fields[0], func(add func([]arrow.Array, []int64) error) error {
		const chunk = 4096
		var keys [][]byte
		var times []int64
		flush := func() error {
			if len(keys) == 0 {
				return nil
			}
			cols, err := c.codec.decode(mem, keys)
			if err != nil {
				return err
			}
			defer releaseAll(cols)
			err = add(cols, times)
			keys, times = keys[:0], times[:0]
			return err
		}
		// A key entry: the encoded key after the prefix, the expiry time first in its value.
		return scanChunks(c.view, spillKeyPrefix, chunk, func(key, value []byte) {
			keys = append(keys, bytes.Clone(key[1:]))
			times = append(times, int64(binary.BigEndian.Uint64(value)))
		}, flush)
	})
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Release implements flow.StateCapture.
func (c *dedupCapture) Release() {
	c.keyed.Release()
	if c.view != nil {
		_ = c.view.Close()
		c.view = nil
	}
}
