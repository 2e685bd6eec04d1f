package pyworker

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// column builds a one-column batch named name of Spark type t from Arrow JSON.
func column(t *testing.T, alloc memory.Allocator, name string, st sqltypes.DataType, js string) arrow.RecordBatch {
	t.Helper()
	typ := sqltypes.ToArrow(st, "UTC")
	arr, _, err := array.FromJSON(alloc, typ, strings.NewReader(js))
	if err != nil {
		t.Fatalf("%s from %s: %v", typ, js, err)
	}
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: typ, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
}

// batchedUDF is a SQL_BATCHED_UDF function of testdata/udfs.py returning Spark type rt.
func batchedUDF(t *testing.T, name string, rt sqltypes.DataType, args ...int) UDF {
	return UDF{Command: command(t, name), ArgOffsets: args, ReturnType: sqltypes.ToArrow(rt, "UTC")}
}

// TestPoolBatchedUDFTypes round-trips every Spark type through a pickled @udf on a real worker:
// the argument is pickled as the JVM sends it, Python's identity returns it, and the result is
// read back with makeFromJava semantics. One worker runs all the tasks.
func TestPoolBatchedUDFTypes(t *testing.T) {
	p := newTestPool(t, 1)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	st := sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.LongType, Nullable: true},
		sqltypes.Field{Name: "b", Type: sqltypes.StringType, Nullable: true})
	for _, c := range []struct {
		name string
		typ  sqltypes.DataType
		in   string
		want []string
	}{
		{"boolean", sqltypes.BooleanType, `[true, false, null]`, []string{"true", "false", "(null)"}},
		{"byte", sqltypes.ByteType, `[-128, 127, null]`, []string{"-128", "127", "(null)"}},
		{"short", sqltypes.ShortType, `[-32768, 7]`, []string{"-32768", "7"}},
		{"integer", sqltypes.IntegerType, `[2147483647, null]`, []string{"2147483647", "(null)"}},
		{"long", sqltypes.LongType, `[-9223372036854775808, 42]`, []string{"-9223372036854775808", "42"}},
		{"float", sqltypes.FloatType, `[1.5, -0.25, null]`, []string{"1.5", "-0.25", "(null)"}},
		{"double", sqltypes.DoubleType, `[3.141592653589793, 1e300]`, []string{"3.141592653589793", "1e+300"}},
		{"decimal", sqltypes.DecimalType(10, 2), `["12345678.90", "-0.05", null]`, []string{"12345678.9", "-0.05", "(null)"}},
		{"string", sqltypes.StringType, `["héllo", "", null]`, []string{"héllo", "", "(null)"}},
		{"binary", sqltypes.BinaryType, `["AAEC", null]`, []string{"AAEC", "(null)"}},
		{"date", sqltypes.DateType, `["1970-01-01", "2024-02-29", null]`, []string{"1970-01-01", "2024-02-29", "(null)"}},
		{"timestamp", sqltypes.TimestampType, `["2024-03-01T12:34:56.789012Z", null]`, []string{"2024-03-01T12:34:56.789012Z", "(null)"}},
		{"timestamp_ntz", sqltypes.TimestampNTZType, `["1999-12-31T23:59:59.5"]`, []string{"1999-12-31T23:59:59.5"}},
		{"interval", sqltypes.DayTimeIntervalType(0, 3), `[90061000001, -1, null]`, []string{"90061000001us", "-1us", "(null)"}},
		{"array", sqltypes.ArrayType(sqltypes.LongType, true), `[[1, null, 3], [], null]`, []string{"[1,null,3]", "[]", "(null)"}},
		{"map", sqltypes.MapType(sqltypes.StringType, sqltypes.LongType, true), `[[{"key": "k", "value": 1}], null]`,
			[]string{`[{"key":"k","value":1}]`, "(null)"}},
		{"struct", st, `[{"a": 1, "b": "x"}, {"a": null, "b": null}, null]`, []string{`{"a":1,"b":"x"}`, `{"a":null,"b":null}`, "(null)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := task(t, SQLBatchedUDF, alloc, batchedUDF(t, "identity_"+c.name, c.typ, 0))
			got, _, err := run(t, p, tk, one(column(t, alloc, "v", c.typ, c.in)))
			want := make([]string, len(c.want))
			for i, w := range c.want {
				want[i] = "_0=" + w
			}
			checkRows(t, c.name, got, err, want...)
		})
	}
}

