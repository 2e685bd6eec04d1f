package operators

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fakeRunner stands in for the worker pool: each task's "function" is Go code chosen by the
// UDF's command, and what the operator sends is logged on the harness.
//
// Commands: "add1" (scalar: first argument + 1), "concat" (scalar: arguments joined by "-"),
// "evens" (map: rows whose first column is even), "range" (UDTF: per row one batch of 0..n-1,
// n the first argument; terminate one row -1), "count" (grouped: one row (key, rows); for a
// cogroup (key, left rows, right rows)). lag=n answers scalar batches only once n more have
// been sent (or at CloseSend), rows=n re-batches answers into batches of n rows, as an iterator
// UDF may.
type fakeRunner struct {
	h    *harness
	lag  int
	rows int
}

func (r *fakeRunner) Open(_ context.Context, t pyworker.Task) (PythonStream, error) {
	var offs []string
	for _, u := range t.UDFs {
		offs = append(offs, fmt.Sprint(u.ArgOffsets))
		for _, side := range u.Sides {
			offs = append(offs, fmt.Sprintf("{keys %v values %v}", side.Keys, side.Values))
		}
	}
	r.h.lines = append(r.h.lines, fmt.Sprintf("open eval=%d part=%d py=%s offsets=%s tz=%s", t.EvalType, t.PartitionIndex,
		t.PythonVersion, strings.Join(offs, ""), t.Conf["spark.sql.session.timeZone"]))
	return &fakeStream{r: r, task: t, mem: t.Alloc}, nil
}

type fakeStream struct {
	r       *fakeRunner
	task    pyworker.Task
	mem     memory.Allocator
	held    []arrow.RecordBatch // scalar inputs not answered yet
	results []arrow.RecordBatch
	closed  bool
	sent    bool
	// sums are grouped-aggregate results held until CloseSend (lag > 0), per UDF.
	sums [][]any
}

func (s *fakeStream) Send(_ context.Context, g pyworker.Group) error {
	var sizes []string
	for _, side := range g.Batches {
		for _, b := range side {
			sizes = append(sizes, fmt.Sprint(b.NumRows()))
		}
	}
	s.r.h.lines = append(s.r.h.lines, "send "+strings.Join(sizes, "|"))
	if !s.sent {
		// the worker's column names, once per task (the map and grouped kinds' DataFrames have them)
		var names []string
		for _, side := range g.Batches {
			if len(side) > 0 {
				var ns []string
				for _, f := range side[0].Schema().Fields() {
					ns = append(ns, f.Name)
				}
				names = append(names, strings.Join(ns, ","))
			}
		}
		s.r.h.lines = append(s.r.h.lines, "columns "+strings.Join(names, "|"))
		s.sent = true
	}
	cmd := string(s.task.UDFs[0].Command)
	switch cmd {
	case "add1", "concat":
		b := g.Batches[0][0]
		b.Retain()
		s.held = append(s.held, b)
		for len(s.held) > s.r.lag {
			s.answer(s.held[0])
			s.held[0].Release()
			s.held = s.held[1:]
		}
	case "evens":
		b := g.Batches[0][0]
		var idx []int64
		for i := 0; i < int(b.NumRows()); i++ {
			if v := expr.ValueAt(b.Column(0), i, sqltypes.LongType); v != nil && v.(int64)%2 == 0 {
				idx = append(idx, int64(i))
			}
		}
		t, err := takeRecord(s.mem, b, idx)
		if err != nil {
			return err
		}
		s.results = append(s.results, structBatch(s.mem, t.Columns()[:1], []string{"a"}))
		t.Release()
	case "count":
		nk := len(s.task.UDFs[0].Sides[0].Keys)
		var key any
		vals := []any{}
		for i, side := range g.Batches {
			n := int64(0)
			for _, b := range side {
				n += b.NumRows()
				if key == nil && b.NumRows() > 0 {
					key = expr.ValueAt(b.Column(int(b.NumCols())-nk), 0, sqltypes.StringType)
				}
			}
			_ = i
			vals = append(vals, n)
		}
		cols := []arrow.Array{expr.BuildArray(s.mem, sqltypes.StringType, "UTC", []any{key})}
		names := []string{"k"}
		for i, v := range vals {
			cols = append(cols, expr.BuildArray(s.mem, sqltypes.LongType, "UTC", []any{v}))
			names = append(names, fmt.Sprintf("n%d", i))
		}
		s.results = append(s.results, structBatch(s.mem, cols, names))
		releaseAll(cols)
	case "total":
		row := make([]any, len(s.task.UDFs))
		for i, u := range s.task.UDFs {
			sum := int64(0)
			for _, b := range g.Batches[0] {
				for r := 0; r < int(b.NumRows()); r++ {
					if v := expr.ValueAt(b.Column(u.ArgOffsets[0]), r, sqltypes.LongType); v != nil {
						sum += v.(int64)
					}
				}
			}
			row[i] = sum
		}
		s.sums = append(s.sums, row)
		if s.r.lag == 0 {
			s.flushSums()
		}
	case "range":
		b := g.Batches[0][0]
		for r := 0; r < int(b.NumRows()); r++ {
			var vals []any
			if v := expr.ValueAt(b.Column(0), r, sqltypes.LongType); v != nil {
				for i := int64(0); i < v.(int64); i++ {
					vals = append(vals, i)
				}
			}
			s.results = append(s.results, longBatch(s.mem, "i", vals))
		}
	default:
		return fmt.Errorf("fake worker: unknown command %q", cmd)
	}
	return nil
}

