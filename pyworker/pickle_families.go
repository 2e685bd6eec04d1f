package pyworker

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weirhq/weir/pyworker/pickle"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// BatchIDProperty is the TaskContext local property a foreach writer's task reads its epoch id
// from (pyspark's _construct_foreach_function: TaskContext.get().getLocalProperty).
const BatchIDProperty = "streaming.sql.batchId"

// The pickled eval types, as Spark's PythonUDFRunner (BatchEvalPythonExec) and PythonRunner
// (PythonForeachWriter) exchange them with worker.py:
//
//   - SQL_BATCHED_UDF (@udf without Arrow): the command section is read_udfs' like the Arrow
//     scalar kinds. Each input batch's argument columns are pickled UDFBatchRows rows at a time
//     (pickle.RowEncoder in BatchedUDF mode: a tuple of rows, each a tuple of values, or a
//     Row of fields _0, _1, … when a column needs conversion in Python), each pickle written
//     length-prefixed; END_OF_DATA_SECTION ends the input (the worker's BatchedSerializer
//     load_stream stops there). The worker answers length-prefixed pickles of lists of results
//     (BatchedSerializer(CPickleSerializer(), 100)), one value per row for one UDF, a tuple per
//     row for several; they are turned into Arrow columns _0, _1, … with makeFromJava semantics
//     (pickle.AppendUDFResults: a value of the wrong Python type is NULL).
//   - NON_UDF (writeStream.foreach): the command is the client's pickled (func, profiler,
//     deserializer, serializer), written as one length-prefixed frame (worker_util.read_command).
//     The input is the rows of the query's output, each a pyspark Row of its schema, pickled in
//     batches sized as SerDeUtil.AutoBatchedPickler sizes them, then END_OF_DATA_SECTION. func
//     returns an empty iterator: any frame it writes anyway is read and dropped, as
//     PythonForeachWriter ignores the runner's output.
func init() {
	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeUDFs(plainArgs),
		newInput:     func(t *Task) inputEncoder { return &pickledInput{task: t, mode: pickle.BatchedUDF} },
		decode:       decodeUDFResults,
	}, SQLBatchedUDF)

	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeForeachCommand,
		newInput:     func(t *Task) inputEncoder { return &pickledInput{task: t, mode: pickle.Foreach} },
		decode:       discardFrame,
	}, NonUDF)
}

// writeForeachCommand writes a NON_UDF task's single pickled command.
func writeForeachCommand(w io.Writer, t *Task) error {
	if len(t.UDFs) != 1 {
		return fmt.Errorf("pyworker: a foreach writer task has %d functions, want 1", len(t.UDFs))
	}
	return writeBytes(w, t.UDFs[0].Command)
}

// pickledInput pickles each input batch's rows as the JVM sends them to worker.py.
type pickledInput struct {
	task *Task
	mode pickle.Mode
	enc  *pickle.RowEncoder
	auto pickle.AutoBatchSize // Foreach mode's batch sizes
}

// encoder returns the row encoder, made for the task's input schema (else the first batch's).
func (p *pickledInput) encoder(first *Group) (*pickle.RowEncoder, error) {
	if p.enc != nil {
		return p.enc, nil
	}
	schema := inputSchema(p.task, first, 0)
	if schema == nil {
		schema = arrow.NewSchema(nil, nil)
	}
	fields, err := sqltypes.FromArrowSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("pyworker: the input of eval type %d: %w", p.task.EvalType, err)
	}
	if p.mode == pickle.BatchedUDF {
		types := make([]sqltypes.DataType, len(fields))
		for i, f := range fields {
			types[i] = f.Type
		}
		fields = pickle.UDFInputSchema(types)
	}
	p.enc = pickle.NewRowEncoder(p.mode, fields)
	return p.enc, nil
}