// TestPoolBatchedUDF covers the pickled @udf kind's semantics on a real worker: the Python
// classes arguments arrive as, NULL for a wrong-typed result, two UDFs in one task (tuples),
// chained functions, batches past the 100-row pickles, and a raising function.
func TestPoolBatchedUDF(t *testing.T) {
	p := newTestPool(t, 1)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)

	t.Run("argument classes", func(t *testing.T) {
		cases := []struct {
			typ  sqltypes.DataType
			in   string
			want string
		}{
			{sqltypes.LongType, `[1]`, "int"},
			{sqltypes.DoubleType, `[1.5]`, "float"},
			{sqltypes.StringType, `["a"]`, "str"},
			{sqltypes.BinaryType, `["AA=="]`, "bytearray"},
			{sqltypes.DecimalType(5, 1), `["1.5"]`, "Decimal"},
			{sqltypes.DateType, `["2000-01-01"]`, "date"},
			{sqltypes.TimestampType, `["2000-01-01T00:00:00Z"]`, "datetime"},
			{sqltypes.DayTimeIntervalType(0, 3), `[1]`, "timedelta"},
			{sqltypes.ArrayType(sqltypes.LongType, true), `[[1]]`, "list"},
			{sqltypes.MapType(sqltypes.LongType, sqltypes.LongType, true), `[[{"key": 1, "value": 2}]]`, "dict"},
			{sqltypes.StructType(sqltypes.Field{Name: "x", Type: sqltypes.LongType}), `[{"x": 1}]`, "Row"},
			{sqltypes.LongType, `[null]`, "NoneType"},
		}
		for _, c := range cases {
			tk := task(t, SQLBatchedUDF, alloc, batchedUDF(t, "python_type", sqltypes.StringType, 0))
			got, _, err := run(t, p, tk, one(column(t, alloc, "v", c.typ, c.in)))
			checkRows(t, c.typ.String(), got, err, "_0="+c.want)
		}
	})
	t.Run("wrong-typed result is NULL", func(t *testing.T) {
		tk := task(t, SQLBatchedUDF, alloc,
			batchedUDF(t, "wrong_type", sqltypes.LongType, 0),
			batchedUDF(t, "identity_double", sqltypes.DoubleType, 0), // an int for a double
			batchedUDF(t, "identity_string", sqltypes.StringType, 0)) // an int's toString
		got, _, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{7, nil})))
		checkRows(t, "wrong types", got, err, "_0=(null) _1=(null) _2=7", "_0=(null) _1=(null) _2=(null)")
	})
	t.Run("two arguments, chained functions", func(t *testing.T) {
		tk := task(t, SQLBatchedUDF, alloc,
			batchedUDF(t, "sum_args", sqltypes.LongType, 1, 0),
			UDF{Command: command(t, "times_ten"), Chained: [][]byte{command(t, "plus_one")}, ArgOffsets: []int{1},
				ReturnType: arrow.PrimitiveTypes.Int64})
		got, _, err := run(t, p, tk, one(longs(alloc, []string{"a", "b"}, []any{1, 2, nil}, []any{10, 20, 30})))
		checkRows(t, "chained", got, err, "_0=11 _1=110", "_0=22 _1=210", "_0=(null) _1=310")
	})
	t.Run("many rows keep their order", func(t *testing.T) {
		const n = 1234
		vals := make([]any, n)
		for i := range vals {
			vals[i] = i
		}
		tk := task(t, SQLBatchedUDF, alloc, batchedUDF(t, "identity_long", sqltypes.LongType, 0))
		got, _, err := run(t, p, tk, one(longs(alloc, []string{"a"}, vals[:1000])), one(longs(alloc, []string{"a"}, vals[1000:])))
		want := make([]string, n)
		for i := range want {
			want[i] = "_0=" + strconv.Itoa(i)
		}
		checkRows(t, "many rows", got, err, want...)
	})
	t.Run("a raising UDF is a PythonException", func(t *testing.T) {
		tk := task(t, SQLBatchedUDF, alloc, batchedUDF(t, "raises_row", sqltypes.LongType, 0))
		_, _, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{1, 2, 3})))
		var se *sparkerr.Error
		if !errors.As(err, &se) || se.JavaClass != PythonExceptionClass || se.Class != "PYTHON_EXCEPTION" {
			t.Fatalf("got %v, want a PythonException", err)
		}
		if msg := se.Error(); !strings.Contains(msg, "Traceback") || !strings.Contains(msg, "ValueError: boom from a batched udf at 2") {
			t.Errorf("the exception has no traceback of the UDF's error: %s", msg)
		}
	})
	t.Run("the worker is reused after an error", func(t *testing.T) {
		tk := task(t, SQLBatchedUDF, alloc, batchedUDF(t, "identity_long", sqltypes.LongType, 0))
		got, _, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{5})))
		checkRows(t, "after an error", got, err, "_0=5")
	})
}