// flushSums answers the held grouped-aggregate results as one batch (a row per group).
func (s *fakeStream) flushSums() {
	if len(s.sums) == 0 {
		return
	}
	var cols []arrow.Array
	var fs []arrow.Field
	for i := range s.task.UDFs {
		vals := make([]any, len(s.sums))
		for j, row := range s.sums {
			vals[j] = row[i]
		}
		a := expr.BuildArray(s.mem, sqltypes.LongType, "UTC", vals)
		cols = append(cols, a)
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("_%d", i), Type: a.DataType(), Nullable: true})
	}
	s.results = append(s.results, array.NewRecordBatch(arrow.NewSchema(fs, nil), cols, int64(len(s.sums))))
	releaseAll(cols)
	s.sums = nil
}

// answer computes a scalar batch's results, one column per UDF, re-batched by r.rows.
func (s *fakeStream) answer(b arrow.RecordBatch) {
	n := int(b.NumRows())
	var cols []arrow.Array
	var fs []arrow.Field
	for i, u := range s.task.UDFs {
		vals := make([]any, n)
		for row := range n {
			switch string(u.Command) {
			case "add1":
				if v := expr.ValueAt(b.Column(u.ArgOffsets[0]), row, sqltypes.LongType); v != nil {
					vals[row] = v.(int64) + 1
				}
			case "concat":
				var parts []string
				for _, o := range u.ArgOffsets {
					parts = append(parts, fmt.Sprint(b.Column(o).ValueStr(row)))
				}
				vals[row] = strings.Join(parts, "-")
			}
		}
		t := sqltypes.LongType
		if string(u.Command) == "concat" {
			t = sqltypes.StringType
		}
		// The worker answers add1 as int32 to show the operator casts to the declared type.
		a := expr.BuildArray(s.mem, t, "UTC", vals)
		cols = append(cols, a)
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("_%d", i), Type: a.DataType(), Nullable: true})
	}
	res := array.NewRecordBatch(arrow.NewSchema(fs, nil), cols, int64(n))
	releaseAll(cols)
	for _, c := range chunks(int64(n), s.r.rows) {
		s.results = append(s.results, res.NewSlice(c[0], c[1]))
	}
	res.Release()
}

// structBatch is a map result batch as pyworker.Stream returns it: the result columns, out of
// the worker's struct.
func structBatch(mem memory.Allocator, cols []arrow.Array, names []string) arrow.RecordBatch {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fs[i] = arrow.Field{Name: names[i], Type: c.DataType(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fs, nil), cols, int64(cols[0].Len()))
}

// longBatch is a batch of one long column.
func longBatch(mem memory.Allocator, name string, vals []any) arrow.RecordBatch {
	a := expr.BuildArray(mem, sqltypes.LongType, "UTC", vals)
	defer a.Release()
	return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: name, Type: a.DataType(), Nullable: true}}, nil),
		[]arrow.Array{a}, int64(a.Len()))
}

func (s *fakeStream) CloseSend(context.Context) error {
	s.r.h.lines = append(s.r.h.lines, "close-send")
	if string(s.task.UDFs[0].Command) == "range" {
		s.results = append(s.results, longBatch(s.mem, "i", []any{int64(-1)})) // terminate's rows
	}
	for _, b := range s.held {
		s.answer(b)
		b.Release()
	}
	s.held = nil
	s.flushSums()
	s.closed = true
	return nil
}

