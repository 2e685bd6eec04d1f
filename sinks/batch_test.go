package sinks

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// batchHarness drives a batch sink's partitions as the engine's write job does: rows, then
// EndOfData on every partition, then Finish.
type batchHarness struct {
	t      *testing.T
	mem    *memory.CheckedAllocator
	schema sqltypes.Schema
	sink   BatchSink
	ops    []flow.Operator
	event  *arrow.Schema
}

func newBatchHarness(t *testing.T, format string, schema sqltypes.Schema, partitions int, mode SaveMode,
	options map[string]string, partitionBy ...string) (*batchHarness, error) {
	t.Helper()
	return newBatchHarnessEnv(t, format, Env{Schema: schema, TimeZone: "UTC", PartitionBy: partitionBy}, partitions, mode, options)
}

// newBatchHarnessEnv is newBatchHarness with a whole sink Env.
func newBatchHarnessEnv(t *testing.T, format string, env Env, partitions int, mode SaveMode,
	options map[string]string) (*batchHarness, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s, err := NewBatch(context.Background(), format, env, mode, options)
	if err != nil || s == nil {
		return nil, err
	}
	schema := env.Schema
	h := &batchHarness{t: t, mem: mem, schema: schema, sink: s, event: flow.EventSchema(sqltypes.ToArrowSchema(schema, "UTC"))}
	h.ops = newOperators(t, mem, s, partitions, h.event)
	return h, nil
}

func (h *batchHarness) push(p int, rows ...[]any) {
	h.t.Helper()
	pushRows(h.t, h.mem, h.ops[p], h.event, h.schema, rows...)
}

// pushRows sends rows (values in schema order) to op as one data batch.
func pushRows(t *testing.T, mem memory.Allocator, op flow.Operator, event *arrow.Schema, schema sqltypes.Schema, rows ...[]any) {
	t.Helper()
	cols := make([]arrow.Array, len(schema))
	for c, f := range schema {
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r[c]
		}
		cols[c] = expr.BuildArray(mem, f.Type, "UTC", vals)
	}
	rec := flow.NewDataBatch(mem, event, cols, nil)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	if err := op.Process(context.Background(), 0, rec, nil); err != nil {
		t.Fatal(err)
	}
}

// newOperators builds a sink's operators for upstream partitions, closed (and the allocator
// checked) when the test ends.
func newOperators(t *testing.T, mem *memory.CheckedAllocator, s Sink, partitions int, event *arrow.Schema) []flow.Operator {
	t.Helper()
	n := s.Parallelism(partitions)
	var ops []flow.Operator
	for p := 0; p < n; p++ {
		op, err := s.NewOperator(flow.Env{Mem: mem, Partition: p, Partitions: n, OutSchema: event})
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, op)
	}
	t.Cleanup(func() {
		for _, op := range ops {
			op.(flow.Closer).Close()
		}
		mem.AssertSize(t, 0)
	})
	return ops
}

// end ends every partition's input and finishes the write.
func (h *batchHarness) end() error {
	for _, op := range h.ops {
		if err := op.(flow.EndOfDataHandler).EndOfData(context.Background(), nil); err != nil {
			return err
		}
	}
	return h.sink.Finish(context.Background())
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func partFiles(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, "part-") {
			out = append(out, n)
		}
	}
	return out
}

// readBack reads dir with the batch file reader, rows rendered "v1|v2" and sorted.
func readBack(t *testing.T, format, dir string, schema sqltypes.Schema, options map[string]string) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := sources.FileBatch{Format: format, Options: options, Paths: []string{dir}, Schema: schema, TimeZone: "UTC"}
	out := &collectEmitter{}
	event := flow.EventSchema(sqltypes.ToArrowSchema(schema, "UTC"))
	if err := src.Run(context.Background(), flow.Env{Mem: mem, Partition: 0, Partitions: 1, OutSchema: event}, out); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, rec := range out.recs {
		user := flow.UserColumns(rec)
		for i := 0; i < int(user.NumRows()); i++ {
			vals := make([]string, len(schema))
			for c, f := range schema {
				vals[c] = renderValue(expr.ValueAt(user.Column(c), i, f.Type))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
		user.Release()
		rec.Release()
	}
	sort.Strings(rows)
	return rows
}

type collectEmitter struct{ recs []arrow.RecordBatch }

func (c *collectEmitter) Emit(_ context.Context, rec arrow.RecordBatch) error {
	c.recs = append(c.recs, rec)
	return nil
}

func renderValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case int64:
		return itoa64(x)
	case int32:
		return itoa(int(x))
	}
	return "?"
}

var batchSchema = sqltypes.Schema{
	{Name: "id", Type: sqltypes.DataType{Kind: sqltypes.Long}, Nullable: true},
	{Name: "name", Type: sqltypes.StringType, Nullable: true},
}