// foreachPool is a pool whose workers see WEIR_TEST_OUT, where testdata/udfs.py's foreach
// writers write.
func foreachPool(t *testing.T) (*Pool, string) {
	t.Helper()
	dir := t.TempDir()
	out := &syncBuffer{}
	p := NewPool(PoolConfig{Python: testPython(t), MaxWorkers: 1, Output: out, Env: []string{"WEIR_TEST_OUT=" + dir}})
	t.Cleanup(func() {
		p.Close()
		if t.Failed() {
			t.Logf("workers' output:\n%s", out.String())
		}
	})
	return p, dir
}

func readOut(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// foreachTask is a NON_UDF task of partition part in epoch epoch.
func foreachTask(t *testing.T, name string, alloc memory.Allocator, part int, epoch string) Task {
	tk := task(t, NonUDF, alloc, UDF{Command: command(t, name)})
	tk.PartitionIndex = part
	tk.LocalProperties = map[string]string{BatchIDProperty: epoch}
	return tk
}

// TestPoolForeachWriter runs writeStream.foreach's writers as PySpark's client pickles them on a
// real worker: open(partition_id, epoch_id), process(row) per Row of the query's schema,
// close(None); a raising process is closed with its error and fails the task with a
// PythonException; the function form gets every row.
func TestPoolForeachWriter(t *testing.T) {
	p, dir := foreachPool(t)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	input := func(vals ...any) Group {
		b := longs(alloc, []string{"n"}, []any{1, 2, 3}[:len(vals)])
		s := strs(alloc, "s", vals...)
		defer b.Release()
		defer s.Release()
		schema := arrow.NewSchema([]arrow.Field{b.Schema().Field(0), s.Schema().Field(0)}, nil)
		return one(array.NewRecordBatch(schema, []arrow.Array{b.Column(0), s.Column(0)}, b.NumRows()))
	}

	got, _, err := run(t, p, foreachTask(t, "foreach_writer", alloc, 3, "7"), input("a", nil, "c"))
	checkRows(t, "foreach writer", got, err)
	want := "open 3 7\nprocess Row(n=1, s='a')\nprocess Row(n=2, s=None)\nprocess Row(n=3, s='c')\nclose None\n"
	if out := readOut(t, dir, "writer-3-7"); out != want {
		t.Errorf("the writer's calls:\n%s\nwant\n%s", out, want)
	}

	_, _, err = run(t, p, foreachTask(t, "foreach_writer", alloc, 0, "8"), input("a", "boom", "c"))
	var se *sparkerr.Error
	if !errors.As(err, &se) || se.JavaClass != PythonExceptionClass || !strings.Contains(se.Error(), "ValueError: boom from a foreach writer") {
		t.Fatalf("got %v, want the writer's PythonException", err)
	}
	want = "open 0 8\nprocess Row(n=1, s='a')\nclose ValueError('boom from a foreach writer')\n"
	if out := readOut(t, dir, "writer-0-8"); out != want {
		t.Errorf("the failing writer's calls:\n%s\nwant\n%s", out, want)
	}

	got, _, err = run(t, p, foreachTask(t, "foreach_function", alloc, 1, "9"), input("x", "y"))
	checkRows(t, "foreach function", got, err)
	if out := readOut(t, dir, "rows"); out != "Row(n=1, s='x')\nRow(n=2, s='y')\n" {
		t.Errorf("the function's rows: %q", out)
	}

	// An epoch with no rows still opens and closes the writer (one task per partition).
	got, _, err = run(t, p, foreachTask(t, "foreach_writer", alloc, 2, "10"))
	checkRows(t, "empty epoch", got, err)
	if out := readOut(t, dir, "writer-2-10"); out != "open 2 10\nclose None\n" {
		t.Errorf("the empty epoch's calls: %q", out)
	}
}
