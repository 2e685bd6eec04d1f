package memory

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fakeRegistry records the tables the memory sink registers.
type fakeRegistry struct {
	tables map[string]*sinks.MemoryTable
	fail   error
}

func (r *fakeRegistry) RegisterTable(name string, t *sinks.MemoryTable) error {
	if r.fail != nil {
		return r.fail
	}
	if old, ok := r.tables[name]; ok {
		old.Release()
	}
	r.tables[name] = t
	return nil
}

func (r *fakeRegistry) release() {
	for _, t := range r.tables {
		t.Release()
	}
	r.tables = map[string]*sinks.MemoryTable{}
}

// sinkHarness drives a sink's operators directly, as the runtime would: data batches to
// Process (released after), barriers to every partition, then EndOfData and Close.
type sinkHarness struct {
	t      *testing.T
	mem    *memory.CheckedAllocator
	stdout bytes.Buffer
	reg    *fakeRegistry
	sink   sinks.Sink
	schema sqltypes.Schema
	event  *arrow.Schema
	tz     string
	ops    []flow.Operator
}

func TestSinks(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := &sinkHarness{t: t, mem: memory.NewCheckedAllocator(memory.NewGoAllocator()),
			reg: &fakeRegistry{tables: map[string]*sinks.MemoryTable{}}}
		defer func() {
			h.closeOps()
			h.reg.release()
			h.mem.AssertSize(t, 0)
		}()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "sink":
				return h.newSink(d)
			case "push":
				return h.push(d)
			case "barrier":
				return h.barrier(d)
			case "output-rows":
				return fmt.Sprintf("%d\n", h.sink.OutputRows())
			case "table":
				return h.table(d)
			case "end":
				return h.end()
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}

// newSink: sink format=F mode=M [name=Q] [partitions=N] [register-error] [option=value ...];
// input lines "name type" give the schema.
func (h *sinkHarness) newSink(d *datadriven.TestData) string {
	h.closeOps()
	h.stdout.Reset()
	env := sinks.Env{Schema: parseSchema(h.t, d.Input), TimeZone: "UTC", Stdout: &h.stdout, Tables: h.reg}
	// Arguments: format=F mode=M [name=Q] [tz=Z] [partitions=N] [register-error] [option=value ...].
	h.reg.fail = nil
	format, partitions := "", 1
	options := map[string]string{}
	for _, a := range d.CmdArgs {
		val := ""
		if len(a.Vals) > 0 {
			val = a.Vals[0]
		}
		switch a.Key {
		case "format":
			format = val
		case "mode":
			m, err := flow.ParseOutputMode(val)
			if err != nil {
				return sinktest.ErrText(err)
			}
			env.Mode = m
		case "name":
			env.QueryName = val
		case "tz":
			env.TimeZone = val
		case "partitions":
			partitions, _ = strconv.Atoi(val)
		case "register-error":
			h.reg.fail = sparkerr.Analysis("TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", "42P07", "view exists")
		default:
			options[a.Key] = val
		}
	}
	s, err := connectors.NewSink(format, env, options)
	if err != nil {
		h.sink = nil
		return sinktest.ErrText(err)
	}
	h.sink, h.schema = s, env.Schema
	h.tz = env.TimeZone
	h.event = flow.EventSchema(sqltypes.ToArrowSchema(env.Schema, h.tz))
	n := s.Parallelism(partitions)
	for p := 0; p < n; p++ {
		op, err := s.NewOperator(flow.Env{Mem: h.mem, Partition: p, Partitions: n, OutSchema: h.event})
		if err != nil {
			return sinktest.ErrText(err)
		}
		h.ops = append(h.ops, op)
	}
	desc := s.Description()
	if i := strings.LastIndex(desc, "$@"); i >= 0 {
		desc = desc[:i+2] + "<id>"
	}
	names := make([]string, 0, len(h.reg.tables))
	for n := range h.reg.tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprintf("description: %s\nparallelism: %d\nregistered: %v\n", desc, n, names)
}

// parseSchema reads "name type" lines (types: string, bigint, int, double, boolean,
// timestamp).
func parseSchema(t *testing.T, input string) sqltypes.Schema {
	types := map[string]sqltypes.DataType{"string": sqltypes.StringType, "bigint": sqltypes.LongType,
		"int": sqltypes.IntegerType, "double": sqltypes.DoubleType, "boolean": sqltypes.BooleanType,
		"timestamp": sqltypes.TimestampType}
	var out sqltypes.Schema
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		name, typ, ok := strings.Cut(strings.TrimSpace(line), " ")
		dt, known := types[typ]
		if !ok || !known {
			t.Fatalf("bad schema line %q", line)
		}
		out = append(out, sqltypes.Field{Name: name, Type: dt, Nullable: true})
	}
	return out
}