func (p *pickledInput) send(w io.Writer, g Group) error {
	if len(g.Batches) != 1 {
		return fmt.Errorf("pyworker: an input unit of eval type %d has %d sides, want 1", p.task.EvalType, len(g.Batches))
	}
	enc, err := p.encoder(&g)
	if err != nil {
		return err
	}
	for _, rec := range g.Batches[0] {
		n := int(rec.NumRows())
		for from := 0; from < n; {
			rows := pickle.UDFBatchRows
			if p.mode == pickle.Foreach {
				rows = p.auto.Rows()
			}
			to := min(n, from+rows)
			data, err := enc.Encode(rec.Columns(), from, to)
			if err != nil {
				return err
			}
			if err := writeBytes(w, data); err != nil {
				return err
			}
			if p.mode == pickle.Foreach {
				p.auto.Observe(len(data))
			}
			from = to
		}
	}
	return nil
}

func (p *pickledInput) closeSend(w io.Writer) error { return writeInt(w, EndOfDataSection) }

// readPickle reads the frame of length lead whose length was already read; the buffer grows
// as the bytes arrive, so a corrupt length allocates no more than was sent.
func readPickle(lead int32, r io.Reader) ([]byte, error) {
	if lead < 0 || lead > maxFrame {
		return nil, fmt.Errorf("pyworker: the worker sent %d where a pickled frame's length or the end of its data was expected", lead)
	}
	var buf bytes.Buffer
	buf.Grow(int(min(lead, 1<<20)))
	if _, err := io.CopyN(&buf, r, int64(lead)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeUDFResults reads one pickled list of SQL_BATCHED_UDF results and emits it as a batch of
// one column per UDF (_0, _1, …, of the UDFs' return types).
func decodeUDFResults(lead int32, r io.Reader, t *Task, emit func(arrow.RecordBatch)) error {
	data, err := readPickle(lead, r)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return nil // PythonUDFRunner reads a zero length as no results
	}
	types := make([]sqltypes.DataType, len(t.UDFs))
	builders := make([]array.Builder, len(t.UDFs))
	fields := make([]arrow.Field, len(t.UDFs))
	defer func() {
		for _, b := range builders {
			if b != nil {
				b.Release()
			}
		}
	}()
	for i, u := range t.UDFs {
		st, err := resultType(u.ReturnType)
		if err != nil {
			return err
		}
		types[i] = st
		builders[i] = array.NewBuilder(allocator(t), u.ReturnType)
		fields[i] = arrow.Field{Name: "_" + strconv.Itoa(i), Type: u.ReturnType, Nullable: true}
	}
	n, err := pickle.AppendUDFResults(builders, types, data)
	if err != nil {
		return err
	}
	cols := make([]arrow.Array, len(builders))
	for i, b := range builders {
		cols[i] = b.NewArray()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	emit(rec)
	return nil
}

// resultType is the Spark type of a UDF's Arrow return type, which must be the Arrow type
// sqltypes.ToArrow gives it (the builders pickle.AppendFromJava fills are of that type).
func resultType(rt arrow.DataType) (sqltypes.DataType, error) {
	if rt == nil {
		return sqltypes.DataType{}, fmt.Errorf("pyworker: a batched UDF has no return type")
	}
	st, err := sqltypes.FromArrow(rt)
	if err != nil {
		return sqltypes.DataType{}, fmt.Errorf("pyworker: a batched UDF's return type: %w", err)
	}
	if want := sqltypes.ToArrow(st, timeZoneOf(rt)); !arrow.TypeEqual(want, rt) {
		return sqltypes.DataType{}, fmt.Errorf("pyworker: a batched UDF's return type is Arrow %s, not %s (Spark %s)", rt, want, st)
	}
	return st, nil
}

// timeZoneOf is the time zone of the first zoned timestamp inside t ("" if none).
func timeZoneOf(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.TimestampType:
		return t.TimeZone
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if tz := timeZoneOf(f.Type); tz != "" {
				return tz
			}
		}
	}
	return ""
}

// discardFrame reads and drops a frame a foreach writer's function wrote.
func discardFrame(lead int32, r io.Reader, _ *Task, _ func(arrow.RecordBatch)) error {
	if lead < 0 || lead > maxFrame {
		return fmt.Errorf("pyworker: the worker sent %d where the end of its data was expected", lead)
	}
	_, err := io.CopyN(io.Discard, r, int64(lead))
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
