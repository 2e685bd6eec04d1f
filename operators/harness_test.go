package operators

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// harness drives one operator instance directly (no runtime): the datadriven commands push
// batches, end inputs, deliver barriers and end of data, and print what the operator emitted.
type harness struct {
	t        *testing.T
	mem      *memory.CheckedAllocator
	op       flow.Operator
	env      flow.Env
	ins      []sqltypes.Schema
	outTypes []sqltypes.DataType
	lines    []string
}

func (h *harness) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	if !arrow.TypeEqual(arrow.StructOf(rec.Schema().Fields()...), arrow.StructOf(h.env.OutSchema.Fields()...)) {
		h.lines = append(h.lines, fmt.Sprintf("bad schema %s", rec.Schema()))
	}
	ret := flow.Retracted(rec)
	for i := 0; i < int(rec.NumRows()); i++ {
		sign := "+"
		if ret.Value(i) {
			sign = "-"
		}
		vals := make([]string, len(h.outTypes))
		for c, t := range h.outTypes {
			vals[c] = formatValue(expr.ValueAt(rec.Column(c+flow.UserOffset), i, t))
		}
		h.lines = append(h.lines, sign+" "+strings.Join(vals, ", "))
	}
	return nil
}

func formatValue(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}

func (h *harness) close() {
	if c, ok := h.op.(flow.Closer); ok && h.op != nil {
		c.Close()
	}
	h.op = nil
}

// parseSchema reads "a:long,b:string".
func parseSchema(s string) sqltypes.Schema {
	var out sqltypes.Schema
	for _, f := range strings.Split(s, ",") {
		name, typ, _ := strings.Cut(f, ":")
		t := map[string]sqltypes.DataType{"long": sqltypes.LongType, "int": sqltypes.IntegerType,
			"string": sqltypes.StringType, "double": sqltypes.DoubleType, "boolean": sqltypes.BooleanType}[typ]
		out = append(out, sqltypes.Field{Name: name, Type: t, Nullable: true})
	}
	return out
}

func eventSchema(s sqltypes.Schema) *arrow.Schema {
	return flow.EventSchema(sqltypes.ToArrowSchema(s, "UTC"))
}

// column resolves a column name of s.
func column(s sqltypes.Schema, name string) *expr.Column {
	for i, f := range s {
		if f.Name == name {
			return &expr.Column{Index: i, Name: name, T: f.Type, Null: true}
		}
	}
	panic("no column " + name)
}

// parseExpr reads a column name, an integer, or "x OP y" of those (OP a comparison or +).
func parseExpr(s sqltypes.Schema, src string) expr.Expr {
	for _, op := range []string{">=", "<=", "!=", ">", "<", "=", "+"} {
		if l, r, ok := strings.Cut(src, op); ok {
			e, err := expr.Bind(op, []expr.Expr{parseExpr(s, l), parseExpr(s, r)}, expr.Options{ANSI: true})
			if err != nil {
				panic(err)
			}
			return e
		}
	}
	if n, err := strconv.ParseInt(src, 10, 64); err == nil {
		return expr.NewLiteral(n, sqltypes.LongType)
	}
	return column(s, src)
}

func parseExprs(s sqltypes.Schema, src string) []expr.Expr {
	var out []expr.Expr
	for _, e := range strings.Split(src, ",") {
		if e != "" {
			out = append(out, parseExpr(s, e))
		}
	}
	return out
}

// parseAggs reads "sum(v),count(v)".
func parseAggs(s sqltypes.Schema, src string) []expr.AggFunc {
	var out []expr.AggFunc
	for _, a := range strings.Split(src, ";") {
		name, arg, _ := strings.Cut(strings.TrimSuffix(a, ")"), "(")
		f, err := expr.BindAggregate(name, parseExprs(s, arg), false, expr.Options{ANSI: true})
		if err != nil {
			panic(err)
		}
		out = append(out, f)
	}
	return out
}

