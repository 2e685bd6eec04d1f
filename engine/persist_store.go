package engine

import (
	"container/list"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sql/logical"
)

// PersistStore holds the rows of every persisted and checkpointed DataFrame of a server's
// sessions (Spark's BlockManager memory and disk stores) under one memory budget.
//
// Rows held in memory count against the budget (PersistMemoryBudgetConf of the session that
// adds rows; their Arrow buffers' size). Adding rows past it evicts the least recently read
// entries first: an entry whose level uses disk (MEMORY_AND_DISK…) and every checkpoint moves
// to an Arrow IPC file in the store's directory; a memory-only one is dropped and recomputed
// by the next query that reads it, as Spark recomputes evicted blocks. Rows larger than the
// whole budget go straight to a file when the level uses disk (or it is a checkpoint) and are
// refused otherwise (each reader runs the plan). DISK_ONLY rows always go to a file.
//
// The directory is the state directory's scratch area (fileaccess.Policy.ScratchDir), cleared
// when the server starts; without one, a directory of this process under the system temporary
// directory, created on first spill.
type PersistStore struct {
	mu   sync.Mutex
	dir  string // "" until the first spill when no directory was given
	used int64
	lru  *list.List // *heldRows held in memory, most recently read first
	seq  int64
}

// NewPersistStore is a store spilling into dir ("" = a temporary directory made on first use).
func NewPersistStore(dir string) *PersistStore {
	return &PersistStore{dir: dir, lru: list.New()}
}

// MemoryUsed is the size of the rows the store holds in memory.
func (p *PersistStore) MemoryUsed() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// heldRows are one persisted DataFrame's rows in the store: not yet computed, in memory (rec,
// nil for no rows), in a file, or refused. Fields other than store, level and keep are guarded
// by store.mu.
type heldRows struct {
	store *PersistStore
	level logical.StorageLevel
	// keep marks a checkpoint's rows: evicted to disk whatever the level, never dropped.
	keep bool

	inMemory bool
	rec      arrow.RecordBatch
	size     int64
	elem     *list.Element
	file     string
	refused  bool
}

var _ logical.HeldRows = (*heldRows)(nil)

func (p *PersistStore) newRows(level logical.StorageLevel, keep bool) *heldRows {
	return &heldRows{store: p, level: level, keep: keep}
}

// State implements logical.HeldRows.
func (h *heldRows) State() (held, refused bool) {
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	return h.inMemory || h.file != "", h.refused
}

// spills reports whether h's rows go to disk rather than away when memory cannot hold them.
func (h *heldRows) spills() bool { return h.keep || h.level.UseDisk }

// inMemoryFirst reports whether h's rows go to memory first (DISK_ONLY's do not).
func (h *heldRows) inMemoryFirst() bool { return h.level.UseMemory || h.keep }

// pin returns h's rows for one query (retained for it) and marks them recently read; ok is
// false when they are not held (never computed, dropped, or refused).
func (h *heldRows) pin() (recs []arrow.RecordBatch, ok bool, err error) {
	p := h.store
	p.mu.Lock()
	switch {
	case h.inMemory:
		p.lru.MoveToFront(h.elem)
		if h.rec != nil {
			h.rec.Retain()
			recs = []arrow.RecordBatch{h.rec}
		}
		p.mu.Unlock()
		return recs, true, nil
	case h.file != "":
		f, err := os.Open(h.file)
		p.mu.Unlock() // an open file stays readable when drop removes it
		if err != nil {
			return nil, false, err
		}
		defer f.Close()
		recs, err := readIPCFile(f)
		return recs, err == nil, err
	}
	p.mu.Unlock()
	return nil, false, nil
}

