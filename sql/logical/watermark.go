package logical

import (
	"fmt"

	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Watermark is withWatermark(column, delay): its rows are its input's, and from it on the
// query's watermark is max(event time seen) - Delay (never moving backwards), which stateful
// operators above use to drop late rows and to close and evict state.
type Watermark struct {
	Input Node
	// Column is the event-time column's index in Input's (and this node's) schema.
	Column int
	// Delay in microseconds; DelayText is the user's delay string.
	Delay     int64
	DelayText string
}

// Schema implements Node.
func (w *Watermark) Schema() sqltypes.Schema { return w.Input.Schema() }

// Children implements Node.
func (w *Watermark) Children() []Node { return []Node{w.Input} }

// Describe implements Node (Spark's EventTimeWatermark line).
func (w *Watermark) Describe() string {
	return fmt.Sprintf("EventTimeWatermark %s, %s", w.Input.Schema()[w.Column].Name, w.DelayText)
}

// EventTimeColumns maps n's output columns that carry a watermarked event time (the
// withWatermark column, references to it, and window()/session_window() structs over it, as
// Spark's watermark metadata travels) to the watermark delay in microseconds.
func EventTimeColumns(n Node) map[int]int64 {
	switch n := n.(type) {
	case *Watermark:
		out := EventTimeColumns(n.Input)
		out[n.Column] = n.Delay
		return out
	case *Project:
		in := EventTimeColumns(n.Input)
		out := map[int]int64{}
		for i, e := range n.Exprs {
			if d, ok := eventTimeExpr(e, in); ok {
				out[i] = d
			}
		}
		return out
	case *Aggregate:
		in := EventTimeColumns(n.Input)
		out := map[int]int64{}
		for i, g := range n.Groups {
			if d, ok := eventTimeExpr(g, in); ok {
				out[i] = d
			}
		}
		return out
	case *ExpandWindow:
		out := EventTimeColumns(n.Input)
		if d, ok := eventTimeExpr(n.Window.TS, out); ok {
			out[len(n.Input.Schema())] = d
		}
		return out
	case *Union:
		// Spark's union output is its first input's attributes, watermark metadata included.
		return EventTimeColumns(n.Inputs[0])
	case *Filter, *Sort, *Limit, *Sample, *Repartition, *Distinct, *Tail, *Generate:
		return EventTimeColumns(n.Children()[0])
	}
	return map[int]int64{}
}

// eventTimeExpr reports whether e is (an alias of) a reference to an event-time column of its
// input, or a window over one.
func eventTimeExpr(e expr.Expr, in map[int]int64) (int64, bool) {
	for {
		a, ok := e.(*expr.Alias)
		if !ok {
			break
		}
		e = a.Child
	}
	switch x := e.(type) {
	case *expr.Column:
		d, ok := in[x.Index]
		return d, ok
	case *expr.TimeWindow:
		return eventTimeExpr(x.TS, in)
	case *expr.SessionWindow:
		return eventTimeExpr(x.TS, in)
	case *expr.WindowTime:
		return eventTimeExpr(x.Window, in)
	}
	return 0, false
}

// EventTimeKey finds the grouping key of a that is on the watermarked event time: a timestamp
// column or a window over it. ok is false when the aggregate has no such key (its state is
// never evicted and append mode is not allowed).
func EventTimeKey(a *Aggregate) (key int, delay int64, ok bool) {
	in := EventTimeColumns(a.Input)
	for i, g := range a.Groups {
		if d, ok := eventTimeExpr(g, in); ok {
			return i, d, true
		}
	}
	return -1, 0, false
}

// HasWatermark reports whether n or a node under it is a Watermark.
func HasWatermark(n Node) bool {
	if _, ok := n.(*Watermark); ok {
		return true
	}
	for _, c := range n.Children() {
		if HasWatermark(c) {
			return true
		}
	}
	return false
}

// ExpandWindow repeats each input row once per sliding window containing its time, appending
// the window (struct<start, end>) as the last column "window" (Spark's Expand for sliding
// windows). The planner introduces it under an aggregate grouping by a sliding window.
type ExpandWindow struct {
	Input  Node
	Window *expr.TimeWindow
}

// Schema implements Node.
func (e *ExpandWindow) Schema() sqltypes.Schema {
	s := append(sqltypes.Schema{}, e.Input.Schema()...)
	return append(s, sqltypes.Field{Name: "window", Type: e.Window.Type(), Nullable: true})
}

// Children implements Node.
func (e *ExpandWindow) Children() []Node { return []Node{e.Input} }

// Describe implements Node.
func (e *ExpandWindow) Describe() string {
	return fmt.Sprintf("Expand window(%s, %d, %d, %d)", e.Window.TS, e.Window.Size, e.Window.Slide, e.Window.Start)
}
