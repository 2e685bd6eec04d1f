package operators

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// streamHarness drives one stateful streaming operator (dedup, stream-stream join): push rows
// on an input, move the watermark, pass barriers, print state metrics, and snapshot the state
// into a fresh instance. Timestamps ("ts" columns) are written and printed in seconds.
type streamHarness struct {
	mem     *memory.CheckedAllocator
	factory Factory
	op      flow.Operator
	env     flow.Env
	ins     []sqltypes.Schema
	out     sqltypes.Schema
	lines   []string
	// budget is the operator's state budget when "new" gives none ("budget=N" bytes).
	budget state.Budget
}

func (h *streamHarness) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	if !arrow.TypeEqual(arrow.StructOf(rec.Schema().Fields()...), arrow.StructOf(h.env.OutSchema.Fields()...)) {
		h.lines = append(h.lines, fmt.Sprintf("bad schema %s", rec.Schema()))
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		vals := make([]string, len(h.out))
		for c, f := range h.out {
			a := rec.Column(c + flow.UserOffset)
			switch {
			case a.IsNull(i):
				vals[c] = "null"
			case f.Type.Kind == sqltypes.Timestamp:
				vals[c] = strconv.FormatInt(int64(a.(*array.Timestamp).Value(i))/1e6, 10)
			default:
				vals[c] = formatValue(expr.ValueAt(a, i, f.Type))
			}
		}
		h.lines = append(h.lines, "+ "+strings.Join(vals, ", "))
	}
	return nil
}

// streamSchema reads "a:long,t:ts".
func streamSchema(s string) sqltypes.Schema {
	var out sqltypes.Schema
	for _, f := range strings.Split(s, ",") {
		name, typ, _ := strings.Cut(f, ":")
		t := map[string]sqltypes.DataType{"long": sqltypes.LongType, "string": sqltypes.StringType,
			"ts": sqltypes.TimestampType}[typ]
		out = append(out, sqltypes.Field{Name: name, Type: t, Nullable: true})
	}
	return out
}

func (h *streamHarness) rows(s sqltypes.Schema, input string) arrow.RecordBatch {
	cols := make([][]any, len(s))
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		for c, v := range strings.Split(line, ",") {
			v = strings.TrimSpace(v)
			var val any
			switch {
			case v == "null":
			case s[c].Type.Kind == sqltypes.Timestamp:
				n, _ := strconv.ParseInt(v, 10, 64)
				val = n * 1e6
			case s[c].Type.Kind == sqltypes.Long:
				n, _ := strconv.ParseInt(v, 10, 64)
				val = n
			default:
				val = v
			}
			cols[c] = append(cols[c], val)
		}
	}
	arrs := make([]arrow.Array, len(s))
	for c := range s {
		arrs[c] = expr.BuildArray(h.mem, s[c].Type, "UTC", cols[c])
	}
	defer releaseAll(arrs)
	return flow.NewDataBatch(h.mem, eventSchema(s), arrs, nil)
}

// bound reads "t+5" (column t, slack 5 s) over schema s; "" is NoBound.
func bound(s sqltypes.Schema, src string) StateBound {
	if src == "" {
		return NoBound
	}
	name, slack, _ := strings.Cut(src, "+")
	b := StateBound{TimeCol: column(s, name).Index}
	if slack != "" {
		n, _ := strconv.ParseInt(slack, 10, 64)
		b.Slack = n * 1e6
	}
	return b
}