func TestFileBatchWritesPartFilesAndSuccess(t *testing.T) {
	for _, format := range []string{"parquet", "json", "csv"} {
		t.Run(format, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			h, err := newBatchHarness(t, format, batchSchema, 2, SaveErrorIfExists, map[string]string{"path": dir, "header": "true"})
			if err != nil {
				t.Fatal(err)
			}
			h.push(0, []any{int64(1), "a"}, []any{int64(2), nil})
			h.push(1, []any{int64(3), "c"})
			if err := h.end(); err != nil {
				t.Fatal(err)
			}
			names := listDir(t, dir)
			parts := partFiles(names)
			if len(parts) != 2 || len(names) != 3 || names[0] != "_SUCCESS" {
				t.Fatalf("files %v", names)
			}
			// Spark's batch names: part-<partition>-<one job uuid>-c000.<ext>.
			job := strings.TrimPrefix(parts[0], "part-00000-")
			if !strings.HasPrefix(parts[1], "part-00001-") || strings.TrimPrefix(parts[1], "part-00001-") != job ||
				!strings.HasSuffix(job, "-c000."+h.sink.(batchSink).Sink.(*fileSink).format.ext) {
				t.Fatalf("part names %v", parts)
			}
			if n := h.sink.OutputRows(); n != 3 {
				t.Fatalf("output rows %d", n)
			}
			got := readBack(t, format, dir, batchSchema, map[string]string{"header": "true"})
			if strings.Join(got, ",") != "1|a,2|null,3|c" {
				t.Fatalf("read back %v", got)
			}
		})
	}
}

func TestFileBatchSaveModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	write := func(mode SaveMode, rows ...[]any) error {
		h, err := newBatchHarness(t, "json", batchSchema, 1, mode, map[string]string{"path": dir})
		if err != nil || h == nil {
			return err
		}
		h.push(0, rows...)
		return h.end()
	}
	if err := write(SaveErrorIfExists, []any{int64(1), "a"}); err != nil {
		t.Fatal(err)
	}
	err := write(SaveErrorIfExists, []any{int64(2), "b"})
	want := `error: org.apache.spark.sql.AnalysisException: [PATH_ALREADY_EXISTS] Path file:` + dir +
		` already exists. Set mode as "overwrite" to overwrite the existing path. SQLSTATE: 42K04` + "\n"
	if got := errText(err); got != want {
		t.Fatalf("errorifexists on an existing path:\n got %s\nwant %s", got, want)
	}
	if h, err := newBatchHarness(t, "json", batchSchema, 1, SaveIgnore, map[string]string{"path": dir}); h != nil || err != nil {
		t.Fatalf("ignore on an existing path: sink %v err %v", h, err)
	}
	if err := write(SaveAppend, []any{int64(3), "c"}); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, "json", dir, batchSchema, nil); strings.Join(got, ",") != "1|a,3|c" {
		t.Fatalf("after append %v", got)
	}
	if len(partFiles(listDir(t, dir))) != 2 {
		t.Fatalf("after append %v", listDir(t, dir))
	}
	if err := write(SaveOverwrite, []any{int64(4), "d"}); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, "json", dir, batchSchema, nil); strings.Join(got, ",") != "4|d" {
		t.Fatalf("after overwrite %v", got)
	}
	if names := listDir(t, dir); len(names) != 2 || names[0] != "_SUCCESS" {
		t.Fatalf("after overwrite %v", names)
	}
	// A new path in ignore mode is written.
	other := filepath.Join(t.TempDir(), "new")
	h, err := newBatchHarness(t, "json", batchSchema, 1, SaveIgnore, map[string]string{"path": other})
	if err != nil || h == nil {
		t.Fatalf("ignore on a new path: %v", err)
	}
	h.push(0, []any{int64(5), "e"})
	if err := h.end(); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, "json", other, batchSchema, nil); strings.Join(got, ",") != "5|e" {
		t.Fatalf("ignore on a new path %v", got)
	}
}

func TestFileBatchEmptyWriteKeepsSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	h, err := newBatchHarness(t, "parquet", batchSchema, 2, SaveErrorIfExists, map[string]string{"path": dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.end(); err != nil {
		t.Fatal(err)
	}
	names := listDir(t, dir)
	if len(partFiles(names)) != 1 || names[0] != "_SUCCESS" {
		t.Fatalf("files %v", names)
	}
	schema, err := sources.FileBatchSchema(nil, "parquet", map[string]string{}, []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(schema) != 2 || schema[0].Name != "id" || schema[0].Type.Kind != sqltypes.Long || schema[1].Name != "name" {
		t.Fatalf("schema %v", schema)
	}
	if got := readBack(t, "parquet", dir, batchSchema, nil); len(got) != 0 {
		t.Fatalf("rows %v", got)
	}
}

func TestFileBatchPartitionBy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	h, err := newBatchHarness(t, "json", batchSchema, 1, SaveErrorIfExists, map[string]string{"path": dir}, "name")
	if err != nil {
		t.Fatal(err)
	}
	h.push(0, []any{int64(1), "a"}, []any{int64(2), "b"}, []any{int64(3), "a"})
	if err := h.end(); err != nil {
		t.Fatal(err)
	}
	if names := listDir(t, dir); strings.Join(names, ",") != "_SUCCESS,name=a,name=b" {
		t.Fatalf("layout %v", names)
	}
	idOnly := batchSchema[:1]
	if got := readBack(t, "json", filepath.Join(dir, "name=a"), idOnly, nil); strings.Join(got, ",") != "1,3" {
		t.Fatalf("name=a %v", got)
	}
}

func TestFileBatchText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	schema := sqltypes.Schema{{Name: "value", Type: sqltypes.StringType, Nullable: true}}
	h, err := newBatchHarness(t, "text", schema, 1, SaveErrorIfExists, map[string]string{"path": dir})
	if err != nil {
		t.Fatal(err)
	}
	h.push(0, []any{"hello"}, []any{nil}, []any{"wo,rld"})
	if err := h.end(); err != nil {
		t.Fatal(err)
	}
	parts := partFiles(listDir(t, dir))
	if len(parts) != 1 || !strings.HasSuffix(parts[0], "-c000.txt") {
		t.Fatalf("files %v", parts)
	}
	if got := readText(t, dir, parts); got != "hello\n\nwo,rld\n" {
		t.Fatalf("text %q", got)
	}
	_, err = newBatchHarness(t, "text", batchSchema, 1, SaveErrorIfExists, map[string]string{"path": filepath.Join(t.TempDir(), "x")})
	if got := errText(err); got != "error: org.apache.spark.sql.AnalysisException: [_LEGACY_ERROR_TEMP_1135] Text data source supports only a single column, and you have 2 columns.\n" {
		t.Fatalf("two columns: %s", got)
	}
	_, err = newBatchHarness(t, "text", batchSchema[:1], 1, SaveErrorIfExists, map[string]string{"path": filepath.Join(t.TempDir(), "x")})
	if got := errText(err); !strings.Contains(got, "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The Text datasource doesn't support the column `id` of the type \"BIGINT\".") {
		t.Fatalf("bigint column: %s", got)
	}
}

func TestBatchFormatsAndModes(t *testing.T) {
	for _, tc := range []struct {
		format string
		mode   SaveMode
		opts   map[string]string
		part   []string
		want   string
	}{
		{"parquet", SaveErrorIfExists, map[string]string{}, nil, "'path' is not specified"},
		{"avro", SaveAppend, map[string]string{"path": "/tmp/x"}, nil, "[DATA_SOURCE_NOT_FOUND] Failed to find the data source: avro. Weir's batch writers are: csv, json, kafka, noop, parquet, text."},
		{"memory", SaveAppend, map[string]string{}, nil, "Data source memory does not support batch writes"},
		{"noop", SaveErrorIfExists, map[string]string{}, nil, "TableProvider implementation noop cannot be written with ErrorIfExists mode, please use Append or Overwrite modes instead."},
		{"noop", SaveIgnore, map[string]string{}, nil, "cannot be written with Ignore mode"},
		{"kafka", SaveOverwrite, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}, nil, "Save mode Overwrite not allowed for Kafka. Allowed save modes are Append and ErrorIfExists (default)."},
		{"kafka", SaveIgnore, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}, nil, "Save mode Ignore not allowed for Kafka."},
		{"kafka", SaveAppend, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}, []string{"id"}, "'kafka' does not support partitioning."},
		{"kafka", SaveAppend, map[string]string{"kafka.bootstrap.servers": "h:1"}, nil, "topic option required when no 'topic' attribute is present."},
		{"kafka", SaveAppend, map[string]string{"topic": "t"}, nil, "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer"},
	} {
		_, err := NewBatch(context.Background(), tc.format, Env{Schema: batchSchema, PartitionBy: tc.part}, tc.mode, tc.opts)
		if got := errText(err); !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: got %q, want %q", tc.format, tc.mode, got, tc.want)
		}
	}
	_, err := NewBatch(context.Background(), "kafka", Env{Schema: batchSchema[:1]}, SaveAppend, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"})
	if got := errText(err); !strings.Contains(got, "Required attribute 'value' not found") {
		t.Errorf("kafka without value: %s", got)
	}
	h, err := newBatchHarness(t, "noop", batchSchema, 2, SaveOverwrite, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.push(0, []any{int64(1), "a"})
	h.push(1, []any{int64(2), "b"}, []any{int64(3), "c"})
	if err := h.end(); err != nil {
		t.Fatal(err)
	}
	if n := h.sink.OutputRows(); n != 3 {
		t.Fatalf("noop rows %d", n)
	}
}
