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

// PythonFunc is one Python function an operator runs: its pickled command, its arguments over
// the operator's input and its result's Arrow type.
type PythonFunc struct {
	Command  []byte
	Args     []expr.Expr
	ArgNames []string
	// ColumnNames name the argument columns the worker reads (the input's column names for the
	// map kinds: mapInPandas sees them as the DataFrame's columns); nil names them _0, _1, ….
	ColumnNames []string
	ReturnType  arrow.DataType
	// Chained are the pickled commands of the functions whose result is this one's argument,
	// innermost first (pyworker.UDF.Chained; Args are the innermost's).
	Chained [][]byte
}

// PythonEval evaluates scalar Python functions of one eval type (Spark's ArrowEvalPython /
// BatchEvalPython): each input row is emitted with the functions' results appended, in input
// order, its retraction flag kept. The arguments are evaluated here and sent in batches of at
// most spec.MaxRecordsPerBatch rows; results are matched to input rows by count, so a worker
// may answer in other batch sizes (iterator UDFs). The worker task starts with the first row;
// at each barrier and at end of data the operator closes its input and emits every result
// before passing on, so an epoch's rows leave before its barrier.
func PythonEval(ctx *expr.Context, spec PythonSpec, evalType int32, pyVer string, funcs []PythonFunc) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &pythonEval{env: env, ctx: instanceContext(ctx, env), spec: spec, evalType: evalType, pyVer: pyVer, funcs: funcs}, nil
	}
}

type pythonEval struct {
	env      flow.Env
	ctx      *expr.Context
	spec     PythonSpec
	evalType int32
	pyVer    string
	funcs    []PythonFunc
	stream   PythonStream
	// pending are the input rows sent whose results have not all come back, oldest first.
	pending []arrow.RecordBatch
}

func (p *pythonEval) open(ctx context.Context) error {
	if p.stream != nil {
		return nil
	}
	udfs := make([]pyworker.UDF, len(p.funcs))
	off := 0
	for i, f := range p.funcs {
		u := pyworker.UDF{Command: f.Command, ArgNames: f.ArgNames, Chained: f.Chained, ReturnType: f.ReturnType}
		for range f.Args {
			u.ArgOffsets = append(u.ArgOffsets, off)
			off++
		}
		udfs[i] = u
	}
	s, err := p.spec.Runner.Open(ctx, p.spec.task(p.env, p.evalType, p.pyVer, udfs))
	if err != nil {
		return err
	}
	p.stream = s
	return nil
}

func (p *pythonEval) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if err := p.open(ctx); err != nil {
		return err
	}
	var cols []arrow.Array
	for _, f := range p.funcs {
		cs, err := evalAll(p.ctx, f.Args, rec)
		if err != nil {
			releaseAll(cols)
			return err
		}
		cols = append(cols, cs...)
	}
	defer releaseAll(cols)
	return sendArgs(ctx, p.stream, rec, cols, p.spec.MaxRecordsPerBatch,
		func(in arrow.RecordBatch) { p.pending = append(p.pending, in) },
		func() error { return p.recv(ctx, out) })
}

// recv receives one result batch and emits the input rows it answers.
func (p *pythonEval) recv(ctx context.Context, out flow.Emitter) error {
	res, err := p.stream.Recv(ctx)
	if err != nil {
		return err
	}
	defer res.Release()
	if int(res.NumCols()) != len(p.funcs) {
		return sparkerr.Internal("Python worker returned %d columns for %d functions", res.NumCols(), len(p.funcs))
	}
	for done := int64(0); done < res.NumRows(); {
		if len(p.pending) == 0 {
			return resultCountMismatch()
		}
		in := p.pending[0]
		n := min(in.NumRows(), res.NumRows()-done)
		if err := p.emit(ctx, out, in.NewSlice(0, n), res, done); err != nil {
			return err
		}
		done += n
		if n == in.NumRows() {
			in.Release()
			p.pending = p.pending[1:]
		} else {
			p.pending[0] = in.NewSlice(n, in.NumRows())
			in.Release()
		}
	}
	return nil
}

// emit emits input rows in with results res[from : from+rows(in)].
func (p *pythonEval) emit(ctx context.Context, out flow.Emitter, in arrow.RecordBatch, res arrow.RecordBatch, from int64) error {
	defer in.Release()
	n := in.NumRows()
	cols := make([]arrow.Array, 0, p.env.OutSchema.NumFields()-flow.UserOffset)
	defer func() { releaseAll(cols) }()
	for i := flow.UserOffset; i < int(in.NumCols()); i++ {
		c := in.Column(i)
		c.Retain()
		cols = append(cols, c)
	}
	for i, f := range p.funcs {
		part := array.NewSlice(res.Column(i), from, from+n)
		c, err := conform(ctx, p.env.Mem, part, f.ReturnType)
		part.Release()
		if err != nil {
			return err
		}
		cols = append(cols, c)
	}
	return out.Emit(ctx, flow.NewDataBatch(p.env.Mem, flow.EnvSchema(p.env.OutSchema, in), cols, in.Column(1)))
}

// finish closes the task's input, emits every remaining result and ends the task.
func (p *pythonEval) finish(ctx context.Context, out flow.Emitter) error {
	if p.stream == nil {
		return nil
	}
	if err := closeAndDrain(ctx, p.stream, func() error { return p.recv(ctx, out) }); err != nil {
		return err
	}
	if len(p.pending) > 0 {
		return resultCountMismatch()
	}
	s := p.stream
	p.stream = nil
	return s.Close()
}

// Barrier implements flow.BarrierHandler.
func (p *pythonEval) Barrier(ctx context.Context, _ int64, out flow.Emitter) error {
	return p.finish(ctx, out)
}

// EndOfData implements flow.EndOfDataHandler.
func (p *pythonEval) EndOfData(ctx context.Context, out flow.Emitter) error {
	return p.finish(ctx, out)
}

// Close implements flow.Closer.
func (p *pythonEval) Close() {
	if p.stream != nil {
		p.stream.Close()
		p.stream = nil
	}
	releaseRecords(p.pending)
	p.pending = nil
}

// resultCountMismatch is Spark's error for a scalar function whose results do not match its
// input rows (SCHEMA_MISMATCH / RESULT_LENGTH_MISMATCH are raised by the worker itself; this is
// the server's check).
func resultCountMismatch() error {
	return sparkerr.Newf(sparkerr.SparkException, "", "",
		"Python worker returned a different number of rows than it was sent")
}
