package engine

import (
	"context"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// df.persist()/cache() (Spark's CacheManager): Persist records a DataFrame's optimized plan under
// the key its client plan has; a later plan with a part of that key reads it through an
// InMemoryTableScan (the analyzer's plan.Persisted), which explain shows as Spark does. The rows
// are produced lazily, by the first query that reads them (pinPersisted, before planning), and
// held in the server's PersistStore under its memory budget until Unpersist or the session's
// end: evicted rows of a memory-only level are recomputed by their next reader, those of a
// level with disk are read back from their spill file (persist_store.go).
// A write of this session to a path or table a persisted DataFrame reads drops its rows, so its
// next reader computes them again (persist_refresh.go, Spark's recacheByPath).
// Streaming DataFrames are not persisted (Spark reads a streaming plan fresh in each query).

// PersistMemoryBudgetConf is the memory all persisted and checkpointed DataFrames of the server
// may hold at once (PersistStore); the session adding rows applies its value.
const PersistMemoryBudgetConf = "spark.weir.storage.memoryBudgetBytes"

// defaultPersistMemoryBudget is half the default query budget (an eighth of the memory the
// process may use), as Spark's spark.memory.storageFraction gives storage half of its unified
// memory.
func defaultPersistMemoryBudget() int64 { return DefaultQueryMemoryBudget() / 2 }

// persistMemoryBudget is the session's PersistMemoryBudgetConf in bytes.
func (s *Session) persistMemoryBudget() (int64, error) {
	v, ok := s.conf.Get(PersistMemoryBudgetConf)
	if !ok || v == "" {
		return defaultPersistMemoryBudget(), nil
	}
	n, err := sources.ParseByteSize(PersistMemoryBudgetConf, v)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, sparkerr.IllegalArgument("%s must not be negative, but was %s", PersistMemoryBudgetConf, v)
	}
	return min(n, ProcessMemoryLimit()), nil
}

// WithPersistStore sets the store of persisted rows, shared by the sessions of one server
// (default: one store of the process, spilling under the system temporary directory).
func WithPersistStore(p *PersistStore) SessionOption { return func(s *Session) { s.store = p } }

// processPersistStore is the store of sessions built without WithPersistStore.
var processPersistStore = sync.OnceValue(func() *PersistStore { return NewPersistStore("") })

// persistStore is the session's store of persisted rows.
func (s *Session) persistStore() *PersistStore {
	if s.store == nil {
		return processPersistStore()
	}
	return s.store
}

// Persist records rel as persisted under key with storage level level. A key already persisted
// keeps its plan and rows (Spark: "Asked to cache already cached data").
func (s *Session) Persist(ctx context.Context, key string, rel plan.Relation, level logical.StorageLevel) error {
	s.views.mu.RLock()
	_, exists := s.views.persisted[key]
	s.views.mu.RUnlock()
	if exists {
		return nil
	}
	node, err := s.Analyze(ctx, rel)
	if err != nil || logical.IsStreaming(node) {
		return err
	}
	r, err := s.inMemoryRelation(ctx, node, level, false)
	if err != nil {
		return err
	}
	s.views.mu.Lock()
	if _, exists := s.views.persisted[key]; !exists {
		s.views.persisted[key] = r
	}
	s.views.mu.Unlock()
	return nil
}

// inMemoryRelation optimizes the analyzed batch plan node into a relation whose rows the store
// will hold.
func (s *Session) inMemoryRelation(ctx context.Context, node logical.Node, level logical.StorageLevel, checkpoint bool) (*logical.InMemoryRelation, error) {
	ectx, err := s.evalContext()
	if err != nil {
		return nil, err
	}
	optimized, err := s.optimize(ctx, node, ectx)
	if err != nil {
		return nil, err
	}
	return &logical.InMemoryRelation{Out: node.Schema(), Level: level, Plan: optimized, Checkpoint: checkpoint,
		Rows: s.persistStore().newRows(level, checkpoint)}, nil
}

// Unpersist forgets the DataFrame persisted under key and drops its rows; unknown keys are
// ignored, as Spark's uncacheQuery does.
func (s *Session) Unpersist(key string) {
	s.views.mu.Lock()
	r, ok := s.views.persisted[key]
	delete(s.views.persisted, key)
	s.views.mu.Unlock()
	if ok {
		r.Rows.(*heldRows).drop()
	}
}