// rows parses "+ 1, a" / "- 1, a" lines into an event batch of schema s.
func (h *harness) rows(s sqltypes.Schema, input string) arrow.RecordBatch {
	cols := make([][]any, len(s))
	var ret []bool
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		if line == "" {
			continue
		}
		sign, rest, _ := strings.Cut(line, " ")
		ret = append(ret, sign == "-")
		for c, v := range strings.Split(rest, ",") {
			cols[c] = append(cols[c], parseValue(strings.TrimSpace(v), s[c].Type))
		}
	}
	arrs := make([]arrow.Array, len(s))
	for c := range s {
		arrs[c] = expr.BuildArray(h.mem, s[c].Type, "UTC", cols[c])
	}
	defer releaseAll(arrs)
	r := boolArray(h.mem, ret)
	defer r.Release()
	return flow.NewDataBatch(h.mem, eventSchema(s), arrs, r)
}

func parseValue(v string, t sqltypes.DataType) any {
	if v == "null" {
		return nil
	}
	switch t.Kind {
	case sqltypes.Long, sqltypes.Integer:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	case sqltypes.Double:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	case sqltypes.Boolean:
		return v == "true"
	}
	return v
}

func arg(d *datadriven.TestData, key, def string) string {
	for _, a := range d.CmdArgs {
		if a.Key == key {
			return strings.Join(a.Vals, ",")
		}
	}
	return def
}