func (s *fakeStream) Recv(context.Context) (arrow.RecordBatch, error) {
	if len(s.results) == 0 {
		if s.closed {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("fake worker: Recv would block")
	}
	r := s.results[0]
	s.results = s.results[1:]
	return r, nil
}

func (s *fakeStream) Ready() bool { return len(s.results) > 0 }

func (s *fakeStream) Close() error {
	releaseRecords(s.held)
	releaseRecords(s.results)
	s.held, s.results = nil, nil
	s.r.h.lines = append(s.r.h.lines, "close")
	return nil
}

// buildPython makes the Python operators of the harness: kind=python-eval funcs=add1(a);concat(a,b)
// eval=200, kind=python-map, kind=python-group keys=k, kind=python-cogroup keys=k right=k:string,w:long,
// kind=python-agg keys=k funcs=total(v);total(w) (no keys: a global aggregation).
func (h *harness) buildPython(d *datadriven.TestData, kind string, in sqltypes.Schema) (Factory, sqltypes.Schema, error) {
	ctx := &expr.Context{Mem: h.mem, ANSI: true}
	spec := PythonSpec{Runner: &fakeRunner{h: h, lag: int(argInt(d, "lag", 0)), rows: int(argInt(d, "rows", 0))},
		Conf: map[string]string{"spark.sql.session.timeZone": "UTC"}, MaxRecordsPerBatch: int(argInt(d, "max", 0))}
	eval := int32(argInt(d, "eval", 200))
	switch kind {
	case "python-eval":
		out := append(sqltypes.Schema{}, in...)
		var funcs []PythonFunc
		for _, call := range strings.Split(arg(d, "funcs", ""), ";") {
			name, args, _ := strings.Cut(strings.TrimSuffix(call, ")"), "(")
			f := PythonFunc{Command: []byte(name), Args: parseExprs(in, args)}
			t := sqltypes.LongType
			if name == "concat" {
				t = sqltypes.StringType
			}
			f.ReturnType = sqltypes.ToArrow(t, "UTC")
			funcs = append(funcs, f)
			out = append(out, sqltypes.Field{Name: call, Type: t, Nullable: true})
		}
		return PythonEval(ctx, spec, eval, "3.12", funcs), out, nil
	case "python-agg":
		var keys []expr.Expr
		out := sqltypes.Schema{}
		if ks := arg(d, "keys", ""); ks != "" {
			keys = parseExprs(in, ks)
			for _, k := range keys {
				out = append(out, sqltypes.Field{Name: k.String(), Type: k.Type(), Nullable: true})
			}
		}
		var funcs []PythonFunc
		for _, call := range strings.Split(arg(d, "funcs", ""), ";") {
			name, args, _ := strings.Cut(strings.TrimSuffix(call, ")"), "(")
			funcs = append(funcs, PythonFunc{Command: []byte(name), Args: parseExprs(in, args), ReturnType: arrow.PrimitiveTypes.Int64})
			out = append(out, sqltypes.Field{Name: call, Type: sqltypes.LongType, Nullable: true})
		}
		return PythonAggregate(ctx, spec, eval, "3.12", funcs, keys), out, nil
	case "python-udtf":
		out := append(sqltypes.Schema{}, in...)
		out = append(out, sqltypes.Field{Name: "i", Type: sqltypes.LongType, Nullable: true})
		f := PythonFunc{Command: []byte("range"), Args: parseExprs(in, arg(d, "args", "")),
			ReturnType: sqltypes.ToArrow(sqltypes.StructType(out[len(in)]), "UTC")}
		return PythonUDTF(ctx, spec, eval, "3.12", "range", f, nil, nil), out, nil
	case "python-map":
		out := sqltypes.Schema{{Name: "a", Type: sqltypes.LongType, Nullable: true}}
		f := PythonFunc{Command: []byte("evens"), Args: parseExprs(in, strings.Join(in.Names(), ",")),
			ColumnNames: in.Names(), ReturnType: sqltypes.ToArrow(out.AsStruct(), "UTC")}
		return PythonMap(ctx, spec, eval, "3.12", f), out, nil
	case "python-group", "python-cogroup":
		schemas := []sqltypes.Schema{in}
		if kind == "python-cogroup" {
			right := parseSchema(arg(d, "right", "k:string"))
			h.ins = append(h.ins, right)
			schemas = append(schemas, right)
		}
		out := sqltypes.Schema{{Name: "k", Type: sqltypes.StringType, Nullable: true}}
		var sides []PythonGroupSide
		for i, s := range schemas {
			side := PythonGroupSide{Args: parseExprs(s, strings.Join(s.Names(), ",")), Keys: parseExprs(s, arg(d, "keys", "k"))}
			for _, e := range append(append([]expr.Expr(nil), side.Args...), side.Keys...) {
				side.Types = append(side.Types, sqltypes.ToArrow(e.Type(), "UTC"))
				side.Names = append(side.Names, e.String())
			}
			sides = append(sides, side)
			out = append(out, sqltypes.Field{Name: fmt.Sprintf("n%d", i), Type: sqltypes.LongType, Nullable: true})
		}
		f := PythonFunc{Command: []byte("count"), ReturnType: sqltypes.ToArrow(out.AsStruct(), "UTC")}
		return PythonGroupMap(ctx, spec, eval, "3.12", f, sides), out, nil
	}
	return nil, nil, fmt.Errorf("unknown operator kind %q", kind)
}
