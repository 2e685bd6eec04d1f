package operators

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// eventTimeHarness drives the event-time operators (watermark, window expansion, the aggregate
// following a watermark) one instance at a time. Timestamps (type "ts") and windows (type
// "window", struct<start, end>) are written and printed in seconds; markers the operator emits
// print as "watermark <seconds>".
type eventTimeHarness struct {
	mem     *memory.CheckedAllocator
	op      flow.Operator
	env     flow.Env
	in, out sqltypes.Schema
	stats   *EventTimeStats
	factory Factory
	dropped *atomic.Int64
	lines   []string
}

var windowType = sqltypes.StructType(
	sqltypes.Field{Name: "start", Type: sqltypes.TimestampType, Nullable: true},
	sqltypes.Field{Name: "end", Type: sqltypes.TimestampType, Nullable: true})

func (h *eventTimeHarness) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	if !arrow.TypeEqual(arrow.StructOf(rec.Schema().Fields()...), arrow.StructOf(h.env.OutSchema.Fields()...)) {
		h.lines = append(h.lines, fmt.Sprintf("bad schema %s", rec.Schema()))
	}
	if m, ok, err := flow.MarkerOf(rec); err != nil || ok {
		if err != nil {
			h.lines = append(h.lines, "bad marker: "+err.Error())
		} else {
			h.lines = append(h.lines, fmt.Sprintf("watermark %s", seconds(m.Timestamp)))
		}
		return nil
	}
	ret := flow.Retracted(rec)
	for i := 0; i < int(rec.NumRows()); i++ {
		vals := make([]string, len(h.out))
		for c, f := range h.out {
			vals[c] = formatEventValue(expr.ValueAt(rec.Column(c+flow.UserOffset), i, f.Type), f.Type)
		}
		sign := "+"
		if ret.Value(i) {
			sign = "-"
		}
		h.lines = append(h.lines, sign+" "+strings.Join(vals, ", "))
	}
	return nil
}

func seconds(us int64) string {
	if us%1e6 == 0 {
		return strconv.FormatInt(us/1e6, 10)
	}
	return strconv.FormatFloat(float64(us)/1e6, 'f', -1, 64)
}

func formatEventValue(v any, t sqltypes.DataType) string {
	switch {
	case v == nil:
		return "null"
	case t.Kind == sqltypes.Timestamp:
		return seconds(v.(int64))
	case t.Kind == sqltypes.Struct:
		w := v.([]any)
		return "[" + formatEventValue(w[0], t.Fields[0].Type) + "," + formatEventValue(w[1], t.Fields[1].Type) + ")"
	}
	return fmt.Sprint(v)
}

// eventSchemaOf reads "ts:ts,k:string,v:long,w:window".
func eventSchemaOf(s string) sqltypes.Schema {
	var out sqltypes.Schema
	for _, f := range strings.Split(s, ",") {
		name, typ, _ := strings.Cut(f, ":")
		t := map[string]sqltypes.DataType{"long": sqltypes.LongType, "string": sqltypes.StringType,
			"ts": sqltypes.TimestampType, "window": windowType}[typ]
		out = append(out, sqltypes.Field{Name: name, Type: t, Nullable: true})
	}
	return out
}

func parseEventValue(v string, t sqltypes.DataType) any {
	if v == "null" {
		return nil
	}
	switch t.Kind {
	case sqltypes.Long:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	case sqltypes.Timestamp:
		f, _ := strconv.ParseFloat(v, 64)
		return int64(f * 1e6)
	case sqltypes.Struct:
		s, e, _ := strings.Cut(strings.Trim(v, "[)"), "-")
		return []any{parseEventValue(s, t.Fields[0].Type), parseEventValue(e, t.Fields[1].Type)}
	}
	return v
}

