package planner

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
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
	// Dedups and Joins have, for each streaming deduplication and each stream-stream join in
	// plan order (post-order, as Aggregates), the count of late rows it dropped.
	Dedups, Joins []*atomic.Int64
	// Metrics has the shared state of each CollectMetrics node (df.observe), in plan order
	// (post-order).
	Metrics []*operators.ObservedMetrics
}

// observe plans df.observe: an Observe node on a forward edge, keeping the input's partitions
// (never fused into a stateless chain: it handles barriers and end of data).
func (b *builder) observe(n *logical.CollectMetrics, in *flow.Node, schema *arrow.Schema) *flow.Node {
	obs := operators.NewObservedMetrics(b.ctx, n.Name, n.Aggs, n.AggSchema(), n.Metrics, n.MetricsSchema(), b.tz)
	if b.opts.Observers != nil {
		b.opts.Observers.Metrics = append(b.opts.Observers.Metrics, obs)
	}
	return b.node("CollectMetrics", in.Parallelism, schema, operators.Observe(b.ctx, obs), forward(in))
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
	spec.EventTime = &operators.EventTimeKey{Key: key, Evict: b.opts.OutputMode != flow.OutputComplete}
	spec.Append = b.opts.OutputMode == flow.OutputAppend
	spec.Dropped = new(atomic.Int64)
}

// observeAggregate registers a streaming aggregate's late-row counter.
func (b *builder) observeAggregate(node *flow.Node, n *logical.Aggregate, spec operators.AggregateSpec) *flow.Node {
	if b.opts.Streaming && b.opts.Observers != nil && logical.IsStreaming(n) {
		b.opts.Observers.Aggregates = append(b.opts.Observers.Aggregates, spec.Dropped)
	}
	return node
}

// sessionKey finds a session_window grouping key.
func sessionKey(n *logical.Aggregate) (int, *expr.SessionWindow, bool) {
	for i, g := range n.Groups {
		if w, ok := unalias(g).(*expr.SessionWindow); ok {
			return i, w, true
		}
	}
	return -1, nil, false
}

// sessionAggregate plans an aggregation grouped by session_window(ts, gap) and other keys: the
// other keys and the session time are projected into columns, the input is hash-partitioned
// on the other keys (gathered without any), and each partition merges its keys' sessions. On a
// stream only append mode is supported (Spark also refuses update mode; Weir complete mode).
func (b *builder) sessionAggregate(n *logical.Aggregate, pos int, w *expr.SessionWindow, in *flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	for i, g := range n.Groups {
		if _, ok := unalias(g).(*expr.SessionWindow); ok && i != pos {
			return nil, sparkerr.Analysis("", "", "Multiple time/session window expressions would result in a cartesian "+
				"product of rows, therefore they are currently not supported.")
		}
	}
	streaming := b.opts.Streaming && logical.IsStreaming(n)
	if streaming && b.opts.OutputMode != flow.OutputAppend {
		return nil, sparkerr.Unsupported("session_window in a streaming aggregation in %s output mode (use append)", b.opts.OutputMode)
	}
	inSchema := n.Input.Schema()
	exprs := columns(inSchema, allColumns(len(inSchema)))
	spec := operators.SessionSpec{SessionPos: pos, Gap: w.Gap, Window: w.Type(), Aggs: n.Aggs, TZ: b.tz, Streaming: streaming}
	for i, g := range n.Groups {
		if i == pos {
			continue
		}
		spec.KeyCols = append(spec.KeyCols, len(exprs))
		spec.KeyTypes = append(spec.KeyTypes, g.Type())
		exprs = append(exprs, &expr.Alias{Child: g, Name: keyName(i)})
	}
	spec.TimeCol = len(exprs)
	exprs = append(exprs, &expr.Alias{Child: w.TS, Name: "_session_time"})
	if streaming {
		spec.Dropped = new(atomic.Int64)
	}
	pre := &logical.Project{Input: n.Input, Exprs: exprs}
	in = b.node("Project", in.Parallelism, b.schema(pre), operators.Project(b.ctx, exprs), forward(in))
	f := operators.SessionAggregate(b.ctx, spec)
	var node *flow.Node
	if len(spec.KeyCols) == 0 {
		node = b.node("SessionWindowAggregate", 1, schema, f, flow.Input{From: in, Exchange: flow.Gather})
	} else {
		node = b.node("SessionWindowAggregate", b.opts.Partitions, schema, f, b.hashed(in, columns(pre.Schema(), spec.KeyCols)))
	}
	if b.opts.Streaming && b.opts.Observers != nil && logical.IsStreaming(n) {
		b.opts.Observers.Aggregates = append(b.opts.Observers.Aggregates, spec.Dropped)
	}
	return node, nil
}

// project plans a projection. A sliding window among its expressions (at the top, possibly
// aliased) is one row per window, so the input is expanded first and the expression reads the
// expanded window column, as Spark's TimeWindowing rewrites it.
func (b *builder) project(n *logical.Project, in *flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	slide := -1
	for i, e := range n.Exprs {
		if w, ok := unalias(e).(*expr.TimeWindow); ok && !w.Tumbling() {
			if slide >= 0 {
				return nil, sparkerr.Analysis("", "", "Multiple time/session window expressions would result in a "+
					"cartesian product of rows, therefore they are currently not supported.")
			}
			slide = i
		}
	}
	if slide < 0 {
		return b.stateless("Project", in, schema, operators.Project(b.ctx, n.Exprs)), nil
	}
	w := unalias(n.Exprs[slide]).(*expr.TimeWindow)
	ex := &logical.ExpandWindow{Input: n.Input, Window: w}
	node := b.node("ExpandWindow", in.Parallelism, b.schema(ex), operators.ExpandWindows(b.ctx, w, b.tz), forward(in))
	exprs := append([]expr.Expr(nil), n.Exprs...)
	exprs[slide] = &expr.Alias{Child: &expr.Column{Index: len(n.Input.Schema()), Name: "window", T: w.Type(), Null: true},
		Name: n.Exprs[slide].String()}
	return b.stateless("Project", node, schema, operators.Project(b.ctx, exprs)), nil
}
