package logical

import (
	"strings"

	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Window computes window functions over Input (Spark's Window): its output is Input's columns
// followed by one column per function, named Names. All Funcs share one specification: rows are
// grouped by PartitionBy (NULL equals NULL) and ordered within a partition by OrderBy; each
// function's frame (WindowFunc.Frame) is relative to that order. A select list with several
// specifications is a chain of Window nodes, one per specification.
type Window struct {
	Input       Node
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Funcs       []*WindowFunc
	Names       []string
}

// Schema implements Node.
func (w *Window) Schema() sqltypes.Schema {
	s := append(sqltypes.Schema{}, w.Input.Schema()...)
	for i, f := range w.Funcs {
		s = append(s, sqltypes.Field{Name: w.Names[i], Type: f.Type, Nullable: f.Nullable})
	}
	return s
}

// Children implements Node.
func (w *Window) Children() []Node { return []Node{w.Input} }

// Describe implements Node.
func (w *Window) Describe() string {
	order := make([]string, len(w.OrderBy))
	for i, k := range w.OrderBy {
		order[i] = k.String()
	}
	return "Window [" + strings.Join(w.Names, ", ") + "], [" + exprList(w.PartitionBy) + "], [" + strings.Join(order, ", ") + "]"
}

// WindowKind is what a window function computes.
type WindowKind uint8

// Window function kinds.
const (
	// WindowAggregate is an aggregate function (WindowFunc.Agg) over the frame.
	WindowAggregate WindowKind = iota
	WindowRowNumber
	WindowRank
	WindowDenseRank
	WindowPercentRank
	WindowCumeDist
	// WindowNTile splits the partition into Offset buckets.
	WindowNTile
	// WindowOffset is lag (negative Offset) and lead: the value Offset rows away (counting
	// only non-null values with IgnoreNulls), else Default.
	WindowOffset
	// WindowNthValue is the Offset-th value of the frame (1-based).
	WindowNthValue
	// WindowFirst and WindowLast are the frame's first and last value.
	WindowFirst
	WindowLast
)

// BoundKind is the kind of one end of a frame.
type BoundKind uint8

// Frame bound kinds.
const (
	UnboundedPreceding BoundKind = iota
	CurrentRow
	// OffsetBound is a signed distance: rows for a ROWS frame, order-key units for RANGE
	// (negative is PRECEDING).
	OffsetBound
	UnboundedFollowing
)

// FrameBound is one end of a frame. For OffsetBound, Rows is the distance of a ROWS frame and
// Value the distance of a RANGE frame in the order key's unit (int64: integers, days of a date,
// microseconds of a timestamp or day-time interval, months of a year-month interval; float64:
// floating and decimal keys; MonthsOffset: a year-month interval over a date or timestamp key);
// SQL is Spark's rendering of the offset.
type FrameBound struct {
	Kind  BoundKind
	Rows  int64
	Value any
	SQL   string
}

// String renders the bound as Spark does: "UNBOUNDED PRECEDING", "CURRENT ROW", "1 PRECEDING",
// "-1 FOLLOWING"…
func (b FrameBound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case UnboundedFollowing:
		return "UNBOUNDED FOLLOWING"
	case CurrentRow:
		return "CURRENT ROW"
	}
	return b.SQL
}

// MonthsOffset is a RANGE offset of a year-month interval over a date or timestamp order key:
// the bound is the key plus so many months, by calendar (expr.AddMonths).
type MonthsOffset int64

// Frame is a window frame: ROWS (Rows true) or RANGE between Lower and Upper.
type Frame struct {
	Rows         bool
	Lower, Upper FrameBound
}

// String renders the frame as Spark does: "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".
func (f Frame) String() string {
	kind := "RANGE"
	if f.Rows {
		kind = "ROWS"
	}
	return kind + " BETWEEN " + f.Lower.String() + " AND " + f.Upper.String()
}

// WindowFunc is one bound window function with its frame.
type WindowFunc struct {
	Kind WindowKind
	// Agg is the aggregate of a WindowAggregate.
	Agg expr.AggFunc
	// Value is the argument of lag, lead, nth_value, first and last; Default lag's and lead's
	// default (of Value's type).
	Value, Default expr.Expr
	// Offset is lag/lead's signed row offset, nth_value's position, ntile's bucket count.
	Offset      int64
	IgnoreNulls bool
	Frame       Frame
	Type        sqltypes.DataType
	Nullable    bool
	// SQL is the function's rendering without its window (e.g. "row_number()").
	SQL string
}
