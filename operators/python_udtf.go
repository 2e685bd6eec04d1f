package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// PythonUDTF runs a Python table function (@udtf; Spark's BatchEvalPythonUDTFExec /
// ArrowEvalPythonUDTFExec) over each input row: the function's arguments (f.Args, named
// f.ArgNames) are evaluated here and sent in batches of at most spec.MaxRecordsPerBatch rows to
// one worker task per partition, whose handler's eval runs once per row and terminate once at
// the end. Each row the function returns for an input row is emitted as that input row's
// columns followed by the function's (f.ReturnType's fields), with the input row's retraction
// flag; terminate's rows follow the last input row's columns, as Spark's
// EvalPythonUDTFEvaluatorFactory joins them. A partition without rows starts no task. At each
// barrier and at end of data the task's input is closed and all its rows emitted (terminate runs
// per epoch); the next epoch starts a new task. Input rows still unanswered when the worker
// ends (its eval raised SkipRestOfInputTableException, so worker.py stopped calling it) are
// dropped.
//
// partitionChildIndexes are, for a TABLE argument with PARTITION BY, the fields of the argument's
// struct that hold the partitioning values (pyworker.UDF.PartitionChildIndexes): the input must
// then arrive clustered by them (the analyzer sorts it within partitions), and the worker runs
// terminate at each change. analyzeResult is the pickled AnalyzeResult of the handler's analyze
// method (nil when it declared its return type), which its __init__ receives.
func PythonUDTF(ctx *expr.Context, spec PythonSpec, evalType int32, pyVer, name string, f PythonFunc, partitionChildIndexes []int, analyzeResult []byte) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		rt, ok := f.ReturnType.(*arrow.StructType)
		if !ok {
			return nil, sparkerr.Internal("the Python UDTF %s returns %s, not a struct", name, f.ReturnType)
		}
		offs := make([]int, len(f.Args))
		for i := range offs {
			offs[i] = i
		}
		udf := pyworker.UDF{Name: name, Command: f.Command, ArgOffsets: offs, ArgNames: f.ArgNames, ReturnType: rt,
			PartitionChildIndexes: partitionChildIndexes, AnalyzeResult: analyzeResult}
		return &pythonUDTF{env: env, ctx: instanceContext(ctx, env), spec: spec, rt: rt, args: f.Args,
			task: spec.task(env, evalType, pyVer, []pyworker.UDF{udf})}, nil
	}
}

type pythonUDTF struct {
	env    flow.Env
	ctx    *expr.Context
	spec   PythonSpec
	rt     *arrow.StructType
	args   []expr.Expr
	task   pyworker.Task
	stream PythonStream
	// pending are the input rows sent whose eval call has not answered yet, oldest first; next
	// is the row of pending[0] the next result belongs to. last is the last answered input row
	// (one row), which terminate's rows follow.
	pending []arrow.RecordBatch
	next    int64
	last    arrow.RecordBatch
}

func (p *pythonUDTF) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if p.stream == nil {
		s, err := p.spec.Runner.Open(ctx, p.task)
		if err != nil {
			return err
		}
		p.stream = s
	}
	cols, err := evalAll(p.ctx, p.args, rec)
	if err != nil {
		return err
	}
	defer releaseAll(cols)
	return sendArgs(ctx, p.stream, rec, cols, p.spec.MaxRecordsPerBatch,
		func(in arrow.RecordBatch) { p.pending = append(p.pending, in) },
		func() error { return p.recv(ctx, out) })
}

// recv receives one call's rows and emits them after the input row they answer (terminate's
// after the last one).
func (p *pythonUDTF) recv(ctx context.Context, out flow.Emitter) error {
	res, err := p.stream.Recv(ctx)
	if err != nil {
		return err
	}
	defer res.Release()
	if int(res.NumCols()) != p.rt.NumFields() {
		return sparkerr.Internal("the Python UDTF returned %d columns, its return type has %d", res.NumCols(), p.rt.NumFields())
	}
	if len(p.pending) > 0 {
		in := p.pending[0]
		row := in.NewSlice(p.next, p.next+1)
		if p.last != nil {
			p.last.Release()
		}
		p.last = row
		p.next++
		if p.next == in.NumRows() {
			in.Release()
			p.pending = p.pending[1:]
			p.next = 0
		}
	} else if p.last == nil {
		return sparkerr.Internal("the Python UDTF answered a call it was not sent")
	}
	n := res.NumRows()
	if n == 0 {
		return nil
	}
	idx := make([]int64, n)
	left, err := take(p.env.Mem, p.last.Columns()[flow.UserOffset-1:], idx, nil)
	if err != nil {
		return err
	}
	defer releaseAll(left)
	cols := append([]arrow.Array(nil), left[1:]...)
	var conformed []arrow.Array
	defer func() { releaseAll(conformed) }()
	for i, f := range p.rt.Fields() {
		c, err := conform(ctx, p.env.Mem, res.Column(i), f.Type)
		if err != nil {
			return err
		}
		conformed = append(conformed, c)
	}
	all := append(cols, conformed...)
	if len(all) == 0 {
		// No input column and an empty return struct: the rows are the count alone (eval
		// yielding () rows), as many as the retraction flags.
		return emitColumns(ctx, p.env, out, nil, left[0])
	}
	return emitInChunks(ctx, p.env, out, all, left[0])
}

// finish closes the task's input (the worker runs terminate), emits every remaining row and
// ends the task.
func (p *pythonUDTF) finish(ctx context.Context, out flow.Emitter) error {
	if p.stream == nil {
		return nil
	}
	if err := closeAndDrain(ctx, p.stream, func() error { return p.recv(ctx, out) }); err != nil {
		return err
	}
	// Input rows left unanswered are those after an eval raised SkipRestOfInputTableException:
	// worker.py then stops calling eval and answers terminate (paired, like Spark pairs results
	// with input rows, to the row whose eval raised); the rest are dropped.
	s := p.stream
	p.stream = nil
	p.releaseRows()
	return s.Close()
}

func (p *pythonUDTF) releaseRows() {
	releaseRecords(p.pending)
	p.pending, p.next = nil, 0
	if p.last != nil {
		p.last.Release()
		p.last = nil
	}
}

// Barrier implements flow.BarrierHandler.
func (p *pythonUDTF) Barrier(ctx context.Context, _ int64, out flow.Emitter) error {
	return p.finish(ctx, out)
}

// EndOfData implements flow.EndOfDataHandler.
func (p *pythonUDTF) EndOfData(ctx context.Context, out flow.Emitter) error {
	return p.finish(ctx, out)
}

// Close implements flow.Closer.
func (p *pythonUDTF) Close() {
	if p.stream != nil {
		p.stream.Close()
		p.stream = nil
	}
	p.releaseRows()
}