func (h *eventTimeHarness) rows(input string) arrow.RecordBatch {
	cols := make([][]any, len(h.in))
	var ret []bool
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		if line == "" {
			continue
		}
		sign, rest, _ := strings.Cut(line, " ")
		ret = append(ret, sign == "-")
		for c, v := range strings.Split(rest, ",") {
			cols[c] = append(cols[c], parseEventValue(strings.TrimSpace(v), h.in[c].Type))
		}
	}
	arrs := make([]arrow.Array, len(h.in))
	for c := range h.in {
		arrs[c] = expr.BuildArray(h.mem, h.in[c].Type, "UTC", cols[c])
	}
	defer releaseAll(arrs)
	r := boolArray(h.mem, ret)
	defer r.Release()
	return flow.NewDataBatch(h.mem, eventSchema(h.in), arrs, r)
}

func (h *eventTimeHarness) close() {
	if c, ok := h.op.(flow.Closer); ok {
		c.Close()
	}
	h.op = nil
}

func (h *eventTimeHarness) build(d *datadriven.TestData) error {
	h.close()
	h.in = eventSchemaOf(arg(d, "cols", "ts:ts"))
	h.out = h.in
	ctx := &expr.Context{Mem: h.mem, ANSI: true}
	secs := func(key string) int64 { return argInt(d, key, 0) * 1e6 }
	var f Factory
	switch kind := arg(d, "kind", ""); kind {
	case "watermark":
		h.stats = NewEventTimeStats()
		f = EventTimeWatermark(WatermarkSpec{Column: column(h.in, arg(d, "col", "ts")).Index, Delay: secs("delay"), Stats: h.stats})
	case "expand":
		c := column(h.in, arg(d, "col", "ts"))
		c.T = sqltypes.TimestampType
		w := &expr.TimeWindow{TS: c, Size: secs("size"), Slide: secs("slide"), Start: secs("start"), T: windowType}
		h.out = append(append(sqltypes.Schema{}, h.in...), sqltypes.Field{Name: "window", Type: windowType, Nullable: true})
		f = ExpandWindows(ctx, w, "UTC")
	case "aggregate":
		spec := AggregateSpec{Aggs: parseAggs(h.in, arg(d, "aggs", "count(1)")), TZ: "UTC", Streaming: true}
		h.out = nil
		for _, k := range strings.Split(arg(d, "keys", ""), ",") {
			c := column(h.in, k)
			spec.KeyCols = append(spec.KeyCols, c.Index)
			spec.KeyTypes = append(spec.KeyTypes, h.in[c.Index].Type)
			h.out = append(h.out, h.in[c.Index])
		}
		for _, a := range spec.Aggs {
			h.out = append(h.out, sqltypes.Field{Name: a.String(), Type: a.Type(), Nullable: true})
		}
		spec.Complete = arg(d, "mode", "") == string(flow.OutputComplete)
		if et := arg(d, "eventtime", ""); et != "" {
			mode := flow.OutputMode(arg(d, "mode", "append"))
			for i, k := range strings.Split(arg(d, "keys", ""), ",") {
				if k == et {
					spec.EventTime = &EventTimeKey{Key: i, Evict: mode != flow.OutputComplete}
				}
			}
			spec.Append = mode == flow.OutputAppend
			h.dropped = new(atomic.Int64)
			spec.Dropped = h.dropped
		}
		f = HashAggregate(ctx, spec)
	case "session":
		spec := SessionSpec{Aggs: parseAggs(h.in, arg(d, "aggs", "count(1)")), TZ: "UTC", Gap: secs("gap"),
			Window: windowType, TimeCol: column(h.in, arg(d, "time", "ts")).Index, Streaming: arg(d, "streaming", "true") == "true"}
		h.out = nil
		for _, k := range strings.Split(arg(d, "keys", ""), ",") {
			if k != "" {
				c := column(h.in, k)
				spec.KeyCols = append(spec.KeyCols, c.Index)
				spec.KeyTypes = append(spec.KeyTypes, h.in[c.Index].Type)
				h.out = append(h.out, h.in[c.Index])
			}
		}
		spec.SessionPos = len(spec.KeyCols)
		h.out = append(h.out, sqltypes.Field{Name: "session_window", Type: windowType, Nullable: true})
		for _, a := range spec.Aggs {
			h.out = append(h.out, sqltypes.Field{Name: a.String(), Type: a.Type(), Nullable: true})
		}
		h.dropped = new(atomic.Int64)
		spec.Dropped = h.dropped
		f = SessionAggregate(ctx, spec)
	default:
		return fmt.Errorf("unknown operator kind %q", kind)
	}
	h.factory = f
	h.env = flow.Env{Mem: h.mem, Partition: int(argInt(d, "partition", 0)), Partitions: int(argInt(d, "partitions", 1)),
		OutSchema: eventSchema(h.out)}
	op, err := f(h.env)
	h.op = op
	return err
}

