package query

import (
	"github.com/weirhq/weir/sql/plan"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// Trigger is a query's trigger.
type Trigger struct {
	// Kind is the trigger as the client set it (plan.TriggerUnset: the default trigger, which
	// starts the next epoch as soon as the previous one ended and data is available).
	Kind     plan.TriggerKind
	Interval time.Duration
}

// Spec describes a query to start (from DataStreamWriter).
type Spec struct {
	// Plan is the analyzed streaming plan (logical.IsStreaming(Plan) is true).
	Plan logical.Node
	// Format is the sink format ("console", "memory", "noop"; "" means Spark's default, parquet,
	// which is a file sink).
	Format string
	// Options are the sink and query options as the user gave them (case as given).
	Options    map[string]string
	OutputMode flow.OutputMode
	Trigger    Trigger
	// Name is the query name, "" if none.
	Name string
	// Path is start(path), TableName toTable(name); "" if not given.
	Path, TableName string
	// PartitionBy is writeStream.partitionBy's columns (nil if none).
	PartitionBy []string
	// ClusterBy is writeStream.clusterBy's columns (refused: checkWriter).
	ClusterBy []string
	// Foreach is writeStream.foreach's writer (nil if none); the sink is then sinks.Foreach and
	// Format is ignored.
	Foreach sinks.ForeachWriter
	// ForeachBatch is writeStream.foreachBatch's function (nil if none); the sink is then
	// sinks.ForeachBatch and Format is ignored. Start takes ownership: the function is closed when
	// the query ends or fails to start.
	ForeachBatch sinks.ForeachBatchFunc
}

// Env is what a session's Manager runs queries with.
type Env struct {
	Mem   memory.Allocator
	Clock clock.Clock
	// Runner runs the queries' flow graphs.
	Runner flow.JobRunner
	// Partitions, when > 0, is the state and shuffle partition count of new queries instead of
	// spark.sql.shuffle.partitions (read from Conf; flow.DefaultParallelism() without one).
	Partitions int
	// Stdout receives console sink output.
	Stdout io.Writer
	// Tables registers memory sink tables as session temp views.
	Tables sinks.TableRegistry
	// ExprContext returns the evaluation context of a new query (time zone, ANSI mode).
	ExprContext func() (*expr.Context, error)
	// Conf reads session configuration (e.g. spark.sql.streaming.checkpointLocation).
	Conf func(key string) (string, bool)
	// Files is the file-access policy checkpoint locations, the spill directory and the file
	// sources' and sinks' paths are checked with (nil: the always-on rules only).
	Files *fileaccess.Policy
	// Locations are the checkpoint locations held by running queries, shared by the Managers
	// of one server (nil: this Manager's own, which keeps other servers' sessions apart only
	// through the store's lock).
	Locations *Locations
	// MemoryBudget returns a new query's memory budget in bytes (nil or ≤ 0: counted, not
	// limited); each run of a query's job gets a fresh flow.MemoryBudget of that size.
	MemoryBudget func() (int64, error)
	// Python returns what a new query runs its Python functions with (nil: no Python).
	Python func() *operators.PythonSpec
}

// Status is StreamingQuery.status.
type Status struct {
	Message       string
	DataAvailable bool
	TriggerActive bool
	Active        bool
}

// EventType is the type of a listener event.
type EventType uint8

// Listener event types (as the Spark Connect listener bus numbers them).
const (
	ProgressEvent   EventType = 1
	TerminatedEvent EventType = 2
	IdleEvent       EventType = 3
)

// Event is a listener event with its JSON (Spark's event.json shape).
type Event struct {
	Type EventType
	JSON string
}

// Listener receives a session's query events. OnEvent must not block for long.
type Listener interface {
	OnEvent(Event)
}

// Exception is a failed query's error in the form the client shows: Message is
// "<JavaClass>: message" (StreamingQueryException.toString), Class the Spark error class.
type Exception struct {
	Message string
	Class   string
	Err     *sparkerr.Error
}