// holdMemory keeps rec (owned by h from now on; nil for no rows) of size bytes in memory,
// evicting the least recently read entries until the store's rows fit in budget. It reports
// false, keeping nothing, when size alone passes the budget. Rows already held stay.
func (h *heldRows) holdMemory(rec arrow.RecordBatch, size, budget int64) bool {
	p := h.store
	p.mu.Lock()
	defer p.mu.Unlock()
	if h.inMemory || h.file != "" {
		if rec != nil {
			rec.Release()
		}
		return true
	}
	if size > budget {
		return false
	}
	for e := p.lru.Back(); e != nil && p.used+size > budget; {
		victim := e.Value.(*heldRows)
		e = e.Prev()
		p.evictLocked(victim)
	}
	h.inMemory, h.rec, h.size, h.refused = true, rec, size, false
	h.elem = p.lru.PushFront(h)
	p.used += size
	return true
}

// evictLocked moves victim's rows out of memory: to a file when its level uses disk, away
// otherwise. A checkpoint whose file cannot be written stays in memory (its rows are not
// recomputed).
func (p *PersistStore) evictLocked(victim *heldRows) {
	if victim.spills() {
		var recs []arrow.RecordBatch
		if victim.rec != nil {
			recs = []arrow.RecordBatch{victim.rec}
		}
		file, err := p.writeFileLocked(recs)
		if err != nil && victim.keep {
			return
		}
		victim.file = file // "" on error: the rows are dropped and recomputed
	}
	p.lru.Remove(victim.elem)
	p.used -= victim.size
	if victim.rec != nil {
		victim.rec.Release()
	}
	victim.inMemory, victim.rec, victim.size, victim.elem = false, nil, 0, nil
}

// holdFile keeps recs (owned by the caller) in a new file of the store.
func (h *heldRows) holdFile(recs []arrow.RecordBatch) error {
	p := h.store
	p.mu.Lock()
	defer p.mu.Unlock()
	if h.inMemory || h.file != "" {
		return nil
	}
	file, err := p.writeFileLocked(recs)
	if err != nil {
		return err
	}
	h.file, h.refused = file, false
	return nil
}

// refuse records that h's rows are too large to hold.
func (h *heldRows) refuse() {
	h.store.mu.Lock()
	h.refused = true
	h.store.mu.Unlock()
}

// drop releases h's rows from memory and disk (unpersist, session end).
func (h *heldRows) drop() {
	p := h.store
	p.mu.Lock()
	defer p.mu.Unlock()
	if h.inMemory {
		p.lru.Remove(h.elem)
		p.used -= h.size
		if h.rec != nil {
			h.rec.Release()
		}
	}
	if h.file != "" {
		_ = os.Remove(h.file)
	}
	h.inMemory, h.rec, h.size, h.elem, h.file, h.refused = false, nil, 0, nil, "", false
}

// writeFileLocked writes recs to a new Arrow IPC file of the store and returns its path. An
// empty recs writes a file with no batches and an empty schema.
func (p *PersistStore) writeFileLocked(recs []arrow.RecordBatch) (string, error) {
	if p.dir == "" {
		dir, err := os.MkdirTemp("", fmt.Sprintf("weir-persisted-%d-", os.Getpid()))
		if err != nil {
			return "", err
		}
		p.dir = dir
	} else if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return "", err
	}
	p.seq++
	path := filepath.Join(p.dir, fmt.Sprintf("rows-%d.arrow", p.seq))
	if err := writeIPCFile(path, recs); err != nil {
		_ = os.Remove(path)
		return "", err
	}
	return path, nil
}

func writeIPCFile(path string, recs []arrow.RecordBatch) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	schema := arrow.NewSchema(nil, nil)
	if len(recs) > 0 {
		schema = recs[0].Schema()
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			_ = w.Close()
			return err
		}
	}
	return w.Close()
}

// readIPCFile reads every batch of an Arrow IPC file into memory (batches owned by the caller).
func readIPCFile(f *os.File) ([]arrow.RecordBatch, error) {
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			for _, x := range recs {
				x.Release()
			}
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// concatHeld is recs as one batch for the store (nil for none).
func concatHeld(recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	return sinks.ConcatRecords(memory.DefaultAllocator, recs)
}
