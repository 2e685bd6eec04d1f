package checkpoints

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Store is a Pebble-backed checkpoint log.
type Store struct {
	db *pebble.DB
	// fs and stateDir hold the files of large state snapshots (state_files.go).
	fs       vfs.FS
	stateDir string
}

// Option configures Open.
type Option func(*pebble.Options)

// InMemory keeps the store in memory (tests).
func InMemory() Option { return func(o *pebble.Options) { o.FS = vfs.NewMem() } }

type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// Open opens (creating if needed) the store in dir.
func Open(dir string, opts ...Option) (*Store, error) {
	po := &pebble.Options{Logger: quietLogger{}}
	for _, o := range opts {
		o(po)
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: open %s: %w", dir, err)
	}
	fs := fsOf(po)
	s := &Store{db: db, fs: fs, stateDir: fs.PathJoin(dir, stateDirName)}
	if err := s.openStateDir(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Key layout: q/<query>/<kind>/<epoch big-endian> with kinds m (metadata), o (offsets),
// c (commits), s (source metadata, by source), t (state, by operator and partition).
func key(query, kind string, parts ...[]byte) []byte {
	k := []byte("q/" + query + "/" + kind + "/")
	for _, p := range parts {
		k = append(k, p...)
		k = append(k, '/')
	}
	return k
}

func epochBytes(e int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(e)) }

func (s *Store) get(k []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), true, nil
}

// PutMetadata records a query's metadata (synced).
func (s *Store) PutMetadata(query string, meta []byte) error {
	return s.db.Set(key(query, "m"), meta, pebble.Sync)
}

// Metadata returns a query's metadata.
func (s *Store) Metadata(query string) ([]byte, bool, error) { return s.get(key(query, "m")) }

// WriteOffsets logs the offsets epoch will process (synced): the epoch's write-ahead record.
func (s *Store) WriteOffsets(query string, epoch int64, offsets []byte) error {
	return s.db.Set(key(query, "o", epochBytes(epoch)), offsets, pebble.Sync)
}

// Offsets returns the logged offsets of epoch.
func (s *Store) Offsets(query string, epoch int64) ([]byte, bool, error) {
	return s.get(key(query, "o", epochBytes(epoch)))
}

// Commit records that epoch completed (synced).
func (s *Store) Commit(query string, epoch int64) error {
	return s.db.Set(key(query, "c", epochBytes(epoch)), nil, pebble.Sync)
}

// lastEpoch finds the greatest epoch logged under kind.
func (s *Store) lastEpoch(query, kind string) (int64, bool, error) {
	prefix := key(query, kind)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: append(prefix[:len(prefix):len(prefix)], 0xff)})
	if err != nil {
		return 0, false, err
	}
	defer it.Close()
	if !it.Last() {
		return 0, false, it.Error()
	}
	k := it.Key()
	e := int64(binary.BigEndian.Uint64(k[len(prefix) : len(prefix)+8]))
	return e, true, nil
}

// LastCommit returns the last committed epoch.
func (s *Store) LastCommit(query string) (int64, bool, error) { return s.lastEpoch(query, "c") }

// LastOffsets returns the last epoch with logged offsets.
func (s *Store) LastOffsets(query string) (int64, bool, error) { return s.lastEpoch(query, "o") }

// PutSourceMetadata records metadata of source `source` (e.g. the rate source's start time).
func (s *Store) PutSourceMetadata(query string, source int, meta []byte) error {
	return s.db.Set(key(query, "s", epochBytes(int64(source))), meta, pebble.Sync)
}

// SourceMetadata returns metadata of source `source`.
func (s *Store) SourceMetadata(query string, source int) ([]byte, bool, error) {
	return s.get(key(query, "s", epochBytes(int64(source))))
}

// State returns the snapshot of an operator partition at the latest epoch ≤ epoch.
func (s *Store) State(query, operator string, partition int, epoch int64) ([]byte, bool, error) {
	prefix := key(query, "t", []byte(operator), epochBytes(int64(partition)))
	upper := append(append([]byte(nil), prefix...), epochBytes(epoch)...)
	upper = append(upper, '/', 0xff)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: upper})
	if err != nil {
		return nil, false, err
	}
	defer it.Close()
	if !it.Last() {
		return nil, false, it.Error()
	}
	data, err := s.stateValue(it.Value())
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// Purge deletes every record of a query older than epoch `keep` (offsets, commits, state),
// keeping the latest state snapshot at or before keep for each operator partition readable.
func (s *Store) Purge(query string, keep int64) error {
	if keep <= 0 || keep == math.MaxInt64 {
		return nil
	}
	b := s.db.NewBatch()
	defer b.Close()
	for _, kind := range []string{"o", "c"} {
		if err := b.DeleteRange(key(query, kind, epochBytes(0)), key(query, kind, epochBytes(keep)), nil); err != nil {
			return err
		}
	}
	return b.Commit(pebble.Sync)
}

// PurgeState deletes, for every operator partition of a query, the state snapshots older than
// its latest snapshot at or before epoch keep (which stays, with every snapshot after keep):
// State(…, e) still answers for every e ≥ keep.
func (s *Store) PurgeState(query string, keep int64) error {
	prefix := key(query, "t")
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: append(prefix[:len(prefix):len(prefix)], 0xff)})
	if err != nil {
		return err
	}
	b := s.db.NewBatch()
	defer b.Close()
	// Keys end in <epoch 8 bytes>/; the part before is the operator partition.
	var group []byte
	var older [][]byte      // this group's snapshots at or before keep, oldest first
	var olderFiles []string // their files ("" for inline ones)
	var files []string      // files of the deleted snapshots, removed once the deletes commit
	flush := func() error {
		for i := 0; i+1 < len(older); i++ {
			if err := b.Delete(older[i], nil); err != nil {
				return err
			}
			if olderFiles[i] != "" {
				files = append(files, olderFiles[i])
			}
		}
		older, olderFiles = older[:0], olderFiles[:0]
		return nil
	}
	for valid := it.First(); valid; valid = it.Next() {
		k := it.Key()
		if len(k) < len(prefix)+9 {
			continue
		}
		g, e := k[:len(k)-9], int64(binary.BigEndian.Uint64(k[len(k)-9:len(k)-1]))
		if string(g) != string(group) {
			if err := flush(); err != nil {
				it.Close()
				return err
			}
			group = append(group[:0], g...)
		}
		if e <= keep {
			older = append(older, append([]byte(nil), k...))
			olderFiles = append(olderFiles, stateFileOf(it.Value()))
		}
	}
	if err := flush(); err != nil {
		it.Close()
		return err
	}
	if err := it.Close(); err != nil {
		return err
	}
	// With files to remove, the deletes are synced first: no durable record outlives its file.
	sync := pebble.NoSync
	if len(files) > 0 {
		sync = pebble.Sync
	}
	if err := b.Commit(sync); err != nil {
		return err
	}
	s.removeStateFiles(files)
	return nil
}
