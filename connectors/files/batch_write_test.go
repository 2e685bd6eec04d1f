package files

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

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
	src := FileBatch{Format: format, Options: options, Paths: []string{dir}, Schema: schema, TimeZone: "UTC"}
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

func renderValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.Itoa(int(x))
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
			h, err := sinktest.NewBatchHarness(t, format, batchSchema, 2, sinks.SaveErrorIfExists, map[string]string{"path": dir, "header": "true"})
			if err != nil {
				t.Fatal(err)
			}
			h.Push(0, []any{int64(1), "a"}, []any{int64(2), nil})
			h.Push(1, []any{int64(3), "c"})
			if err := h.End(); err != nil {
				t.Fatal(err)
			}
			names := sinktest.ListDir(t, dir)
			parts := partFiles(names)
			if len(parts) != 2 || len(names) != 3 || names[0] != "_SUCCESS" {
				t.Fatalf("files %v", names)
			}
			// Spark's batch names: part-<partition>-<one job uuid>-c000.<ext>.
			job := strings.TrimPrefix(parts[0], "part-00000-")
			if !strings.HasPrefix(parts[1], "part-00001-") || strings.TrimPrefix(parts[1], "part-00001-") != job ||
				!strings.HasSuffix(job, "-c000."+h.Sink.(sinks.BatchAdapter).Sink.(*fileSink).format.ext) {
				t.Fatalf("part names %v", parts)
			}
			if n := h.Sink.OutputRows(); n != 3 {
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
	write := func(mode sinks.SaveMode, rows ...[]any) error {
		h, err := sinktest.NewBatchHarness(t, "json", batchSchema, 1, mode, map[string]string{"path": dir})
		if err != nil || h == nil {
			return err
		}
		h.Push(0, rows...)
		return h.End()
	}
	if err := write(sinks.SaveErrorIfExists, []any{int64(1), "a"}); err != nil {
		t.Fatal(err)
	}
	err := write(sinks.SaveErrorIfExists, []any{int64(2), "b"})
	want := `error: org.apache.spark.sql.AnalysisException: [PATH_ALREADY_EXISTS] Path file:` + dir +
		` already exists. Set mode as "overwrite" to overwrite the existing path. SQLSTATE: 42K04` + "\n"
	if got := sinktest.ErrText(err); got != want {
		t.Fatalf("errorifexists on an existing path:\n got %s\nwant %s", got, want)
	}
	if h, err := sinktest.NewBatchHarness(t, "json", batchSchema, 1, sinks.SaveIgnore, map[string]string{"path": dir}); h != nil || err != nil {
		t.Fatalf("ignore on an existing path: sink %v err %v", h, err)
	}
	if err := write(sinks.SaveAppend, []any{int64(3), "c"}); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, "json", dir, batchSchema, nil); strings.Join(got, ",") != "1|a,3|c" {
		t.Fatalf("after append %v", got)
	}
	if len(partFiles(sinktest.ListDir(t, dir))) != 2 {
		t.Fatalf("after append %v", sinktest.ListDir(t, dir))
	}
	if err := write(sinks.SaveOverwrite, []any{int64(4), "d"}); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, "json", dir, batchSchema, nil); strings.Join(got, ",") != "4|d" {
		t.Fatalf("after overwrite %v", got)
	}
	if names := sinktest.ListDir(t, dir); len(names) != 2 || names[0] != "_SUCCESS" {
		t.Fatalf("after overwrite %v", names)
	}
	// A new path in ignore mode is written.
	other := filepath.Join(t.TempDir(), "new")
	h, err := sinktest.NewBatchHarness(t, "json", batchSchema, 1, sinks.SaveIgnore, map[string]string{"path": other})
	if err != nil || h == nil {
		t.Fatalf("ignore on a new path: %v", err)
	}
	h.Push(0, []any{int64(5), "e"})
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, "json", other, batchSchema, nil); strings.Join(got, ",") != "5|e" {
		t.Fatalf("ignore on a new path %v", got)
	}
}

func TestFileBatchEmptyWriteKeepsSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	h, err := sinktest.NewBatchHarness(t, "parquet", batchSchema, 2, sinks.SaveErrorIfExists, map[string]string{"path": dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	names := sinktest.ListDir(t, dir)
	if len(partFiles(names)) != 1 || names[0] != "_SUCCESS" {
		t.Fatalf("files %v", names)
	}
	schema, err := FileBatchSchema(nil, "parquet", map[string]string{}, []string{dir}, "")
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
	h, err := sinktest.NewBatchHarness(t, "json", batchSchema, 1, sinks.SaveErrorIfExists, map[string]string{"path": dir}, "name")
	if err != nil {
		t.Fatal(err)
	}
	h.Push(0, []any{int64(1), "a"}, []any{int64(2), "b"}, []any{int64(3), "a"})
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	if names := sinktest.ListDir(t, dir); strings.Join(names, ",") != "_SUCCESS,name=a,name=b" {
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
	h, err := sinktest.NewBatchHarness(t, "text", schema, 1, sinks.SaveErrorIfExists, map[string]string{"path": dir})
	if err != nil {
		t.Fatal(err)
	}
	h.Push(0, []any{"hello"}, []any{nil}, []any{"wo,rld"})
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	parts := partFiles(sinktest.ListDir(t, dir))
	if len(parts) != 1 || !strings.HasSuffix(parts[0], "-c000.txt") {
		t.Fatalf("files %v", parts)
	}
	if got := readText(t, dir, parts); got != "hello\n\nwo,rld\n" {
		t.Fatalf("text %q", got)
	}
	_, err = sinktest.NewBatchHarness(t, "text", batchSchema, 1, sinks.SaveErrorIfExists, map[string]string{"path": filepath.Join(t.TempDir(), "x")})
	if got := sinktest.ErrText(err); got != "error: org.apache.spark.sql.AnalysisException: [_LEGACY_ERROR_TEMP_1135] Text data source supports only a single column, and you have 2 columns.\n" {
		t.Fatalf("two columns: %s", got)
	}
	_, err = sinktest.NewBatchHarness(t, "text", batchSchema[:1], 1, sinks.SaveErrorIfExists, map[string]string{"path": filepath.Join(t.TempDir(), "x")})
	if got := sinktest.ErrText(err); !strings.Contains(got, "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The Text datasource doesn't support the column `id` of the type \"BIGINT\".") {
		t.Fatalf("bigint column: %s", got)
	}
}
