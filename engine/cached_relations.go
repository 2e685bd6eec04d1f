package engine

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// CacheRelation holds a copy of recs as the DataFrame id of this session (Spark Connect's
// CachedRemoteRelation), readable until UncacheRelation(id). foreachBatch caches each epoch's
// output this way for the function's worker, which reads it over Spark Connect.
//
// The copy lives in Go-collected memory, not in the query's budget: a plan or temp view the
// function built over the DataFrame (batch_df.createOrReplaceTempView) keeps its rows valid after
// the epoch uncached them, as a Spark view keeps its plan.
func (s *Session) CacheRelation(id string, schema sqltypes.Schema, recs []arrow.RecordBatch) error {
	var held arrow.RecordBatch
	if len(recs) > 0 {
		rec, err := sinks.ConcatRecords(memory.DefaultAllocator, recs)
		if err != nil {
			return err
		}
		held = rec
	}
	node := &logical.LocalData{Out: schema, Snapshot: func() []arrow.RecordBatch {
		if held == nil {
			return nil
		}
		held.Retain()
		return []arrow.RecordBatch{held}
	}}
	s.views.mu.Lock()
	s.views.cached[id] = node
	s.views.mu.Unlock()
	return nil
}

// UncacheRelation drops the DataFrame id (RemoveCachedRemoteRelationCommand; foreachBatch after
// its function returned) and a checkpoint's rows. Unknown ids are ignored, as Spark's
// removeCachedDataFrame does.
func (s *Session) UncacheRelation(id string) {
	s.views.mu.Lock()
	n := s.views.cached[id]
	delete(s.views.cached, id)
	s.views.mu.Unlock()
	dropCheckpoint(n)
}

// CachedRelation implements analyzer.CachedRelations.
func (c *catalog) CachedRelation(id string) (logical.Node, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n, ok := c.cached[id]
	return n, ok
}

var _ analyzer.CachedRelations = (*catalog)(nil)