// dropPersisted drops the rows of every DataFrame the session persisted or checkpointed (its end).
func (s *Session) dropPersisted() {
	s.views.mu.Lock()
	var held []*heldRows
	for k, r := range s.views.persisted {
		held = append(held, r.Rows.(*heldRows))
		delete(s.views.persisted, k)
	}
	for id, n := range s.views.cached {
		if scan, ok := n.(*logical.InMemoryTableScan); ok {
			held = append(held, scan.Relation.Rows.(*heldRows))
			delete(s.views.cached, id)
		}
	}
	s.views.mu.Unlock()
	for _, h := range held {
		h.drop()
	}
}

// PersistedRelation implements analyzer.PersistedRelations.
func (c *catalog) PersistedRelation(key string) (*logical.InMemoryRelation, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.persisted[key]
	return r, ok
}

var _ analyzer.PersistedRelations = (*catalog)(nil)

// pinnedRows are the rows of the persisted DataFrames one query reads, pinned for it before it
// is planned (planner.Options.Persisted), so an eviction while it runs does not change them.
type pinnedRows map[*logical.InMemoryRelation][]arrow.RecordBatch

func (p pinnedRows) lookup(r *logical.InMemoryRelation) ([]arrow.RecordBatch, bool) {
	recs, ok := p[r]
	return recs, ok
}

// pinPersisted pins the rows of every persisted DataFrame node reads, computing those not held
// (never read, or evicted from a memory-only level) by running their plans (which pin the
// persisted DataFrames they read in turn). A DataFrame whose rows are refused is not pinned:
// the query runs its plan.
func (s *Session) pinPersisted(ctx context.Context, node logical.Node, pins pinnedRows) (pinnedRows, error) {
	if scan, ok := node.(*logical.InMemoryTableScan); ok {
		r := scan.Relation
		if _, done := pins[r]; done {
			return pins, nil
		}
		h := r.Rows.(*heldRows)
		recs, ok, err := h.pin()
		if err != nil {
			return nil, err
		}
		if !ok {
			if _, refused := h.State(); refused && !r.Checkpoint {
				return pins, nil
			}
			if recs, ok, err = s.fillRows(ctx, r); err != nil {
				return nil, err
			}
		}
		if ok {
			if pins == nil {
				pins = pinnedRows{}
			}
			pins[r] = recs
		}
		return pins, nil
	}
	for _, c := range node.Children() {
		var err error
		if pins, err = s.pinPersisted(ctx, c, pins); err != nil {
			return nil, err
		}
	}
	return pins, nil
}

// fillRows runs r's plan, hands its rows to the store and returns them for the reading query
// (ok false: refused, the query runs the plan). Rows past the store's budget go to a file when
// the level uses disk (or r is a checkpoint) and are refused otherwise. An error of the plan is
// the reading query's error, as in Spark, where the first action over a cached DataFrame
// computes it.
func (s *Session) fillRows(ctx context.Context, r *logical.InMemoryRelation) (recs []arrow.RecordBatch, ok bool, err error) {
	budget, err := s.persistMemoryBudget()
	if err != nil {
		return nil, false, err
	}
	h := r.Rows.(*heldRows)
	res, err := s.run(ctx, r.Plan)
	if err != nil {
		return nil, false, err
	}
	defer res.Close()
	var size int64
	for {
		rec, err := res.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			releaseAll(recs)
			return nil, false, err
		}
		recs = append(recs, rec)
		size += recordBytes(rec)
		if size > budget && !h.spills() {
			releaseAll(recs)
			h.refuse()
			return nil, false, nil
		}
	}
	// The whole result is read: a memory-only level's fits in the budget, a level with disk
	// keeps its rows whatever their size.
	if h.inMemoryFirst() && size <= budget {
		held, err := concatHeld(recs)
		if err != nil {
			releaseAll(recs)
			return nil, false, err
		}
		releaseAll(recs)
		if held != nil {
			held.Retain() // one reference for the store, one for this query
		}
		if h.holdMemory(held, size, budget) {
			if held == nil {
				return nil, true, nil
			}
			return []arrow.RecordBatch{held}, true, nil
		}
		recs = nil
		if held != nil {
			held.Release()
			recs = []arrow.RecordBatch{held}
		}
	}
	if err := h.holdFile(recs); err != nil {
		releaseAll(recs)
		return nil, false, err
	}
	return recs, true, nil
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, rec := range recs {
		rec.Release()
	}
}

// recordBytes is the size of rec's buffers, nested columns' included.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
