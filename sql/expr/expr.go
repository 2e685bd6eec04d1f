package expr

import (
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Context carries what evaluation needs besides the batch.
type Context struct {
	Mem memory.Allocator
	// Location is spark.sql.session.timeZone.
	Location *time.Location
	// ANSI is spark.sql.ansi.enabled (Spark 4 default: true).
	ANSI bool
	// Now is the statement's current timestamp (micros since epoch, UTC) for current_timestamp().
	Now int64
	// Batch, when set (a streaming query), holds the running micro-batch's timestamp (micros
	// since epoch, UTC), which current_timestamp() and the other current-time functions return
	// instead of Now: Spark evaluates them at the batch timestamp logged with each micro-batch's
	// offsets, so every row of a batch sees one time and a batch run again after a restart
	// sees the time it first ran with.
	Batch *atomic.Int64
	// MaxValueBytes bounds the bytes a function whose result size comes from its arguments
	// (repeat, lpad, array_repeat, sequence, …) may build, for one value and summed over the
	// values of one evaluation over a batch; 0 means no bound beyond Spark's own limits. Past it
	// the query fails with SparkOutOfMemoryError UNABLE_TO_ACQUIRE_MEMORY naming
	// spark.weir.query.memoryBudgetBytes.
	MaxValueBytes int64
	// part is the state of the partition being evaluated (see ForPartition).
	part *partitionState
}

// CurrentMicros is the current time of the functions that read it (current_timestamp(),
// current_date(), now(), localtimestamp(), unix_timestamp()): the running micro-batch's
// timestamp in a streaming query, else the statement's.
func (c *Context) CurrentMicros() int64 {
	if c.Batch != nil {
		return c.Batch.Load()
	}
	return c.Now
}

// Expr is a resolved expression.
type Expr interface {
	// Type is the result type.
	Type() sqltypes.DataType
	// Nullable reports whether the result may be null.
	Nullable() bool
	// String is Spark's rendering of the expression, used for auto-generated column names
	// (e.g. "(a + 1)", "count(1)", "CAST(x AS INT)").
	String() string
	// Children are the direct sub-expressions.
	Children() []Expr
	// Eval evaluates over batch and returns an array of batch.NumRows() values.
	Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error)
}

// Column is a reference to input column Index.
type Column struct {
	Index int
	Name  string
	T     sqltypes.DataType
	Null  bool
}

// Type implements Expr.
func (c *Column) Type() sqltypes.DataType { return c.T }

// Nullable implements Expr.
func (c *Column) Nullable() bool { return c.Null }

// String implements Expr.
func (c *Column) String() string { return c.Name }

// Children implements Expr.
func (c *Column) Children() []Expr { return nil }

// Eval implements Expr: the column itself, retained.
func (c *Column) Eval(_ *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	a := batch.Column(c.Index)
	a.Retain()
	return a, nil
}

// Alias names an expression's output column; it evaluates to its child.
type Alias struct {
	Child Expr
	Name  string
}

// Type implements Expr.
func (a *Alias) Type() sqltypes.DataType { return a.Child.Type() }

// Nullable implements Expr.
func (a *Alias) Nullable() bool { return a.Child.Nullable() }

// String implements Expr.
func (a *Alias) String() string { return a.Name }

// Children implements Expr.
func (a *Alias) Children() []Expr { return []Expr{a.Child} }

// Eval implements Expr.
func (a *Alias) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	return a.Child.Eval(ctx, batch)
}

// OutputName is the column name an expression gets in a projection: its alias, or its String.
func OutputName(e Expr) string { return e.String() }