func argInt(d *datadriven.TestData, key string, def int64) int64 {
	n, err := strconv.ParseInt(arg(d, key, strconv.FormatInt(def, 10)), 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

// build makes the operator a "new" command describes.
func (h *harness) build(d *datadriven.TestData) error {
	h.close()
	in := parseSchema(arg(d, "cols", "a:long"))
	h.ins = []sqltypes.Schema{in}
	out := in
	ctx := &expr.Context{Mem: h.mem, ANSI: true}
	var f Factory
	switch kind := arg(d, "kind", ""); kind {
	case "project":
		es := parseExprs(in, arg(d, "exprs", ""))
		out = nil
		for _, e := range es {
			out = append(out, sqltypes.Field{Name: e.String(), Type: e.Type(), Nullable: true})
		}
		f = Project(ctx, es)
	case "filter":
		f = Filter(ctx, parseExpr(in, arg(d, "cond", "")))
	case "limit":
		f = Limit(argInt(d, "n", -1), argInt(d, "offset", 0))
	case "tail":
		f = Tail(argInt(d, "n", 0))
	case "concat":
		f = Concat()
	case "sample":
		f = Sample(0, 0.5, arg(d, "replace", "false") == "true", argInt(d, "seed", 7))
	case "sort", "topn":
		var keys []SortKey
		for _, k := range strings.Split(arg(d, "keys", ""), ",") {
			name, mods, _ := strings.Cut(k, ":")
			keys = append(keys, SortKey{Expr: column(in, name), Descending: strings.Contains(mods, "desc"),
				NullsFirst: !strings.Contains(mods, "desc") != strings.Contains(mods, "nullsflip")})
		}
		f = Sort(ctx, keys)
		if kind == "topn" {
			f = TopN(ctx, keys, argInt(d, "n", 0), argInt(d, "offset", 0))
		}
	case "aggregate":
		spec := AggregateSpec{Aggs: parseAggs(in, arg(d, "aggs", "count(1)")), TZ: "UTC",
			Streaming: arg(d, "streaming", "false") == "true"}
		out = nil
		for _, k := range strings.Split(arg(d, "keys", ""), ",") {
			if k != "" {
				c := column(in, k)
				spec.KeyCols = append(spec.KeyCols, c.Index)
				spec.KeyTypes = append(spec.KeyTypes, c.T)
				out = append(out, sqltypes.Field{Name: k, Type: c.T, Nullable: true})
			}
		}
		for _, a := range spec.Aggs {
			out = append(out, sqltypes.Field{Name: a.String(), Type: a.Type(), Nullable: true})
		}
		f = HashAggregate(ctx, spec)
	case "join":
		right := parseSchema(arg(d, "right", "b:long"))
		h.ins = append(h.ins, right)
		both := append(append(sqltypes.Schema{}, in...), right...)
		typ := map[string]plan.JoinType{"inner": plan.InnerJoin, "left": plan.LeftOuterJoin, "right": plan.RightOuterJoin,
			"full": plan.FullOuterJoin, "semi": plan.LeftSemiJoin, "anti": plan.LeftAntiJoin, "cross": plan.CrossJoin}[arg(d, "type", "inner")]
		spec := JoinSpec{Type: typ, LeftKeys: parseExprs(in, arg(d, "lkeys", "")), RightKeys: parseExprs(right, arg(d, "rkeys", "")),
			LeftSchema: eventSchema(in), RightSchema: eventSchema(right)}
		if r := arg(d, "residual", ""); r != "" {
			spec.Residual = parseExpr(both, r)
		}
		if typ != plan.LeftSemiJoin && typ != plan.LeftAntiJoin {
			out = both
		}
		f = HashJoin(ctx, spec)
	case "distinct":
		var keys []int
		for _, k := range strings.Split(arg(d, "keys", ""), ",") {
			if k != "" {
				keys = append(keys, column(in, k).Index)
			}
		}
		f = Distinct(keys)
	case "intersect", "except":
		h.ins = append(h.ins, in)
		f = SetOp(map[string]plan.SetOpType{"intersect": plan.Intersect, "except": plan.Except}[kind], arg(d, "all", "false") == "true")
	default:
		var err error
		if f, out, err = h.buildPython(d, kind, in); err != nil {
			return err
		}
	}
	h.outTypes = nil
	for _, fl := range out {
		h.outTypes = append(h.outTypes, fl.Type)
	}
	h.env = flow.Env{Mem: h.mem, Partition: int(argInt(d, "partition", 0)), Partitions: 1, OutSchema: eventSchema(out)}
	op, err := f(h.env)
	h.op = op
	return err
}

func (h *harness) run(d *datadriven.TestData) string {
	ctx := context.Background()
	h.lines = nil
	var err error
	switch d.Cmd {
	case "new":
		err = h.build(d)
	case "push":
		in := int(argInt(d, "in", 0))
		rec := h.rows(h.ins[in], d.Input)
		if sa, ok := h.op.(flow.SenderAware); ok {
			err = sa.ProcessFrom(ctx, in, int(argInt(d, "sender", 0)), rec, h)
		} else {
			err = h.op.Process(ctx, in, rec, h)
		}
		rec.Release()
	case "sender-end":
		err = h.op.(flow.SenderAware).SenderEnded(ctx, int(argInt(d, "in", 0)), int(argInt(d, "sender", 0)), h)
	case "input-end":
		if ie, ok := h.op.(flow.InputEnder); ok {
			err = ie.InputEnded(ctx, int(argInt(d, "in", 0)), h)
		}
	case "barrier":
		if bh, ok := h.op.(flow.BarrierHandler); ok {
			err = bh.Barrier(ctx, argInt(d, "epoch", 1), h)
		}
	case "end":
		if eh, ok := h.op.(flow.EndOfDataHandler); ok {
			err = eh.EndOfData(ctx, h)
		}
	default:
		return "unknown command " + d.Cmd
	}
	if err != nil {
		h.lines = append(h.lines, "error: "+err.Error())
	}
	if f, ok := h.op.(flow.Finisher); ok && f.Done() {
		h.lines = append(h.lines, "done")
	}
	if len(h.lines) == 0 {
		return "ok\n"
	}
	return strings.Join(h.lines, "\n") + "\n"
}

func TestOperators(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		h := &harness{t: t, mem: mem}
		datadriven.RunTest(t, path, func(_ *testing.T, d *datadriven.TestData) string { return h.run(d) })
		h.close()
		mem.AssertSize(t, 0)
	})
}
