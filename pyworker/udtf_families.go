package pyworker

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/weirhq/weir/pyworker/pickle"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The Python table function (UDTF) eval types, as Spark's PythonUDTFRunner
// (BatchEvalPythonUDTFExec) and ArrowPythonUDTFRunner (ArrowEvalPythonUDTFExec) exchange them
// with worker.py's read_udtf. A task runs exactly one UDTF (Task.UDFs[0]).
//
// Command section (PythonUDTFRunner.writeUDTF): int number of arguments, per argument int offset
// + bool named (+ UTF name); int number of PARTITION BY child indexes, each an int
// (UDF.PartitionChildIndexes); bool has-pickled-AnalyzeResult (+ the length-prefixed pickle,
// UDF.AnalyzeResult, when the handler's analyze method ran); the command (the client's cloudpickled handler class, length-prefixed); the return
// type as Spark's JSON (a struct); the UDTF's name (UTF).
//
//   - SQL_TABLE_UDF: the input is SQL_BATCHED_UDF's (argument rows pickled UDFBatchRows at a
//     time, then END_OF_DATA_SECTION). worker.py calls eval once per row and terminate once at
//     the end, and writes each call's result as its own length-prefixed pickle
//     (BatchedSerializer(CPickleSerializer(), 1)): a list of one tuple of output rows, each row a
//     tuple of the return type's internal values. Each list item becomes one result batch.
//   - SQL_ARROW_TABLE_UDF: the input is one Arrow IPC stream of the argument columns (plain,
//     not wrapped in a struct) with eval conf input_type (their Spark JSON type), as
//     ArrowPythonUDTFRunner sends it; worker.py converts each column to Python values and calls
//     eval per row (num_rows times when there are no arguments). The output is
//     START_ARROW_STREAM then one IPC stream with at least one batch per call (an empty one for
//     a call that yielded nothing), each one struct column of the result fields; each becomes
//     one flattened result batch.
//
// Recv therefore returns one batch per eval call, in input-row order, then terminate's batch
// (when the handler has terminate): what Spark's EvalPythonUDTFEvaluatorFactory joins to the
// input rows by count. The batches' columns are the return struct's fields.
func init() {
	registerFamily(&family{
		evalConf:     noEvalConf,
		writeCommand: writeUDTF,
		newInput:     func(t *Task) inputEncoder { return &pickledInput{task: t, mode: pickle.BatchedUDF} },
		decode:       decodeUDTFResults,
	}, SQLTableUDF)

	registerFamily(&family{
		evalConf:     inputTypeConf,
		writeCommand: writeUDTF,
		newInput:     func(t *Task) inputEncoder { return &streamInput{task: t} },
		decode:       decodeArrow(true),
	}, SQLArrowTableUDF)
}

// udtfReturnType is the Spark type of a UDTF's return type, which must be an Arrow struct.
func udtfReturnType(t *Task) (sqltypes.DataType, error) {
	if len(t.UDFs) != 1 {
		return sqltypes.DataType{}, fmt.Errorf("pyworker: a UDTF task has %d functions, want 1", len(t.UDFs))
	}
	rt := t.UDFs[0].ReturnType
	if _, ok := rt.(*arrow.StructType); !ok {
		return sqltypes.DataType{}, fmt.Errorf("pyworker: a UDTF's return type is %v, want a struct", rt)
	}
	return sqltypes.FromArrow(rt)
}

// writeUDTF writes read_udtf's command section.
func writeUDTF(w io.Writer, t *Task) error {
	st, err := udtfReturnType(t)
	if err != nil {
		return err
	}
	u := &t.UDFs[0]
	args, err := plainArgs(u)
	if err != nil {
		return err
	}
	if err := writeInt(w, int32(len(args))); err != nil {
		return err
	}
	for _, a := range args {
		if err := writeInt(w, int32(a.offset)); err != nil {
			return err
		}
		named := byte(0)
		if a.name != "" {
			named = 1
		}
		if _, err := w.Write([]byte{named}); err != nil {
			return err
		}
		if a.name != "" {
			if err := writeBytes(w, []byte(a.name)); err != nil {
				return err
			}
		}
	}
	for _, step := range []func() error{
		func() error { return writeInts(w, u.PartitionChildIndexes) },
		func() error { // the pickled AnalyzeResult, when analyze ran
			if u.AnalyzeResult == nil {
				return writeBool(w, false)
			}
			if err := writeBool(w, true); err != nil {
				return err
			}
			return writeBytes(w, u.AnalyzeResult)
		},
		func() error { return writeBytes(w, u.Command) },
		func() error { return writeBytes(w, []byte(sqltypes.JSONType(st))) },
		func() error { return writeBytes(w, []byte(u.Name)) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// decodeUDTFResults reads one pickled frame of SQL_TABLE_UDF output and emits one batch per call
// it holds (the return struct's fields as columns).
func decodeUDTFResults(lead int32, r io.Reader, t *Task, emit func(arrow.RecordBatch)) error {
	data, err := readPickle(lead, r)
	if err != nil {
		return err
	}
	st, err := udtfReturnType(t)
	if err != nil {
		return err
	}
	v, err := pickle.Decode(data)
	if err != nil {
		return err
	}
	l, ok := v.(*pickle.List)
	if !ok {
		return fmt.Errorf("pyworker: a UDTF result frame is a %T, not a list", v)
	}
	// Each call's rows are one array of the return struct (makeFromJava of
	// ArrayType(elementSchema), as BatchEvalPythonUDTFExec reads them).
	at := sqltypes.ArrayType(st, true)
	budget := pickle.BudgetFor(len(data))
	for _, item := range l.Items {
		rec, err := udtfCallBatch(t, at, item, &budget)
		if err != nil {
			return err
		}
		emit(rec)
	}
	return nil
}

// udtfCallBatch makes one call's output rows (a tuple of row tuples) a batch of the return
// struct's fields.
func udtfCallBatch(t *Task, at sqltypes.DataType, item any, budget *pickle.Budget) (arrow.RecordBatch, error) {
	rt := t.UDFs[0].ReturnType.(*arrow.StructType)
	b := array.NewListBuilder(allocator(t), rt)
	defer b.Release()
	if err := pickle.AppendFromJava(b, at, item, budget); err != nil {
		return nil, err
	}
	list := b.NewListArray()
	defer list.Release()
	st := list.ListValues().(*array.Struct)
	cols := make([]arrow.Array, st.NumField())
	for i := range cols {
		cols[i] = st.Field(i)
	}
	return array.NewRecordBatch(arrow.NewSchema(rt.Fields(), nil), cols, int64(st.Len())), nil
}

// writeInts writes a count then each value, as big-endian ints.
func writeInts(w io.Writer, vs []int) error {
	if err := writeInt(w, int32(len(vs))); err != nil {
		return err
	}
	for _, v := range vs {
		if err := writeInt(w, int32(v)); err != nil {
			return err
		}
	}
	return nil
}
