package sinks

import (
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Env is what a sink is built with.
type Env struct {
	// QueryName is the query's name ("" if none); the memory sink's table name.
	QueryName string
	// Mode is the output mode.
	Mode flow.OutputMode
	// Schema is the rows' schema (user columns).
	Schema sqltypes.Schema
	// TimeZone is the session time zone (console rendering).
	TimeZone string
	// Stdout is where the console sink prints (the server's stdout).
	Stdout io.Writer
	// Tables registers the memory sink's table as a session temp view.
	Tables TableRegistry
	// QueryID is the streaming query's persistent id (kept in its checkpoint; "" for batch
	// writes). The exactly-once Kafka sink derives its transactional ids from it.
	QueryID string
	// PartitionBy is writeStream.partitionBy's columns (file sinks write Hive-style
	// directories col=value; other sinks refuse them).
	PartitionBy []string
	// Files is the file-access policy the file sinks check their paths with (nil: the
	// always-on rules only).
	Files *fileaccess.Policy
	// Continuous: the query runs under trigger(continuous=...) (rows move as they are read;
	// epochs are cut at the checkpoint interval). The Kafka sink is then at-least-once unless
	// asked for exactlyOnce, as Spark's Kafka sink under continuous processing.
	Continuous bool
}

// TableRegistry is the session's temp-view registry, as the memory sink needs it.
type TableRegistry interface {
	// RegisterTable makes table readable as a temp view named name (replacing any view).
	RegisterTable(name string, table *MemoryTable) error
}

// Sink builds a sink's per-partition operators and describes it.
type Sink interface {
	// Description for progress reports, e.g. "MemorySink".
	Description() string
	// Parallelism is the number of sink partitions (1 for console and memory, which need one
	// ordered view of each epoch; any for noop).
	Parallelism(upstream int) int
	// NewOperator builds partition env.Partition's operator. The operator handles data in
	// Process, commits at Barrier (flow.BarrierHandler) and finishes at EndOfData.
	NewOperator(env flow.Env) (flow.Operator, error)
	// OutputRows returns and resets the rows written since the last call (progress numOutputRows).
	OutputRows() int64
}

// Factory validates options and builds a sink.
type Factory func(env Env, options map[string]string) (Sink, error)

// MemoryTable is the memory sink's result table, readable while the query runs. Snapshot
// returns the current rows (user columns); callers release the returned batches.
type MemoryTable struct {
	mu     sync.RWMutex
	schema sqltypes.Schema
	rows   []arrow.RecordBatch
}

// NewMemoryTable returns an empty table.
func NewMemoryTable(schema sqltypes.Schema) *MemoryTable { return &MemoryTable{schema: schema} }

// Schema returns the table's schema.
func (t *MemoryTable) Schema() sqltypes.Schema { return t.schema }

// Snapshot returns the table's current batches, retained for the caller.
func (t *MemoryTable) Snapshot() []arrow.RecordBatch {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]arrow.RecordBatch, len(t.rows))
	for i, r := range t.rows {
		r.Retain()
		out[i] = r
	}
	return out
}

// Append adds batches (taking ownership).
func (t *MemoryTable) Append(recs ...arrow.RecordBatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows = append(t.rows, recs...)
}

// Replace replaces the table's contents (taking ownership of recs).
func (t *MemoryTable) Replace(recs []arrow.RecordBatch) {
	t.mu.Lock()
	old := t.rows
	t.rows = recs
	t.mu.Unlock()
	for _, r := range old {
		r.Release()
	}
}

// Release drops the table's rows.
func (t *MemoryTable) Release() { t.Replace(nil) }
