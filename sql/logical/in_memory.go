package logical

import (
	"fmt"
	"strings"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// InMemoryRelation is a DataFrame the session persisted (df.cache()/persist(), Spark's
// InMemoryRelation) or checkpointed: Plan is its optimized plan as of persist time, Rows holds the
// rows it produced the first time a query read it (the engine's store). Level is its storage
// level. It has no WithChildren: the optimizer leaves it and its plan as they are.
type InMemoryRelation struct {
	Out   sqltypes.Schema
	Level StorageLevel
	Plan  Node
	Rows  HeldRows
	// Checkpoint marks a checkpointed DataFrame (df.checkpoint()/localCheckpoint()): explain
	// shows it as Spark's LogicalRDD, and its rows are never recomputed once held.
	Checkpoint bool
}

// HeldRows is the state of a persisted DataFrame's rows, as the engine keeps them.
type HeldRows interface {
	// State reports whether the rows are held (in memory or on disk) and whether holding them
	// was refused (too large for a memory-only level: readers run the plan each time).
	State() (held, refused bool)
}

// StorageLevel is a persisted DataFrame's storage level (Spark's StorageLevel).
type StorageLevel struct {
	UseDisk, UseMemory, UseOffHeap, Deserialized bool
	Replication                                  int
}

// String renders the level as Spark's StorageLevel.toString (explain's InMemoryRelation line):
// StorageLevel(disk, memory, deserialized, 1 replicas).
func (l StorageLevel) String() string {
	var parts []string
	if l.UseDisk {
		parts = append(parts, "disk")
	}
	if l.UseMemory {
		parts = append(parts, "memory")
	}
	if l.UseOffHeap {
		parts = append(parts, "offheap")
	}
	if l.Deserialized {
		parts = append(parts, "deserialized")
	}
	parts = append(parts, fmt.Sprintf("%d replicas", l.Replication))
	return "StorageLevel(" + strings.Join(parts, ", ") + ")"
}

// Schema implements Node.
func (r *InMemoryRelation) Schema() sqltypes.Schema { return r.Out }

// Children implements Node: the cached plan, shown by explain (none for a checkpoint, whose
// plan Spark's LogicalRDD no longer shows).
func (r *InMemoryRelation) Children() []Node {
	if r.Checkpoint {
		return nil
	}
	return []Node{r.Plan}
}

// Describe implements Node.
func (r *InMemoryRelation) Describe() string {
	if r.Checkpoint {
		return "LogicalRDD [" + strings.Join(r.Out.Names(), ", ") + "], false"
	}
	return "InMemoryRelation [" + strings.Join(r.Out.Names(), ", ") + "], " + r.Level.String()
}

// InMemoryTableScan reads a persisted DataFrame (Spark's InMemoryTableScan): its held rows, or
// its plan when they could not be held (the engine fills the rows before planning a query
// that reads it).
type InMemoryTableScan struct {
	Relation *InMemoryRelation
}

// Schema implements Node.
func (s *InMemoryTableScan) Schema() sqltypes.Schema { return s.Relation.Out }

// Children implements Node.
func (s *InMemoryTableScan) Children() []Node { return []Node{s.Relation} }

// Describe implements Node.
func (s *InMemoryTableScan) Describe() string {
	if s.Relation.Checkpoint {
		return "Scan ExistingRDD [" + strings.Join(s.Relation.Out.Names(), ", ") + "]"
	}
	return "InMemoryTableScan [" + strings.Join(s.Relation.Out.Names(), ", ") + "]"
}
