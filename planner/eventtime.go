package planner

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/logical"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
)

// Observers receives handles on a built plan's event-time operators, which a streaming query
// reads for its progress (eventTime, stateOperators[].numRowsDroppedByWatermark).
type Observers struct {
	// EventTime has the shared stats of each withWatermark node, in plan order.
	EventTime []*operators.EventTimeStats
	// Aggregates has, for each streaming aggregate in plan order (children first, as a
	// post-order walk of the logical plan meets them), the count of late rows it dropped (nil
	// for an aggregate without an event-time key, which drops none).
	Aggregates []*atomic.Int64
}

// watermark plans withWatermark: an EventTimeWatermark node on a forward edge (never fused into
// a stateless chain: it handles barriers).
func (b *builder) watermark(n *logical.Watermark, in *flow.Node, schema *arrow.Schema) *flow.Node {
	stats := operators.NewEventTimeStats()
	if b.opts.Observers != nil {
		b.opts.Observers.EventTime = append(b.opts.Observers.EventTime, stats)
	}
	return b.node("EventTimeWatermark", in.Parallelism, schema,
		operators.EventTimeWatermark(operators.WatermarkSpec{Column: n.Column, Delay: n.Delay, Stats: stats}), forward(in))
}

// expandSlidingWindow rewrites an aggregate grouping by a sliding window: the input is
// expanded (one row per window, the window appended as a column) and the key becomes that
// column. Tumbling windows stay scalar keys. Only one sliding window key is supported, as in
// Spark ("Multiple time/session window expressions would result in a cartesian product").
func (b *builder) expandSlidingWindow(n *logical.Aggregate, in *flow.Node) (*logical.Aggregate, *flow.Node, error) {
	for i, g := range n.Groups {
		if _, ok := unalias(g).(*expr.SessionWindow); ok {
			return nil, nil, sparkerr.Unsupported("grouping by session_window")
		}
		w, ok := unalias(g).(*expr.TimeWindow)
		if !ok || w.Tumbling() {
			continue
		}
		ex := &logical.ExpandWindow{Input: n.Input, Window: w}
		width := len(n.Input.Schema())
		groups := append([]expr.Expr(nil), n.Groups...)
		groups[i] = &expr.Alias{Child: &expr.Column{Index: width, Name: "window", T: w.Type(), Null: true}, Name: g.String()}
		node := b.node("ExpandWindow", in.Parallelism, b.schema(ex), operators.ExpandWindows(b.ctx, w, b.tz), forward(in))
		return &logical.Aggregate{Input: ex, Groups: groups, Aggs: n.Aggs, Names: n.Names}, node, nil
	}
	return n, in, nil
}

func unalias(e expr.Expr) expr.Expr {
	for {
		a, ok := e.(*expr.Alias)
		if !ok {
			return e
		}
		e = a.Child
	}
}

// eventTimeAggregate sets a streaming aggregate's event-time behaviour: with a grouping key on
// the watermarked event time, append mode emits closed groups once, append and update modes
// drop late rows and evict closed groups, complete mode keeps everything.
func (b *builder) eventTimeAggregate(n *logical.Aggregate, spec *operators.AggregateSpec) {
	if !b.opts.Streaming || len(n.Groups) == 0 {
		return
	}
	key, _, ok := logical.EventTimeKey(n)
	if !ok {
		return
	}
	spec.EventTime = &operators.EventTimeKey{Key: key, Evict: b.opts.OutputMode != sinks.Complete}
	spec.Append = b.opts.OutputMode == sinks.Append
	spec.Dropped = new(atomic.Int64)
}

// observeAggregate registers a streaming aggregate's late-row counter.
func (b *builder) observeAggregate(node *flow.Node, n *logical.Aggregate, spec operators.AggregateSpec) *flow.Node {
	if b.opts.Streaming && b.opts.Observers != nil && logical.IsStreaming(n) {
		b.opts.Observers.Aggregates = append(b.opts.Observers.Aggregates, spec.Dropped)
	}
	return node
}
