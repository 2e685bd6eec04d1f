package pyworker

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// The Arrow-based eval types, as worker.py's read_udfs and pyspark/sql/pandas/serializers.py
// read and write them:
//
//   - scalar kinds (SQL_SCALAR_PANDAS_UDF, _ITER, SQL_ARROW_BATCHED_UDF, SQL_SCALAR_ARROW_UDF,
//     _ITER): the whole input is one Arrow IPC stream of the argument columns; each input batch
//     gives one output batch with a column _0, _1, ... per UDF.
//   - map kinds (mapInPandas, mapInArrow): the same single stream, but each batch is one struct
//     column wrapping the input columns; output batches are one struct column _0 of the result
//     columns (ArrowBatchTransformer.flatten_struct / wrap_struct).
//   - grouped kinds (applyInPandas, applyInArrow, grouped-agg pandas / arrow UDFs): per group the
//     int 1 then a complete IPC stream of its rows (ArrowStreamGroupSerializer); the int 0 ends
//     the input. applyInArrow wraps the columns in a struct like the map kinds; the grouped-map
//     kinds answer a struct column _0, the aggregates one row of _0, _1, ... per group.
//   - cogrouped kinds: per key the int 2 then the left side's IPC stream and the right side's
//     (ArrowStreamCoGroupSerializer), each with at least one (maybe empty) batch, as
//     CoGroupedArrowPythonRunner writes; 0 ends the input; output as the grouped-map kinds.
//
// Output, for every kind: nothing when the functions produced no batch, else
// START_ARROW_STREAM (-6) then one IPC stream of all result batches (the serializers'
// _write_stream_start after the first batch was built).
//
// The Go side of a Stream always sees flat batches: Send takes the argument columns, Recv returns
// one column per UDF (scalar and aggregate kinds) or the return struct's fields as columns (map
// and grouped-map kinds). ArgOffsets of map kinds are ignored; grouped-map and cogrouped kinds
// use Sides.
func init() {
	scalar := &family{
		evalConf:     noEvalConf,
		writeCommand: writeUDFs(plainArgs),
		newInput:     func(t *Task) inputEncoder { return &streamInput{task: t} },
		decode:       decodeArrow(false),
	}
	registerFamily(scalar, SQLScalarPandasUDF, SQLScalarPandasIterUDF, SQLScalarArrowUDF, SQLScalarArrowIterUDF)

	batched := *scalar
	batched.evalConf = inputTypeConf
	registerFamily(&batched, SQLArrowBatchedUDF)

	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeUDFs(wholeInputArg),
		newInput:     func(t *Task) inputEncoder { return &streamInput{task: t, wrap: true} },
		decode:       decodeArrow(true),
	}, SQLMapPandasIterUDF, SQLMapArrowIterUDF)

	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeUDFs(sideArgs(1)),
		newInput:     func(t *Task) inputEncoder { return &groupInput{task: t, sides: 1} },
		decode:       decodeArrow(true),
	}, SQLGroupedMapPandasUDF)

	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeUDFs(sideArgs(1)),
		newInput:     func(t *Task) inputEncoder { return &groupInput{task: t, sides: 1, wrap: true} },
		decode:       decodeArrow(true),
	}, SQLGroupedMapArrowUDF)

	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeUDFs(plainArgs),
		newInput:     func(t *Task) inputEncoder { return &groupInput{task: t, sides: 1} },
		decode:       decodeArrow(false),
	}, SQLGroupedAggPandasUDF, SQLGroupedAggArrowUDF)

	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeUDFs(sideArgs(2)),
		newInput:     func(t *Task) inputEncoder { return &groupInput{task: t, sides: 2} },
		decode:       decodeArrow(true),
	}, SQLCogroupedMapPandasUDF, SQLCogroupedMapArrowUDF)
}

// inputTypeConf is SQL_ARROW_BATCHED_UDF's eval conf: input_type, the Spark JSON type of the
// input columns (ArrowPythonRunner's PythonEvalConf; worker.py converts the Arrow values to
// Python values with it).
func inputTypeConf(t *Task, first *Group) (map[string]string, error) {
	schema := inputSchema(t, first, 0)
	if schema == nil {
		schema = arrow.NewSchema(nil, nil)
	}
	fields, err := sqltypes.FromArrowSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("pyworker: the input of an Arrow-batched UDF: %w", err)
	}
	return map[string]string{"input_type": sqltypes.JSONType(fields.AsStruct())}, nil
}

// inputSchema is the schema of side i of the input: Task.InputSchemas, else the first batch's.
func inputSchema(t *Task, first *Group, i int) *arrow.Schema {
	if i < len(t.InputSchemas) && t.InputSchemas[i] != nil {
		return t.InputSchemas[i]
	}
	if first != nil && i < len(first.Batches) && len(first.Batches[i]) > 0 {
		return first.Batches[i][0].Schema()
	}
	return nil
}

func allocator(t *Task) memory.Allocator {
	if t.Alloc != nil {
		return t.Alloc
	}
	return memory.DefaultAllocator
}

// streamInput is the single IPC stream of the scalar and map kinds.
type streamInput struct {
	task *Task
	wrap bool
	w    *ipc.Writer
}

func (s *streamInput) writer(w io.Writer, schema *arrow.Schema) *ipc.Writer {
	if s.w == nil {
		s.w = ipc.NewWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(allocator(s.task)))
	}
	return s.w
}

