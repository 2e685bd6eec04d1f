package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/weirhq/weir/sparkerr"
)

// Spill is a scratch keyed store on disk: a Pebble instance without a write-ahead log in a
// temporary directory of its own, removed by Close (or, when its process died without
// closing it, by a later OpenSpill in the same parent). Its contents live as long as the operator
// that owns it (a restart restores state from a checkpoint snapshot, not from here). It is
// used by one goroutine; Views may be read from others.
type Spill struct {
	db  *pebble.DB
	dir string

	// mu guards the open views and whether Close was called: the store closes when both
	// happened (a snapshot encoder may still read a view after its operator closed).
	mu      sync.Mutex
	views   int
	closing bool
}

// OpenSpill creates a scratch store in a new directory under parent ("" = the system
// temporary directory), first removing the stale stores there (see sweepStale).
func OpenSpill(parent string) (*Spill, error) {
	if parent != "" {
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, spillErr("creating the spill directory", err)
		}
	}
	sweepStale(parent)
	dir, err := os.MkdirTemp(parent, spillDirPrefix)
	if err != nil {
		return nil, spillErr("creating the spill directory", err)
	}
	if err := claim(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, spillErr("creating the spill directory", err)
	}
	db, err := pebble.Open(dir, scratchOptions())
	if err != nil {
		_ = os.RemoveAll(dir)
		unclaim(dir)
		return nil, spillErr("opening the spill store", err)
	}
	return &Spill{db: db, dir: dir}, nil
}

// Dir is the store's directory.
func (s *Spill) Dir() string { return s.dir }

// SizeBytes is the store's size now: its files on disk (Pebble's disk space usage: tables and
// manifest) and its memtables (what was spilled last, not yet flushed to a table). It is read
// by the store's goroutine, like the writes.
func (s *Spill) SizeBytes() int64 {
	m := s.db.Metrics()
	return int64(m.DiskSpaceUsage() + m.MemTable.Size)
}

// Get returns a copy of key's value.
func (s *Spill) Get(key []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, spillErr("reading", err)
	}
	out := bytes.Clone(v)
	if out == nil {
		out = []byte{}
	}
	return out, true, closer.Close()
}

// Has reports whether key is held.
func (s *Spill) Has(key []byte) (bool, error) {
	_, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, spillErr("reading", err)
	}
	return true, closer.Close()
}

// Put sets key to value. The store does not count its keys: its owner knows which are new.
func (s *Spill) Put(key, value []byte) error {
	if err := s.db.Set(key, value, pebble.NoSync); err != nil {
		return spillErr("writing", err)
	}
	return nil
}

// Delete removes key (a missing key is not an error).
func (s *Spill) Delete(key []byte) error {
	if err := s.db.Delete(key, pebble.NoSync); err != nil {
		return spillErr("deleting", err)
	}
	return nil
}

// Batch collects puts and deletes that Commit applies at once (cheaper than one by one).
type Batch struct {
	b *pebble.Batch
}

// NewBatch starts a batch of changes.
func (s *Spill) NewBatch() *Batch { return &Batch{b: s.db.NewBatch()} }

// Put sets key to value when the batch commits (key and value are copied).
func (b *Batch) Put(key, value []byte) error {
	if err := b.b.Set(key, value, nil); err != nil {
		return spillErr("writing", err)
	}
	return nil
}

// Delete removes key when the batch commits.
func (b *Batch) Delete(key []byte) error {
	if err := b.b.Delete(key, nil); err != nil {
		return spillErr("deleting", err)
	}
	return nil
}

// Commit applies the batch's changes and releases it.
func (b *Batch) Commit() error {
	err := b.b.Commit(pebble.NoSync)
	if cerr := b.b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return spillErr("writing", err)
	}
	return nil
}

// Close releases a batch without applying it.
func (b *Batch) Close() { _ = b.b.Close() }

// Scan calls fn for every key in [lower, upper) in key order (nil bounds are open); fn must
// not keep key or value, nor change the store. Scan stops at fn's first error.
func (s *Spill) Scan(lower, upper []byte, fn func(key, value []byte) error) error {
	return scan(s.db, lower, upper, fn)
}

// View is an immutable view of a Spill at one moment (a Pebble snapshot): later changes to the
// store do not show in it. It may be read from another goroutine; Close releases it.
type View struct {
	snap  *pebble.Snapshot
	spill *Spill
}

// View takes a view of the store as it is now.
func (s *Spill) View() *View {
	s.mu.Lock()
	s.views++
	s.mu.Unlock()
	return &View{snap: s.db.NewSnapshot(), spill: s}
}

// Scan is Spill.Scan over the view.
func (v *View) Scan(lower, upper []byte, fn func(key, value []byte) error) error {
	return scan(v.snap, lower, upper, fn)
}

// Close releases the view.
func (v *View) Close() error {
	err := v.snap.Close()
	s := v.spill
	s.mu.Lock()
	s.views--
	last := s.closing && s.views == 0
	s.mu.Unlock()
	if err != nil {
		return spillErr("closing a view", err)
	}
	if last {
		return s.shut()
	}
	return nil
}

// Close closes the store and removes its directory, at once or, while views are open, when
// the last one closes.
func (s *Spill) Close() error {
	s.mu.Lock()
	s.closing = true
	open := s.views > 0
	s.mu.Unlock()
	if open {
		return nil
	}
	return s.shut()
}

func (s *Spill) shut() error {
	err := s.db.Close()
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	unclaim(s.dir)
	if err != nil {
		return spillErr("closing", err)
	}
	return nil
}

// scratchOptions tune Pebble for lookups of mostly absent keys in a store nobody reopens: no
// write-ahead log, a Bloom filter on every level (an absent key costs no block reads), no block
// compression.
func scratchOptions() *pebble.Options {
	o := &pebble.Options{Logger: quietLogger{}, DisableWAL: true}
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		o.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.NoCompression }
	}
	return o
}

type reader interface {
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

func scan(r reader, lower, upper []byte, fn func(key, value []byte) error) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return spillErr("scanning", err)
	}
	for it.First(); it.Valid(); it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return spillErr("scanning", err)
		}
		if err := fn(it.Key(), v); err != nil {
			_ = it.Close()
			return err
		}
	}
	if err := it.Close(); err != nil {
		return spillErr("scanning", err)
	}
	return nil
}

func spillErr(what string, err error) *sparkerr.Error {
	return sparkerr.Internal("state spill store: %s: %v", what, err).Wrap(err)
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}