func (h *eventTimeHarness) run(d *datadriven.TestData) string {
	ctx := context.Background()
	h.lines = nil
	var err error
	switch d.Cmd {
	case "new":
		err = h.build(d)
	case "push":
		rec := h.rows(d.Input)
		err = h.op.Process(ctx, 0, rec, h)
		rec.Release()
	case "barrier":
		err = h.op.(flow.BarrierHandler).Barrier(ctx, argInt(d, "epoch", 1), h)
	case "watermark":
		err = h.op.(flow.WatermarkHandler).Watermark(ctx, argInt(d, "ts", 0)*1e6, h)
	case "end":
		if eh, ok := h.op.(flow.EndOfDataHandler); ok {
			err = eh.EndOfData(ctx, h)
		}
	case "publish":
		// Another partition of the node reaches barrier epoch with this maximum (it waits for
		// the others in the background).
		part, epoch, mx := int(argInt(d, "partition", 1)), argInt(d, "epoch", 1), argInt(d, "max", 0)*1e6
		go func() { _ = h.stats.rendezvous(ctx, epoch, part, h.env.Partitions, mx) }()
		for {
			h.stats.mu.Lock()
			n := h.stats.arrived[epoch]
			h.stats.mu.Unlock()
			if n > 0 {
				break
			}
			runtime.Gosched()
		}
	case "metrics":
		m := h.op.(flow.StateReporter).StateMetrics()
		h.lines = append(h.lines, fmt.Sprintf("total %d updated %d removed %d", m.NumRowsTotal, m.NumRowsUpdated, m.NumRowsRemoved))
	case "dropped":
		own := h.op.(interface{ RowsDroppedByWatermark() int64 }).RowsDroppedByWatermark()
		h.lines = append(h.lines, fmt.Sprintf("dropped %d (node %d)", own, h.dropped.Load()))
	case "stats":
		r := h.stats.Take()
		wm, ok := h.stats.Watermark()
		line := fmt.Sprintf("rows %d", r.Count)
		if r.Count > 0 {
			line += fmt.Sprintf(" min %s max %s avg %s", seconds(r.Min), seconds(r.Max), seconds(r.Avg()))
		}
		if ok {
			line += " watermark " + seconds(wm)
		}
		h.lines = append(h.lines, line)
	case "snapshot":
		// Snapshot the instance, then continue with a fresh one restored from it.
		s := h.op.(flow.Snapshotter)
		data, serr := s.SnapshotState(argInt(d, "epoch", 1))
		if serr != nil {
			err = serr
			break
		}
		h.close()
		op, berr := h.factory(h.env)
		if berr != nil {
			err = berr
			break
		}
		h.op = op
		err = op.(flow.Snapshotter).RestoreState(data)
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

func TestEventTimeOperators(t *testing.T) {
	datadriven.Walk(t, "eventtimedata", func(t *testing.T, path string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		h := &eventTimeHarness{mem: mem}
		datadriven.RunTest(t, path, func(_ *testing.T, d *datadriven.TestData) string { return h.run(d) })
		h.close()
		mem.AssertSize(t, 0)
	})
}
