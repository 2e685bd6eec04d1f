package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// PythonGroupSide is one grouped input of a grouped-map function: the columns the function reads
// (Args, every input column) and the grouping keys, both over the input.
type PythonGroupSide struct {
	Args []expr.Expr
	Keys []expr.Expr
	// Types are the Arrow types of Args then Keys (for a side without rows).
	Types []arrow.DataType
	// Names name the worker batch's columns, Args then Keys (the input's column names: the
	// function's DataFrame or table has them); nil names them _0, _1, ….
	Names []string
}

// groupSideOffsets are a side's key and value columns in its worker batch (args, then keys):
// pyworker encodes them as worker.py's extract_key_value_indexes reads them (Spark's
// resolveArgOffsets).
func groupSideOffsets(s PythonGroupSide) pyworker.SideOffsets {
	nv, nk := len(s.Args), len(s.Keys)
	var o pyworker.SideOffsets
	for i := range nk {
		o.Keys = append(o.Keys, nv+i)
	}
	for i := range nv {
		o.Values = append(o.Values, i)
	}
	return o
}

// PythonGroupMap runs applyInPandas / applyInArrow (one side) and cogroup().applyInPandas /
// applyInArrow (two sides: input i is side i), Spark's FlatMapGroupsInPandas and
// FlatMapCoGroupsInPandas. The planner hash-partitions every side on its keys; the operator
// keeps its partition's rows until end of data, then sends the worker one group per key (for a
// cogroup both sides' rows of the key, an empty batch for a side without any), a side's rows in
// batches of at most spec.MaxRecordsPerBatch, and emits the rows the worker returns. It runs on
// bounded inputs only (Spark refuses these on streams).
func PythonGroupMap(ctx *expr.Context, spec PythonSpec, evalType int32, pyVer string, f PythonFunc, sides []PythonGroupSide) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		var offs []pyworker.SideOffsets
		for _, s := range sides {
			offs = append(offs, groupSideOffsets(s))
		}
		task := spec.task(env, evalType, pyVer, []pyworker.UDF{{Command: f.Command, Sides: offs, ReturnType: f.ReturnType}})
		return &pythonGroupMap{out: pythonOut{env: env, spec: spec, task: task}, ctx: instanceContext(ctx, env),
			sides: sides, rows: make([][]arrow.RecordBatch, len(sides))}, nil
	}
}

type pythonGroupMap struct {
	out   pythonOut
	ctx   *expr.Context
	sides []PythonGroupSide
	// rows are each side's worker batches (args, then keys), kept until end of data.
	rows [][]arrow.RecordBatch
}

func (g *pythonGroupMap) Process(_ context.Context, in int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if in >= len(g.sides) {
		return sparkerr.Internal("grouped Python map: input %d of %d", in, len(g.sides))
	}
	s := g.sides[in]
	b, err := argBatch(g.ctx, append(append([]expr.Expr(nil), s.Args...), s.Keys...), s.Names, rec)
	if err != nil {
		return err
	}
	g.rows[in] = append(g.rows[in], b)
	return nil
}

// EndOfData implements flow.EndOfDataHandler: the groups go to the worker.
func (g *pythonGroupMap) EndOfData(ctx context.Context, out flow.Emitter) error {
	mem := g.out.env.Mem
	all := make([]arrow.RecordBatch, len(g.sides))
	defer releaseRecords(all)
	for i := range g.sides {
		if len(g.rows[i]) == 0 {
			continue
		}
		b, err := concatRecords(mem, g.rows[i])
		if err != nil {
			return err
		}
		all[i] = b
		releaseRecords(g.rows[i])
		g.rows[i] = nil
	}
	// One id per key over both sides, in order of first appearance.
	table := newRowTable(mem)
	defer table.release()
	var members [][][]int64 // group id → side → rows
	for i, b := range all {
		if b == nil || b.NumRows() == 0 {
			continue
		}
		nk := len(g.sides[i].Keys)
		keys := b.Columns()[int(b.NumCols())-nk:]
		ids := make([]uint32, b.NumRows())
		next := uint32(table.len())
		if _, err := table.lookup(keys, ids, true, func() uint32 { next++; return next - 1 }); err != nil {
			return err
		}
		for row, id := range ids {
			for int(id) >= len(members) {
				members = append(members, make([][]int64, len(g.sides)))
			}
			members[id][i] = append(members[id][i], int64(row))
		}
	}
	for _, m := range members {
		grp := pyworker.Group{Batches: make([][]arrow.RecordBatch, len(g.sides))}
		var err error
		for i, b := range all {
			if err == nil {
				grp.Batches[i], err = g.sideBatches(i, b, m[i])
			}
		}
		if err == nil {
			err = g.out.send(ctx, grp, out)
		}
		for _, bs := range grp.Batches {
			releaseRecords(bs)
		}
		if err != nil {
			return err
		}
	}
	return g.out.finish(ctx, out)
}

// sideBatches are side i's rows of one group, in batches of at most MaxRecordsPerBatch (one
// empty batch when the side has none).
func (g *pythonGroupMap) sideBatches(i int, all arrow.RecordBatch, rows []int64) ([]arrow.RecordBatch, error) {
	mem := g.out.env.Mem
	if len(rows) == 0 {
		if all != nil {
			return []arrow.RecordBatch{all.NewSlice(0, 0)}, nil
		}
		return []arrow.RecordBatch{g.emptySide(i)}, nil
	}
	var out []arrow.RecordBatch
	for _, c := range chunks(int64(len(rows)), g.out.spec.MaxRecordsPerBatch) {
		t, err := takeRecord(mem, all, rows[c[0]:c[1]])
		if err != nil {
			releaseRecords(out)
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// emptySide is a zero-row worker batch of side i's columns.
func (g *pythonGroupMap) emptySide(i int) arrow.RecordBatch {
	ts := g.sides[i].Types
	cols := make([]arrow.Array, len(ts))
	for j, t := range ts {
		cols[j] = array.MakeArrayOfNull(g.out.env.Mem, t, 0)
	}
	defer releaseAll(cols)
	return array.NewRecordBatch(argSchema(cols, g.sides[i].Names), cols, 0)
}

// Close implements flow.Closer.
func (g *pythonGroupMap) Close() {
	g.out.close()
	for i := range g.rows {
		releaseRecords(g.rows[i])
		g.rows[i] = nil
	}
}

// concatRecords concatenates batches of one schema into one.
func concatRecords(mem memory.Allocator, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(recs[0].NumCols())
	cols := make([]arrow.Array, n)
	defer func() { releaseAll(cols) }()
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	for c := range n {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, sparkerr.Internal("concatenate: %v", err).Wrap(err)
		}
		cols[c] = a
	}
	return array.NewRecordBatch(recs[0].Schema(), cols, rows), nil
}
