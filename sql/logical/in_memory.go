package logical

import (
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// InMemoryRelation is a DataFrame the session persisted (df.cache()/persist(), Spark's
// InMemoryRelation): Plan is its optimized plan as of persist time, Rows the rows it produced
// the first time a query read it. Level describes the storage level as Spark's explain does.
// It has no WithChildren: the optimizer leaves it and its plan as they are.
type InMemoryRelation struct {
	Out   sqltypes.Schema
	Level string
	Plan  Node
	Rows  *CachedRows
}

// Schema implements Node.
func (r *InMemoryRelation) Schema() sqltypes.Schema { return r.Out }

// Children implements Node: the cached plan, shown by explain.
func (r *InMemoryRelation) Children() []Node { return []Node{r.Plan} }

// Describe implements Node.
func (r *InMemoryRelation) Describe() string {
	return "InMemoryRelation [" + strings.Join(r.Out.Names(), ", ") + "], " + r.Level
}

// InMemoryTableScan reads a persisted DataFrame (Spark's InMemoryTableScan): its cached rows once
// they are filled, its plan until then (the engine fills the rows before planning a query that
// reads it, unless they are too large to hold).
type InMemoryTableScan struct {
	Relation *InMemoryRelation
}

// Schema implements Node.
func (s *InMemoryTableScan) Schema() sqltypes.Schema { return s.Relation.Out }

// Children implements Node.
func (s *InMemoryTableScan) Children() []Node { return []Node{s.Relation} }

// Describe implements Node.
func (s *InMemoryTableScan) Describe() string {
	return "InMemoryTableScan [" + strings.Join(s.Relation.Out.Names(), ", ") + "]"
}

// CachedRows holds the rows of a persisted DataFrame: unfilled, filled with one record (nil for
// no rows), or refused (the rows did not fit: readers run the plan each time, as Spark
// recomputes the partitions a storage level could not keep).
type CachedRows struct {
	mu      sync.Mutex
	filled  bool
	refused bool
	rec     arrow.RecordBatch
}

// State reports whether the rows are filled and whether filling them was refused.
func (c *CachedRows) State() (filled, refused bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.filled, c.refused
}

// Fill stores rec (owned by c from now on; nil for no rows) unless the rows are already filled,
// in which case rec is released.
func (c *CachedRows) Fill(rec arrow.RecordBatch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.filled {
		if rec != nil {
			rec.Release()
		}
		return
	}
	c.filled, c.rec = true, rec
}

// Refuse records that the rows are too large to hold.
func (c *CachedRows) Refuse() {
	c.mu.Lock()
	c.refused = true
	c.mu.Unlock()
}

// Snapshot returns the filled rows, retained for the caller (nil when unfilled or empty).
func (c *CachedRows) Snapshot() []arrow.RecordBatch {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rec == nil {
		return nil
	}
	c.rec.Retain()
	return []arrow.RecordBatch{c.rec}
}

// Drop releases the rows (unpersist); readers planned before keep their retained snapshot.
func (c *CachedRows) Drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rec != nil {
		c.rec.Release()
	}
	c.filled, c.refused, c.rec = false, false, nil
}