// push [partition=P]: lines "+ v1 | v2" (insert) or "- v1 | v2" (retraction); NULL is null, a
// Go-quoted value is unquoted, a timestamp is microseconds since the epoch.
func (h *sinkHarness) push(d *datadriven.TestData) string {
	p := 0
	if d.HasArg("partition") {
		d.ScanArgs(h.t, "partition", &p)
	}
	cols := make([][]any, len(h.schema))
	var retracted []bool
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		sign, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		retracted = append(retracted, sign == "-")
		vals := strings.Split(rest, "|")
		if len(vals) != len(h.schema) {
			d.Fatalf(h.t, "row %q has %d values, schema %d", line, len(vals), len(h.schema))
		}
		for c, v := range vals {
			cols[c] = append(cols[c], parseValue(h.t, strings.TrimSpace(v), h.schema[c].Type))
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for c, vals := range cols {
		arrs[c] = expr.BuildArray(h.mem, h.schema[c].Type, h.tz, vals)
	}
	rb := array.NewBooleanBuilder(h.mem)
	rb.AppendValues(retracted, nil)
	ret := rb.NewArray()
	rb.Release()
	rec := flow.NewDataBatch(h.mem, h.event, arrs, ret)
	ret.Release()
	for _, a := range arrs {
		a.Release()
	}
	defer rec.Release()
	if err := h.ops[p].Process(context.Background(), 0, rec, nil); err != nil {
		return sinktest.ErrText(err)
	}
	return "ok\n"
}

func parseValue(t *testing.T, s string, typ sqltypes.DataType) any {
	if s == "NULL" {
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("bad quoted value %s: %v", s, err)
		}
		s = u
	}
	var v any
	var err error
	switch typ.Kind {
	case sqltypes.String:
		v = s
	case sqltypes.Long, sqltypes.Timestamp:
		v, err = strconv.ParseInt(s, 10, 64)
	case sqltypes.Integer:
		var n int64
		n, err = strconv.ParseInt(s, 10, 32)
		v = int32(n)
	case sqltypes.Double:
		v, err = strconv.ParseFloat(s, 64)
	case sqltypes.Boolean:
		v, err = strconv.ParseBool(s)
	}
	if err != nil {
		t.Fatalf("bad %s value %q: %v", typ, s, err)
	}
	return v
}

// barrier epoch=N: every partition commits epoch N; prints what the console sink wrote.
func (h *sinkHarness) barrier(d *datadriven.TestData) string {
	var epoch int64
	d.ScanArgs(h.t, "epoch", &epoch)
	h.stdout.Reset()
	for _, op := range h.ops {
		if err := op.(flow.BarrierHandler).Barrier(context.Background(), epoch, nil); err != nil {
			return sinktest.ErrText(err)
		}
	}
	if h.stdout.Len() == 0 {
		return "ok\n"
	}
	// datadriven trims a trailing blank line; mark line ends so the exact text shows.
	return strings.ReplaceAll(h.stdout.String(), "\n", "$\n")
}

// table name=Q: the registered memory table's rows, batch by batch.
func (h *sinkHarness) table(d *datadriven.TestData) string {
	var name string
	d.ScanArgs(h.t, "name", &name)
	tbl, ok := h.reg.tables[name]
	if !ok {
		return "no table\n"
	}
	recs := tbl.Snapshot()
	defer sinks.ReleaseRecords(recs)
	var b strings.Builder
	fmt.Fprintf(&b, "schema: %s\n", strings.Join(tbl.Schema().Names(), ", "))
	for _, rec := range recs {
		for r := 0; r < int(rec.NumRows()); r++ {
			vals := make([]string, rec.NumCols())
			for c := range vals {
				v := expr.ValueAt(rec.Column(c), r, tbl.Schema()[c].Type)
				if v == nil {
					vals[c] = "NULL"
				} else {
					vals[c] = fmt.Sprint(v)
				}
			}
			b.WriteString(strings.Join(vals, " | ") + "\n")
		}
	}
	if len(recs) == 0 {
		b.WriteString("(empty)\n")
	}
	return b.String()
}

// end delivers EndOfData to every partition and closes them.
func (h *sinkHarness) end() string {
	for _, op := range h.ops {
		if e, ok := op.(flow.EndOfDataHandler); ok {
			if err := e.EndOfData(context.Background(), nil); err != nil {
				return sinktest.ErrText(err)
			}
		}
	}
	h.closeOps()
	return "ok\n"
}

func (h *sinkHarness) closeOps() {
	for _, op := range h.ops {
		if c, ok := op.(flow.Closer); ok {
			c.Close()
		}
	}
	h.ops = nil
}
