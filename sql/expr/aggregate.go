package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// AggFunc is a bound aggregate function call, e.g. sum(x), count(DISTINCT y).
type AggFunc interface {
	// Name is the function name ("sum").
	Name() string
	// Args are the argument expressions, evaluated over the aggregate's input batch.
	Args() []Expr
	// Distinct reports count(DISTINCT …)-style deduplication of argument tuples per group.
	Distinct() bool
	// Type is the result type; Nullable whether the result may be null.
	Type() sqltypes.DataType
	Nullable() bool
	// String is Spark's rendering, e.g. "sum(x)", "count(DISTINCT y)", "avg(v)".
	String() string
	// NewAccumulator returns fresh grouped state.
	NewAccumulator(ctx *Context) GroupedAccumulator
}

// GroupedAccumulator holds one aggregate's state for many groups, addressed by dense group ids
// 0..n-1 assigned by the aggregate operator.
type GroupedAccumulator interface {
	// Grow makes room for groups up to n-1 (new groups start empty).
	Grow(n int)
	// Update adds row i of args to group groups[i], for every row.
	Update(groups []uint32, args []arrow.Array) error
	// Retract removes rows previously added (streaming retractions). Implementations that
	// cannot retract (none should) return an error.
	Retract(groups []uint32, args []arrow.Array) error
	// Result returns, for each id in groups, the group's current value, as an array of the
	// function's Type().
	Result(ctx *Context, groups []uint32) (arrow.Array, error)
	// SizeBytes estimates memory held.
	SizeBytes() int64
}
