package files

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var fileTestSchema = sqltypes.Schema{
	{Name: "id", Type: sqltypes.DataType{Kind: sqltypes.Long}, Nullable: true},
	{Name: "name", Type: sqltypes.DataType{Kind: sqltypes.String}, Nullable: true},
	{Name: "ts", Type: sqltypes.DataType{Kind: sqltypes.Timestamp}, Nullable: true},
	{Name: "score", Type: sqltypes.DataType{Kind: sqltypes.Double}, Nullable: true},
}

// ts20240102 is 2024-01-02T03:04:05.678901Z in microseconds.
var ts20240102 = time.Date(2024, 1, 2, 3, 4, 5, 678901000, time.UTC).UnixMicro()

// fileHarness drives a file sink's partitions as the runtime does.
type fileHarness struct {
	t     *testing.T
	mem   *memory.CheckedAllocator
	sink  sinks.Sink
	ops   []flow.Operator
	event *arrow.Schema
	dir   string
}

func newFileHarness(t *testing.T, format string, partitions int, options map[string]string) *fileHarness {
	t.Helper()
	return newPartitionedHarness(t, format, partitions, options, nil)
}

// newPartitionedHarness is newFileHarness with writeStream.partitionBy's columns.
func newPartitionedHarness(t *testing.T, format string, partitions int, options map[string]string, partitionBy []string) *fileHarness {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dir := filepath.Join(t.TempDir(), "out")
	opts := map[string]string{"path": dir, "checkpointLocation": filepath.Join(t.TempDir(), "cp")}
	for k, v := range options {
		opts[k] = v
	}
	s, err := connectors.NewSink(format, sinks.Env{Mode: flow.OutputAppend, Schema: fileTestSchema, TimeZone: "UTC", PartitionBy: partitionBy}, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &fileHarness{t: t, mem: mem, sink: s, dir: opts["path"],
		event: flow.EventSchema(sqltypes.ToArrowSchema(fileTestSchema, "UTC"))}
	h.ops = sinktest.NewOperators(t, mem, s, partitions, h.event)
	return h
}

// push sends rows (id, name, ts, score) to partition p.
func (h *fileHarness) push(p int, rows ...[]any) {
	h.t.Helper()
	sinktest.PushRows(h.t, h.mem, h.ops[p], h.event, fileTestSchema, rows...)
}

func (h *fileHarness) barrier(epoch int64) {
	h.t.Helper()
	for _, op := range h.ops {
		if err := op.(flow.BarrierHandler).Barrier(context.Background(), epoch, nil); err != nil {
			h.t.Fatal(err)
		}
	}
}

// dataFiles lists the part files in the output directory (committed or not), sorted.
func (h *fileHarness) dataFiles() []string {
	h.t.Helper()
	entries, err := os.ReadDir(h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "part-") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// committed lists the base names the commit log lists.
func (h *fileHarness) committed() []string {
	h.t.Helper()
	files, ok, err := ReadSinkLog(h.dir)
	if err != nil || !ok {
		h.t.Fatalf("read log of %s: ok=%v err=%v", h.dir, ok, err)
	}
	var out []string
	for _, f := range files {
		out = append(out, filepath.Base(LocalPath(f.Path)))
	}
	sort.Strings(out)
	return out
}

func readText(t *testing.T, dir string, names []string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

func TestFileSinkNeedsCheckpointLocationAndPath(t *testing.T) {
	_, err := connectors.NewSink("parquet", sinks.Env{Mode: flow.OutputAppend, Schema: fileTestSchema}, map[string]string{"path": t.TempDir()})
	want := `org.apache.spark.sql.AnalysisException: [_LEGACY_ERROR_TEMP_1197] checkpointLocation must be specified either through ` +
		`option("checkpointLocation", ...) or SparkSession.conf.set("spark.sql.streaming.checkpointLocation", ...)`
	if got := sinktest.ErrText(err); !strings.Contains(got, want) {
		t.Fatalf("got %s", got)
	}
	_, err = connectors.NewSink("json", sinks.Env{Mode: flow.OutputAppend, Schema: fileTestSchema}, map[string]string{"CHECKPOINTLOCATION": "/tmp/cp"})
	if got := sinktest.ErrText(err); !strings.Contains(got, "'path' is not specified") {
		t.Fatalf("got %s", got)
	}
	_, err = connectors.NewSink("csv", sinks.Env{Mode: flow.OutputComplete, Schema: fileTestSchema}, map[string]string{"checkpointLocation": "/tmp/cp", "path": t.TempDir()})
	if got := sinktest.ErrText(err); !strings.Contains(got, "Invalid streaming output mode: complete") {
		t.Fatalf("got %s", got)
	}
	nested := sqltypes.Schema{{Name: "a", Type: sqltypes.ArrayType(sqltypes.DataType{Kind: sqltypes.Integer}, true), Nullable: true}}
	_, err = connectors.NewSink("csv", sinks.Env{Mode: flow.OutputAppend, Schema: nested}, map[string]string{"checkpointLocation": "/tmp/cp", "path": t.TempDir()})
	if got := sinktest.ErrText(err); !strings.Contains(got, "The CSV datasource doesn't support the column `a` of the type \"ARRAY<INT>\".") {
		t.Fatalf("got %s", got)
	}
}

func TestFileSinkJSONExactlyOnce(t *testing.T) {
	h := newFileHarness(t, "json", 2, nil)
	if d := h.sink.Description(); d != "FileSink["+h.dir+"]" {
		t.Fatalf("description %s", d)
	}
	h.push(0, []any{int64(1), "a", ts20240102, 1.5}, []any{int64(2), nil, nil, math.NaN()})
	h.push(1, []any{int64(3), `q"x`, ts20240102 + 1000, 1e7})
	h.barrier(0)
	if n := h.sink.OutputRows(); n != 3 {
		t.Fatalf("output rows %d", n)
	}
	files := h.dataFiles()
	if len(files) != 2 || !strings.HasPrefix(files[0], "part-00000-00000-") || !strings.HasPrefix(files[1], "part-00000-00001-") ||
		!strings.HasSuffix(files[0], ".json") {
		t.Fatalf("files %v", files)
	}
	if got := h.committed(); strings.Join(got, ",") != strings.Join(files, ",") {
		t.Fatalf("committed %v, files %v", got, files)
	}
	want := `{"id":1,"name":"a","ts":"2024-01-02T03:04:05.678Z","score":1.5}
{"id":2,"score":"NaN"}
{"id":3,"name":"q\"x","ts":"2024-01-02T03:04:05.679Z","score":1.0E7}
`
	if got := readText(t, h.dir, files); got != want {
		t.Fatalf("content:\n%s\nwant:\n%s", got, want)
	}
	// The log entry: "v1", then one SinkFileStatus per file.
	entry, err := os.ReadFile(filepath.Join(h.dir, "_spark_metadata", "0"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(entry), "\n")
	if lines[0] != "v1" || len(lines) != 3 {
		t.Fatalf("log entry %q", entry)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &st); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lines[1], `{"path":"file:///`) || st["action"] != "add" || st["isDir"] != false ||
		st["blockReplication"] != float64(1) || st["blockSize"] != float64(33554432) {
		t.Fatalf("log line %s", lines[1])
	}

	// A replayed epoch 0 writes nothing; epoch 1 adds one file.
	h.push(0, []any{int64(1), "a", ts20240102, 1.5})
	h.barrier(0)
	if got := h.dataFiles(); len(got) != 2 {
		t.Fatalf("replay wrote files: %v", got)
	}
	if n := h.sink.OutputRows(); n != 0 {
		t.Fatalf("replay output rows %d", n)
	}
	h.push(1, []any{int64(4), "d", nil, -0.25})
	h.barrier(1)
	if got := h.committed(); len(got) != 3 {
		t.Fatalf("committed %v", got)
	}
	// A new sink on the same directory (a restarted query) skips committed epochs too, and
	// removes the staging file a crashed run left.
	h.push(0, []any{int64(5), "crashed", nil, nil})
	staged, _ := filepath.Glob(filepath.Join(h.dir, ".part-*.tmp"))
	if len(staged) != 1 {
		t.Fatalf("staged %v", staged)
	}
	h2 := newFileHarness(t, "json", 1, map[string]string{"path": h.dir})
	if staged, _ := filepath.Glob(filepath.Join(h.dir, ".part-*.tmp")); len(staged) != 0 {
		t.Fatalf("staged after restart %v", staged)
	}
	h2.push(0, []any{int64(9), "z", nil, 0.0})
	h2.barrier(1)
	if got := h2.committed(); len(got) != 3 {
		t.Fatalf("committed after restart replay %v", got)
	}
	if got := h2.dataFiles(); len(got) != 3 {
		t.Fatalf("restart replay wrote files: %v", got)
	}
}

func TestFileSinkCSV(t *testing.T) {
	h := newFileHarness(t, "csv", 1, map[string]string{"header": "true", "sep": ";"})
	h.push(0, []any{int64(1), "a;b", ts20240102, 2.0}, []any{int64(2), "", nil, nil}, []any{nil, ` pad `, nil, 1e-4})
	h.barrier(0)
	want := `id;name;ts;score
1;"a;b";2024-01-02T03:04:05.678Z;2.0
2;"";;
;pad;;1.0E-4
`
	if got := readText(t, h.dir, h.dataFiles()); got != want {
		t.Fatalf("content:\n%s\nwant:\n%s", got, want)
	}
}

func TestFileSinkParquetReadBack(t *testing.T) {
	h := newFileHarness(t, "parquet", 2, nil)
	for epoch := int64(0); epoch < 10; epoch++ {
		h.push(int(epoch%2), []any{epoch, "row", ts20240102 + epoch, float64(epoch) / 2})
		h.barrier(epoch)
	}
	// Epoch 9 is a compaction: "9.compact" lists all ten files.
	if _, err := os.Stat(filepath.Join(h.dir, "_spark_metadata", "9.compact")); err != nil {
		t.Fatal(err)
	}
	if got := h.committed(); len(got) != 10 {
		t.Fatalf("committed %d files", len(got))
	}
	// A partition that wrote rows but whose epoch was never committed leaves a file no reader
	// sees; so does a stray part file.
	h.push(0, []any{int64(100), "uncommitted", nil, nil})
	if err := os.WriteFile(filepath.Join(h.dir, "part-00099-00000-stray.snappy.parquet"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Read every committed file with pqarrow directly.
	var ids []int64
	for _, name := range h.committed() {
		pf, err := file.OpenParquetFile(filepath.Join(h.dir, name), false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, h.mem)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if tbl.NumRows() != 1 || tbl.Schema().Field(2).Type.(*arrow.TimestampType).Unit != arrow.Microsecond {
			t.Fatalf("table %v", tbl.Schema())
		}
		col := tbl.Column(0).Data().Chunk(0)
		ids = append(ids, expr.ValueAt(col, 0, sqltypes.DataType{Kind: sqltypes.Long}).(int64))
		tbl.Release()
		pf.Close()
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if len(ids) != 10 || ids[0] != 0 || ids[9] != 9 {
		t.Fatalf("ids %v", ids)
	}

	// Read back through the file source: only committed files, all rows, exact values.
	rows := readBackRows(t, h.mem, "parquet", h.dir)
	sort.Strings(rows)
	if len(rows) != 10 || rows[0] != "0|row|2024-01-02T03:04:05.678Z|0.0" || rows[9] != "9|row|2024-01-02T03:04:05.678Z|4.5" {
		t.Fatalf("rows %v", rows)
	}
}

// readBackRows reads a file sink's directory with the file source (only committed files, through
// the commit log) and renders each row of fileTestSchema as "v|v|…" ("null" for NULL), sorted.
func readBackRows(t *testing.T, mem memory.Allocator, format, dir string) []string {
	t.Helper()
	src, err := connectors.OpenStream(context.Background(), format,
		sources.StreamEnv{Mem: mem, DefaultPartitions: 1, TimeZone: "UTC"},
		map[string]string{"path": dir}, "id BIGINT, name STRING, ts TIMESTAMP, score DOUBLE")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	end, err := src.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	err = src.Read(context.Background(), 0, sources.Offset(`{"logOffset":-1}`), end, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		for i := 0; i < int(rec.NumRows()); i++ {
			var vals []string
			for c, f := range fileTestSchema {
				v := expr.ValueAt(rec.Column(c), i, f.Type)
				if v == nil {
					vals = append(vals, "null")
					continue
				}
				vals = append(vals, scalarText(v, f.Type, time.UTC))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	return rows
}
