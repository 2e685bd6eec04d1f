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

// pythonOut runs one worker task whose results are rows of the node's output (the map,
// grouped-map and cogrouped-map kinds): any number of result batches, at any time.
type pythonOut struct {
	env    flow.Env
	spec   PythonSpec
	task   pyworker.Task
	stream PythonStream
}

// open starts the worker task unless it runs.
func (p *pythonOut) open(ctx context.Context) error {
	if p.stream != nil {
		return nil
	}
	s, err := p.spec.Runner.Open(ctx, p.task)
	if err != nil {
		return err
	}
	p.stream = s
	return nil
}

func (p *pythonOut) send(ctx context.Context, g pyworker.Group, out flow.Emitter) error {
	if err := p.open(ctx); err != nil {
		return err
	}
	if err := p.stream.Send(ctx, g); err != nil {
		return err
	}
	for p.stream.Ready() {
		if err := p.recv(ctx, out); err != nil {
			return err
		}
	}
	return nil
}

// recv receives one result batch and emits its rows.
func (p *pythonOut) recv(ctx context.Context, out flow.Emitter) error {
	res, err := p.stream.Recv(ctx)
	if err != nil {
		return err
	}
	defer res.Release()
	cols := resultColumns(res)
	defer releaseAll(cols)
	want := p.env.OutSchema.NumFields() - flow.UserOffset
	if len(cols) != want {
		return sparkerr.Newf(sparkerr.SparkException, "RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF", "",
			"Column names of the returned pandas.DataFrame do not match specified schema. Expected %d columns, got %d.", want, len(cols))
	}
	conformed := make([]arrow.Array, len(cols))
	defer func() { releaseAll(conformed) }()
	for i, c := range cols {
		f := p.env.OutSchema.Field(i + flow.UserOffset)
		if conformed[i], err = conform(ctx, p.env.Mem, c, f.Type); err != nil {
			return err
		}
		if err := checkNotNull(conformed[i], f); err != nil {
			return err
		}
	}
	return emitColumns(ctx, p.env, out, conformed, nil)
}

// finish closes the task's input and emits every remaining result.
func (p *pythonOut) finish(ctx context.Context, out flow.Emitter) error {
	if p.stream == nil {
		return nil
	}
	if err := closeAndDrain(ctx, p.stream, func() error { return p.recv(ctx, out) }); err != nil {
		return err
	}
	s := p.stream
	p.stream = nil
	return s.Close()
}

func (p *pythonOut) close() {
	if p.stream != nil {
		p.stream.Close()
		p.stream = nil
	}
}

// argBatch evaluates args over rec's rows into a worker batch with columns named names (_0, _1,
// … when nil).
func argBatch(ctx *expr.Context, args []expr.Expr, names []string, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols, err := evalAll(ctx, args, rec)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	return array.NewRecordBatch(argSchema(cols, names), cols, rec.NumRows()), nil
}

// PythonMap runs mapInPandas / mapInArrow (Spark's MapInPandas / MapInArrow): each partition's
// rows (args: every input column) go to one worker task in batches of at most
// spec.MaxRecordsPerBatch rows, and whatever rows it returns are the output. At each barrier and
// at end of data the task's input is closed and its results drained, so an epoch's output
// leaves before its barrier; the next epoch starts a new task.
func PythonMap(ctx *expr.Context, spec PythonSpec, evalType int32, pyVer string, f PythonFunc) Factory {
	return PythonBarrierMap(ctx, spec, evalType, pyVer, f, nil, nil)
}

// PythonBarrierMap is PythonMap in barrier mode when barrier is set (mapInPandas(...,
// barrier=True), bounded inputs only): like a barrier stage of Spark, every partition runs one
// task, started once the partition's whole input arrived (it is kept until end of data, so no
// task waits in BarrierTaskContext.barrier() while its stage's input is still on the way), all
// with BarrierTaskContexts served by barrier (see pyworker.Barrier). argSchema is the schema of
// the argument batches (the task's input schema when its partition has no rows).
func PythonBarrierMap(ctx *expr.Context, spec PythonSpec, evalType int32, pyVer string, f PythonFunc,
	barrier *pyworker.Barrier, argSchema *arrow.Schema) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		offs := make([]int, len(f.Args))
		for i := range offs {
			offs[i] = i
		}
		task := spec.task(env, evalType, pyVer, []pyworker.UDF{{Command: f.Command, ArgOffsets: offs, ReturnType: f.ReturnType}})
		if barrier != nil {
			task.Barrier = barrier
			task.InputSchemas = []*arrow.Schema{argSchema}
		}
		return &pythonMap{out: pythonOut{env: env, spec: spec, task: task}, ctx: instanceContext(ctx, env), args: f.Args,
			names: f.ColumnNames, barrier: barrier != nil}, nil
	}
}

type pythonMap struct {
	out   pythonOut
	ctx   *expr.Context
	args  []expr.Expr
	names []string
	// barrier (barrier mode) keeps the argument batches in held until end of data.
	barrier bool
	held    []arrow.RecordBatch
}

func (m *pythonMap) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	for _, c := range chunks(rec.NumRows(), m.out.spec.MaxRecordsPerBatch) {
		part := rec.NewSlice(c[0], c[1])
		batch, err := argBatch(m.ctx, m.args, m.names, part)
		part.Release()
		if err != nil {
			return err
		}
		if m.barrier {
			m.held = append(m.held, batch)
			continue
		}
		err = m.out.send(ctx, pyworker.Group{Batches: [][]arrow.RecordBatch{{batch}}}, out)
		batch.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// Barrier implements flow.BarrierHandler.
func (m *pythonMap) Barrier(ctx context.Context, _ int64, out flow.Emitter) error {
	return m.out.finish(ctx, out)
}

// EndOfData implements flow.EndOfDataHandler: in barrier mode the partition's task starts now,
// with every held batch, even when there is none.
func (m *pythonMap) EndOfData(ctx context.Context, out flow.Emitter) error {
	if m.barrier {
		if err := m.out.open(ctx); err != nil {
			return err
		}
		held := m.held
		m.held = nil
		for i, b := range held {
			err := m.out.send(ctx, pyworker.Group{Batches: [][]arrow.RecordBatch{{b}}}, out)
			b.Release()
			if err != nil {
				releaseRecords(held[i+1:])
				return err
			}
		}
	}
	return m.out.finish(ctx, out)
}

// Close implements flow.Closer.
func (m *pythonMap) Close() {
	m.out.close()
	releaseRecords(m.held)
	m.held = nil
}
