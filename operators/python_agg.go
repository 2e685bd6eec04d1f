package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// PythonAggregate runs grouped-aggregate Python functions (Spark's AggregateInPandasExec): the
// planner partitions the input on the keys (one partition without keys); the operator keeps
// its partition's rows until end of data, then sends one worker task the rows of each group
// (the functions' arguments, in batches of at most spec.MaxRecordsPerBatch) and emits one row
// per group: its keys, then each function's value, groups in the builtin aggregate's order
// (their first rows read sender by sender, aggregate_order.go). A partition without rows sends nothing and
// emits nothing, as Spark ignores empty partitions (so a global aggregation of no rows has no
// row). It runs on bounded inputs only (Spark refuses it on streams).
func PythonAggregate(ctx *expr.Context, spec PythonSpec, evalType int32, pyVer string, funcs []PythonFunc, keys []expr.Expr) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		udfs := make([]pyworker.UDF, len(funcs))
		var args []expr.Expr
		for i, f := range funcs {
			u := pyworker.UDF{Command: f.Command, ArgNames: f.ArgNames, ReturnType: f.ReturnType}
			for _, a := range f.Args {
				u.ArgOffsets = append(u.ArgOffsets, len(args))
				args = append(args, a)
			}
			udfs[i] = u
		}
		return &pythonAgg{env: env, ctx: instanceContext(ctx, env), spec: spec, funcs: funcs, keys: keys, args: args,
			task: spec.task(env, evalType, pyVer, udfs)}, nil
	}
}

type pythonAgg struct {
	env   flow.Env
	ctx   *expr.Context
	spec  PythonSpec
	task  pyworker.Task
	funcs []PythonFunc
	keys  []expr.Expr
	// args are every function's arguments, in order (the worker batch's columns).
	args []expr.Expr
	// rows are the partition's batches of args then keys per sender, kept until end of data
	// (then read in sender order: the groups come out as the builtin aggregate's, see
	// aggregate_order.go); sender sent the batch in Process.
	rows   [][]arrow.RecordBatch
	sender int
	stream PythonStream
	// groupKeys holds each group's key values in send order; done counts the groups (of
	// groups) whose results were emitted.
	groupKeys    []arrow.Array
	groups, done int64
}

func (p *pythonAgg) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if rec.NumRows() == 0 {
		return nil
	}
	b, err := argBatch(p.ctx, append(append([]expr.Expr(nil), p.args...), p.keys...), nil, rec)
	if err != nil {
		return err
	}
	for len(p.rows) <= p.sender {
		p.rows = append(p.rows, nil)
	}
	p.rows[p.sender] = append(p.rows[p.sender], b)
	return nil
}

// EndOfData implements flow.EndOfDataHandler: the groups go to the worker, their results out.
func (p *pythonAgg) EndOfData(ctx context.Context, out flow.Emitter) error {
	var rows []arrow.RecordBatch
	for _, rs := range p.rows {
		rows = append(rows, rs...)
	}
	if len(rows) == 0 {
		return nil
	}
	mem := p.env.Mem
	all, err := concatRecords(mem, rows)
	if err != nil {
		return err
	}
	defer all.Release()
	p.releaseRows()
	members, err := p.group(all)
	if err != nil {
		return err
	}
	p.groups = int64(len(members))
	firsts := make([]int64, len(members))
	for i, m := range members {
		firsts[i] = m[0]
	}
	if p.groupKeys, err = take(mem, all.Columns()[len(p.args):], firsts, nil); err != nil {
		return err
	}
	argCols := all.Columns()[:len(p.args)]
	args := array.NewRecordBatch(argSchema(argCols, nil), argCols, all.NumRows())
	defer args.Release()
	if p.stream, err = p.spec.Runner.Open(ctx, p.task); err != nil {
		return err
	}
	for _, m := range members {
		var batches []arrow.RecordBatch
		for _, c := range chunks(int64(len(m)), p.spec.MaxRecordsPerBatch) {
			t, err := takeRecord(mem, args, m[c[0]:c[1]])
			if err != nil {
				releaseRecords(batches)
				return err
			}
			batches = append(batches, t)
		}
		err := p.stream.Send(ctx, pyworker.Group{Batches: [][]arrow.RecordBatch{batches}})
		releaseRecords(batches)
		if err != nil {
			return err
		}
		for p.stream.Ready() {
			if err := p.recv(ctx, out); err != nil {
				return err
			}
		}
	}
	if err := closeAndDrain(ctx, p.stream, func() error { return p.recv(ctx, out) }); err != nil {
		return err
	}
	if p.done != p.groups {
		return resultCountMismatch()
	}
	s := p.stream
	p.stream = nil
	return s.Close()
}

// group returns the rows of each group of all (by its key columns, after the args), groups in
// order of first appearance (all is in sender order); one group of every row without keys.
func (p *pythonAgg) group(all arrow.RecordBatch) ([][]int64, error) {
	n := all.NumRows()
	if len(p.keys) == 0 {
		rows := make([]int64, n)
		for i := range rows {
			rows[i] = int64(i)
		}
		return [][]int64{rows}, nil
	}
	table := newRowTable(p.env.Mem)
	defer table.release()
	ids := make([]uint32, n)
	next := uint32(0)
	if _, err := table.lookup(all.Columns()[len(p.args):], ids, true, func() uint32 { next++; return next - 1 }); err != nil {
		return nil, err
	}
	members := make([][]int64, next)
	for row, id := range ids {
		members[id] = append(members[id], int64(row))
	}
	return members, nil
}

// recv receives one result batch (a row per group, a column per function) and emits the
// groups it answers.
func (p *pythonAgg) recv(ctx context.Context, out flow.Emitter) error {
	res, err := p.stream.Recv(ctx)
	if err != nil {
		return err
	}
	defer res.Release()
	if int(res.NumCols()) != len(p.funcs) {
		return sparkerr.Internal("Python worker returned %d columns for %d aggregate functions", res.NumCols(), len(p.funcs))
	}
	n := res.NumRows()
	if n == 0 {
		return nil
	}
	if p.done+n > p.groups {
		return resultCountMismatch()
	}
	cols := make([]arrow.Array, 0, len(p.groupKeys)+len(p.funcs))
	defer func() { releaseAll(cols) }()
	for _, k := range p.groupKeys {
		cols = append(cols, array.NewSlice(k, p.done, p.done+n))
	}
	for i, f := range p.funcs {
		c, err := conform(ctx, p.env.Mem, res.Column(i), f.ReturnType)
		if err != nil {
			return err
		}
		cols = append(cols, c)
	}
	p.done += n
	return emitColumns(ctx, p.env, out, cols, nil)
}

// Close implements flow.Closer.
func (p *pythonAgg) Close() {
	if p.stream != nil {
		p.stream.Close()
		p.stream = nil
	}
	p.releaseRows()
	releaseAll(p.groupKeys)
	p.groupKeys = nil
}

func (p *pythonAgg) releaseRows() {
	for _, rs := range p.rows {
		releaseRecords(rs)
	}
	p.rows = nil
}