func (s *streamInput) send(w io.Writer, g Group) error {
	if len(g.Batches) != 1 {
		return fmt.Errorf("pyworker: an input unit of eval type %d has %d sides, want 1", s.task.EvalType, len(g.Batches))
	}
	for _, rec := range g.Batches[0] {
		if err := writeBatch(s.writer(w, s.schema(rec.Schema())), rec, s.wrap); err != nil {
			return err
		}
	}
	return nil
}

func (s *streamInput) schema(in *arrow.Schema) *arrow.Schema {
	if s.wrap {
		return wrappedSchema(in)
	}
	return in
}

func (s *streamInput) closeSend(w io.Writer) error {
	if s.w == nil {
		schema := inputSchema(s.task, nil, 0)
		if schema == nil {
			schema = arrow.NewSchema(nil, nil)
		}
		s.writer(w, s.schema(schema))
	}
	return s.w.Close() // the schema if no batch was written, then end-of-stream
}

// groupInput frames each unit as a group (sides == 1) or a cogroup (sides == 2).
type groupInput struct {
	task  *Task
	sides int
	wrap  bool
}

func (s *groupInput) send(w io.Writer, g Group) error {
	if len(g.Batches) != s.sides {
		return fmt.Errorf("pyworker: an input unit of eval type %d has %d sides, want %d", s.task.EvalType, len(g.Batches), s.sides)
	}
	if err := writeInt(w, int32(s.sides)); err != nil {
		return err
	}
	for i, batches := range g.Batches {
		schema := inputSchema(s.task, &g, i)
		if schema == nil {
			return fmt.Errorf("pyworker: side %d of an input unit has no batch and the task no input schema for it", i)
		}
		if len(batches) == 0 {
			// The JVM's group writers always send one batch, maybe empty: the worker builds a
			// table from the batches it reads, which needs at least one.
			empty := array.NewRecordBuilder(allocator(s.task), schema)
			rec := empty.NewRecordBatch()
			empty.Release()
			defer rec.Release()
			batches = []arrow.RecordBatch{rec}
		}
		out := schema
		if s.wrap {
			out = wrappedSchema(schema)
		}
		iw := ipc.NewWriter(w, ipc.WithSchema(out), ipc.WithAllocator(allocator(s.task)))
		for _, rec := range batches {
			if err := writeBatch(iw, rec, s.wrap); err != nil {
				iw.Close()
				return err
			}
		}
		if err := iw.Close(); err != nil {
			return err
		}
	}
	return nil
}

func (s *groupInput) closeSend(w io.Writer) error { return writeInt(w, 0) }

// writeBatch writes rec, wrapped in one struct column when wrap is set.
func writeBatch(iw *ipc.Writer, rec arrow.RecordBatch, wrap bool) error {
	if !wrap {
		return iw.Write(rec)
	}
	wrapped := wrapStruct(rec)
	defer wrapped.Release()
	return iw.Write(wrapped)
}

// wrappedSchema is the schema of wrapStruct's batches.
func wrappedSchema(s *arrow.Schema) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{{Name: "_0", Type: arrow.StructOf(s.Fields()...)}}, nil)
}

// wrapStruct makes rec's columns one non-null struct column _0 (what flatten_struct undoes).
func wrapStruct(rec arrow.RecordBatch) arrow.RecordBatch {
	schema := wrappedSchema(rec.Schema())
	children := make([]arrow.ArrayData, rec.NumCols())
	for i, c := range rec.Columns() {
		children[i] = c.Data()
	}
	data := array.NewData(schema.Field(0).Type, int(rec.NumRows()), []*memory.Buffer{nil}, children, 0, 0)
	defer data.Release()
	col := array.MakeFromData(data)
	defer col.Release()
	return array.NewRecordBatch(schema, []arrow.Array{col}, rec.NumRows())
}

// flattenStruct makes the fields of rec's single struct column the columns of a batch; it takes
// ownership of rec.
func flattenStruct(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	defer rec.Release()
	if rec.NumCols() != 1 {
		return nil, fmt.Errorf("pyworker: a map result batch has %d columns, want one struct", rec.NumCols())
	}
	st, ok := rec.Column(0).(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("pyworker: a map result column is %s, want a struct", rec.Column(0).DataType())
	}
	fields := st.DataType().(*arrow.StructType).Fields()
	cols := make([]arrow.Array, len(fields))
	for i := range fields {
		cols[i] = st.Field(i)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

// decodeArrow reads the output that starts with START_ARROW_STREAM: one IPC stream of result
// batches, each flattened when flatten is set.
func decodeArrow(flatten bool) func(int32, io.Reader, *Task, func(arrow.RecordBatch)) error {
	return func(lead int32, r io.Reader, t *Task, emit func(arrow.RecordBatch)) error {
		if lead != StartArrowStream {
			return fmt.Errorf("pyworker: the worker sent %d where START_ARROW_STREAM (%d) or the end of its data was expected", lead, StartArrowStream)
		}
		rdr, err := ipc.NewReader(r, ipc.WithAllocator(allocator(t)))
		if err != nil {
			return fmt.Errorf("pyworker: reading the worker's Arrow stream: %w", err)
		}
		defer rdr.Release()
		for rdr.Next() {
			rec := rdr.RecordBatch()
			rec.Retain()
			if flatten {
				if rec, err = flattenStruct(rec); err != nil {
					return err
				}
			}
			emit(rec)
		}
		if err := rdr.Err(); err != nil {
			return fmt.Errorf("pyworker: reading the worker's Arrow stream: %w", err)
		}
		return nil
	}
}
