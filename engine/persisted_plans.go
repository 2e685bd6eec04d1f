package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// df.persist()/cache() (Spark's CacheManager): Persist records a DataFrame's optimized plan under
// the key its client plan has; a later plan with a part of that key reads it through an
// InMemoryTableScan (the analyzer's plan.Persisted), which explain shows as Spark does. The rows
// are produced lazily, by the first query that reads them (fillPersisted, before planning), and
// kept in Go-collected memory until Unpersist; rows larger than a quarter of the query memory
// budget are not kept (the storage level could not hold them): readers run the plan each time.
// Streaming DataFrames are not persisted (Spark reads a streaming plan fresh in each query).

// Persist records rel as persisted under key with the storage level description level. A key
// already persisted keeps its plan and rows (Spark: "Asked to cache already cached data").
func (s *Session) Persist(ctx context.Context, key string, rel plan.Relation, level string) error {
	s.views.mu.RLock()
	_, exists := s.views.persisted[key]
	s.views.mu.RUnlock()
	if exists {
		return nil
	}
	node, err := s.Analyze(ctx, rel)
	if err != nil {
		return err
	}
	if logical.IsStreaming(node) {
		return nil
	}
	ectx, err := s.evalContext()
	if err != nil {
		return err
	}
	optimized, err := s.optimize(ctx, node, ectx)
	if err != nil {
		return err
	}
	r := &logical.InMemoryRelation{Out: node.Schema(), Level: level, Plan: optimized, Rows: &logical.CachedRows{}}
	s.views.mu.Lock()
	if _, exists := s.views.persisted[key]; !exists {
		s.views.persisted[key] = r
	}
	s.views.mu.Unlock()
	return nil
}

// Unpersist forgets the DataFrame persisted under key and drops its rows; unknown keys are
// ignored, as Spark's uncacheQuery does.
func (s *Session) Unpersist(key string) {
	s.views.mu.Lock()
	r, ok := s.views.persisted[key]
	delete(s.views.persisted, key)
	s.views.mu.Unlock()
	if ok {
		r.Rows.Drop()
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

// fillPersisted produces the rows of every persisted DataFrame node reads that has none yet, by
// running its plan (which fills the persisted DataFrames it reads in turn).
func (s *Session) fillPersisted(ctx context.Context, node logical.Node) error {
	if scan, ok := node.(*logical.InMemoryTableScan); ok {
		if filled, refused := scan.Relation.Rows.State(); filled || refused {
			return nil
		}
		return s.fillRows(ctx, scan.Relation)
	}
	for _, c := range node.Children() {
		if err := s.fillPersisted(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// fillRows runs r's plan and keeps its rows in r, or marks them refused when they pass a quarter
// of the query memory budget. An error of the plan is the reading query's error, as in Spark,
// where the first action over a cached DataFrame computes it.
func (s *Session) fillRows(ctx context.Context, r *logical.InMemoryRelation) error {
	limit, err := s.QueryMemoryBudget()
	if err != nil {
		return err
	}
	res, err := s.run(ctx, r.Plan)
	if err != nil {
		return err
	}
	defer res.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	var size int64
	for {
		rec, err := res.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		recs = append(recs, rec)
		size += recordBytes(rec)
		if size > limit/4 {
			r.Rows.Refuse()
			return nil
		}
	}
	if len(recs) == 0 {
		r.Rows.Fill(nil)
		return nil
	}
	held, err := sinks.ConcatRecords(memory.DefaultAllocator, recs)
	if err != nil {
		return err
	}
	r.Rows.Fill(held)
	return nil
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