func (h *streamHarness) build(d *datadriven.TestData) error {
	h.close()
	in := streamSchema(arg(d, "cols", "a:long"))
	h.ins = []sqltypes.Schema{in}
	h.out = in
	ctx := &expr.Context{Mem: h.mem, ANSI: true}
	switch kind := arg(d, "kind", ""); kind {
	case "dedup":
		spec := StreamDedupSpec{TimeCol: -1, LateCol: -1, WithinWatermark: arg(d, "within", "") != ""}
		for _, k := range strings.Split(arg(d, "keys", ""), ",") {
			if k != "" {
				spec.KeyCols = append(spec.KeyCols, column(in, k).Index)
			}
		}
		if t := arg(d, "time", ""); t != "" {
			spec.TimeCol = column(in, t).Index
			spec.LateCol = spec.TimeCol
		}
		if t := arg(d, "late", ""); t != "" {
			spec.LateCol = column(in, t).Index
		}
		spec.Delay = argInt(d, "within", 0) * 1e6
		spec.Budget = h.budget
		if n := argInt(d, "budget", 0); n > 0 {
			spec.Budget.MemoryBytes = n
		}
		h.factory = StreamDedup(spec)
	case "join":
		right := streamSchema(arg(d, "right", "b:long"))
		h.ins = append(h.ins, right)
		both := append(append(sqltypes.Schema{}, in...), right...)
		typ := map[string]plan.JoinType{"inner": plan.InnerJoin, "left": plan.LeftOuterJoin, "right": plan.RightOuterJoin,
			"full": plan.FullOuterJoin, "semi": plan.LeftSemiJoin}[arg(d, "type", "inner")]
		spec := StreamJoinSpec{Type: typ, LeftKeys: parseExprs(in, arg(d, "lkeys", "")), RightKeys: parseExprs(right, arg(d, "rkeys", "")),
			LeftSchema: eventSchema(in), RightSchema: eventSchema(right),
			Left: bound(in, arg(d, "lbound", "")), Right: bound(right, arg(d, "rbound", "")), LeftLate: -1, RightLate: -1}
		if t := arg(d, "llate", ""); t != "" {
			spec.LeftLate = column(in, t).Index
		}
		if t := arg(d, "rlate", ""); t != "" {
			spec.RightLate = column(right, t).Index
		}
		if r := arg(d, "residual", ""); r != "" {
			spec.Residual = parseExpr(both, r)
		}
		spec.Budget = h.budget
		if n := argInt(d, "budget", 0); n > 0 {
			spec.Budget.MemoryBytes = n
		}
		h.out = both
		if typ == plan.LeftSemiJoin {
			h.out = in
		}
		h.factory = StreamJoin(ctx, spec)
	default:
		return fmt.Errorf("unknown operator kind %q", kind)
	}
	h.env = flow.Env{Mem: h.mem, Partitions: 1, OutSchema: eventSchema(h.out)}
	op, err := h.factory(h.env)
	h.op = op
	return err
}

func (h *streamHarness) close() {
	if c, ok := h.op.(flow.Closer); ok {
		c.Close()
	}
	h.op = nil
}

func (h *streamHarness) run(d *datadriven.TestData) string {
	ctx := context.Background()
	h.lines = nil
	var err error
	switch d.Cmd {
	case "new":
		err = h.build(d)
	case "push":
		in := int(argInt(d, "in", 0))
		rec := h.rows(h.ins[in], d.Input)
		err = h.op.Process(ctx, in, rec, h)
		rec.Release()
	case "watermark":
		err = h.op.(flow.WatermarkHandler).Watermark(ctx, argInt(d, "ts", 0)*1e6, h)
	case "barrier":
		if bh, ok := h.op.(flow.BarrierHandler); ok {
			err = bh.Barrier(ctx, argInt(d, "epoch", 1), h)
		}
	case "metrics":
		m := h.op.(flow.StateReporter).StateMetrics()
		dropped := h.op.(interface{ RowsDroppedByWatermark() int64 }).RowsDroppedByWatermark()
		h.lines = append(h.lines, fmt.Sprintf("total=%d updated=%d removed=%d dropped=%d memory>0=%t",
			m.NumRowsTotal, m.NumRowsUpdated, m.NumRowsRemoved, dropped, m.MemoryUsedBytes > 0))
	case "restart":
		// Snapshot the state, close the instance and restore the snapshot into a new one.
		var data []byte
		if data, err = h.op.(flow.Snapshotter).SnapshotState(argInt(d, "epoch", 1)); err == nil {
			h.close()
			if h.op, err = h.factory(h.env); err == nil {
				err = h.op.(flow.Snapshotter).RestoreState(data)
			}
		}
	default:
		return "unknown command " + d.Cmd
	}
	if err != nil {
		h.lines = append(h.lines, "error: "+err.Error())
	}
	if len(h.lines) == 0 {
		return "ok\n"
	}
	return strings.Join(h.lines, "\n") + "\n"
}

func TestStreamingOperators(t *testing.T) {
	datadriven.Walk(t, "streamdata", func(t *testing.T, path string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		h := &streamHarness{mem: mem}
		datadriven.RunTest(t, path, func(_ *testing.T, d *datadriven.TestData) string { return h.run(d) })
		h.close()
		mem.AssertSize(t, 0)
	})
}
