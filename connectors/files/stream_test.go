package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fakeMetadata is an in-memory MetadataStore.
type fakeMetadata struct {
	data []byte
	ok   bool
}

func (m *fakeMetadata) Get() ([]byte, bool, error) { return m.data, m.ok, nil }
func (m *fakeMetadata) Put(b []byte) error {
	m.data, m.ok = append([]byte(nil), b...), true
	return nil
}

// writeAt writes a file and sets its modification time to base+sec seconds.
func writeAt(t *testing.T, dir, name, content string, sec int) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.Date(2024, 1, 1, 0, 0, sec, 0, time.UTC)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

func openFiles(t *testing.T, mem memory.Allocator, format string, opts map[string]string, schema string, meta sources.MetadataStore) sources.StreamSource {
	t.Helper()
	src, err := connectors.OpenStream(context.Background(), format, sources.StreamEnv{Mem: mem, DefaultPartitions: 2, TimeZone: "UTC", Metadata: meta}, opts, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func latest(t *testing.T, src sources.StreamSource) string {
	t.Helper()
	o, err := src.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return string(o)
}

// readAll reads (start, end] from every partition and renders the rows sorted.
func readAll(t *testing.T, src sources.StreamSource, start, end string) []string {
	t.Helper()
	var rows []string
	schema := src.Schema()
	for p := 0; p < src.Partitions(); p++ {
		err := src.Read(context.Background(), p, sources.Offset(start), sources.Offset(end), func(rec arrow.RecordBatch) error {
			defer rec.Release()
			for i := 0; i < int(rec.NumRows()); i++ {
				vals := make([]string, len(schema))
				for c, f := range schema {
					v := expr.ValueAt(rec.Column(c), i, f.Type)
					if ts, ok := v.(int64); ok && f.Type.Kind == sqltypes.Timestamp {
						v = time.UnixMicro(ts).UTC().Format(time.RFC3339Nano)
					}
					if v == nil {
						v = "NULL"
					}
					vals[c] = fmt.Sprint(v)
				}
				rows = append(rows, strings.Join(vals, "|"))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(rows)
	return rows
}

func TestFileStreamEpochsFromNewFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	writeAt(t, dir, "a.json", `{"id":1,"name":"x","ts":"2024-01-02T03:04:05.000Z"}`+"\n"+`{"id":2,"extra":true}`+"\n", 1)
	writeAt(t, dir, "b.json", `{"id":"bad","name":"y"}`+"\nnot json\n", 2)
	writeAt(t, dir, ".hidden.json", `{"id":99}`, 3)
	writeAt(t, dir, "_SUCCESS", ``, 3)
	meta := &fakeMetadata{}
	src := openFiles(t, mem, "json", map[string]string{"path": dir}, `{"type":"struct","fields":[`+
		`{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}},`+
		`{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`, meta)
	if d := src.Description(); d != "FileStreamSource["+FileURI(dir)+"]" {
		t.Fatalf("description %s", d)
	}
	init, _ := src.Initial(context.Background())
	if string(init) != `{"logOffset":-1}` {
		t.Fatalf("initial %s", init)
	}
	if got := latest(t, src); got != `{"logOffset":0}` {
		t.Fatalf("latest %s", got)
	}
	want := []string{"1|x|2024-01-02T03:04:05Z", "2|NULL|NULL", "NULL|NULL|NULL", "NULL|y|NULL"}
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("epoch 0 rows %v", got)
	}
	if got := latest(t, src); got != `{"logOffset":0}` {
		t.Fatalf("latest without new files %s", got)
	}
	writeAt(t, dir, "c.json", `{"id":3}`+"\n", 4)
	if got := latest(t, src); got != `{"logOffset":1}` {
		t.Fatalf("latest after a new file %s", got)
	}
	if got := readAll(t, src, `{"logOffset":0}`, `{"logOffset":1}`); strings.Join(got, ",") != "3|NULL|NULL" {
		t.Fatalf("epoch 1 rows %v", got)
	}
	// A restarted source (same metadata) replays an epoch with the same files, even after a
	// file of it was appended to the directory listing later.
	writeAt(t, dir, "d.json", `{"id":4}`+"\n", 5)
	again := openFiles(t, mem, "json", map[string]string{"path": dir}, "id BIGINT, name STRING, ts TIMESTAMP", meta)
	if got := readAll(t, again, `{"logOffset":0}`, `{"logOffset":1}`); strings.Join(got, ",") != "3|NULL|NULL" {
		t.Fatalf("replayed epoch 1 rows %v", got)
	}
	if got := latest(t, again); got != `{"logOffset":2}` {
		t.Fatalf("latest after restart %s", got)
	}
	if got := readAll(t, again, `{"logOffset":1}`, `{"logOffset":2}`); strings.Join(got, ",") != "4|NULL|NULL" {
		t.Fatalf("epoch 2 rows %v", got)
	}
}

func TestFileStreamMaxFilesPerTriggerAndLatestFirst(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	for i, name := range []string{"f1.txt", "f2.txt", "f3.txt"} {
		writeAt(t, dir, name, fmt.Sprintf("line %d\n", i+1), i)
	}
	src := openFiles(t, mem, "text", map[string]string{"path": dir, "maxFilesPerTrigger": "2"}, "", nil)
	if got := latest(t, src); got != `{"logOffset":0}` {
		t.Fatalf("latest %s", got)
	}
	// Not read yet: Latest stays at the planned batch instead of growing it.
	if got := latest(t, src); got != `{"logOffset":0}` {
		t.Fatalf("latest again %s", got)
	}
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != "line 1,line 2" {
		t.Fatalf("epoch 0 %v", got)
	}
	// The listing found three files and logged two: one is outstanding after epoch 0.
	outstanding := func(end string) string {
		return src.(sources.ReportsMetrics).Metrics(sources.Offset(end))["numFilesOutstanding"]
	}
	if got := outstanding(`{"logOffset":0}`); got != "1" {
		t.Fatalf("files outstanding after epoch 0: %s", got)
	}
	if got := latest(t, src); got != `{"logOffset":1}` {
		t.Fatalf("latest %s", got)
	}
	if got := readAll(t, src, `{"logOffset":0}`, `{"logOffset":1}`); strings.Join(got, ",") != "line 3" {
		t.Fatalf("epoch 1 %v", got)
	}
	if got := outstanding(`{"logOffset":1}`); got != "0" {
		t.Fatalf("files outstanding after epoch 1: %s", got)
	}

	newest := openFiles(t, mem, "text", map[string]string{"path": dir, "maxFilesPerTrigger": "1", "latestFirst": "true"}, "", nil)
	latest(t, newest)
	if got := readAll(t, newest, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != "line 3" {
		t.Fatalf("latestFirst epoch 0 %v", got)
	}
	latest(t, newest)
	if got := readAll(t, newest, `{"logOffset":0}`, `{"logOffset":1}`); strings.Join(got, ",") != "line 2" {
		t.Fatalf("latestFirst epoch 1 %v", got)
	}
}

func TestFileStreamSchemaAndOptions(t *testing.T) {
	_, err := connectors.StreamSchema("json", map[string]string{"path": "/tmp/x"}, "")
	want := "Schema must be specified when creating a streaming source DataFrame. If some files already exist in the " +
		"directory, then depending on the file format you may be able to create a static DataFrame on that directory " +
		"with 'spark.read.load(directory)' and infer schema from it."
	if err == nil || err.Error() != want {
		t.Fatalf("got %v", err)
	}
	if _, err := connectors.StreamSchema("parquet", nil, "a INT"); err == nil || err.Error() != "'path' is not specified" {
		t.Fatalf("got %v", err)
	}
	s, err := connectors.StreamSchema("text", map[string]string{"PATH": "/tmp/x"}, "")
	if err != nil || len(s) != 1 || s[0].Name != "value" || s[0].Type.Kind != sqltypes.String {
		t.Fatalf("text schema %v %v", s, err)
	}
	if _, err := connectors.StreamSchema("csv", map[string]string{"path": "/x", "maxFilesPerTrigger": "0"}, "a INT"); err == nil {
		t.Fatal("maxFilesPerTrigger=0 accepted")
	}
}

func TestFileStreamCSV(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	writeAt(t, dir, "a.csv", "id;name;score\n1;\"a;b\";2.5\n2;;x\n3;\"\";\n4;\"q\\\"z\";1e3\n", 1)
	src := openFiles(t, mem, "csv", map[string]string{"path": dir, "header": "true", "sep": ";"}, "id INT, name STRING, score DOUBLE", nil)
	latest(t, src)
	want := []string{"1|a;b|2.5", "2|NULL|NULL", "3||NULL", `4|q"z|1000`}
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %q", got)
	}
}

func TestFileStreamReadsOnlyCommittedFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	writeAt(t, dir, "part-00000-00000-a.json", `{"v":1}`+"\n", 1)
	writeAt(t, dir, "part-00001-00000-b.json", `{"v":2}`+"\n", 2) // staged, never committed
	info, err := os.Stat(filepath.Join(dir, "part-00000-00000-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := WriteSinkLog(dir, 0, []SinkFileStatus{NewSinkFileStatus(filepath.Join(dir, "part-00000-00000-a.json"), info)}); err != nil || !ok {
		t.Fatalf("write log: %v %v", ok, err)
	}
	// Writing an epoch again is refused (idempotent commit).
	if ok, err := WriteSinkLog(dir, 0, nil); err != nil || ok {
		t.Fatalf("rewrite log: %v %v", ok, err)
	}
	src := openFiles(t, mem, "json", map[string]string{"path": dir}, "v INT", nil)
	latest(t, src)
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != "1" {
		t.Fatalf("rows %v", got)
	}
	// The batch reader sees the same.
	schema, err := FileBatchSchema(nil, "json", map[string]string{"path": dir}, nil, "")
	if err != nil || len(schema) != 1 || schema[0].Name != "v" || schema[0].Type.Kind != sqltypes.Long {
		t.Fatalf("inferred %v %v", schema, err)
	}
}

// collectEmitter gathers a flow source's batches.
type collectEmitter struct{ recs []arrow.RecordBatch }

func (c *collectEmitter) Emit(_ context.Context, rec arrow.RecordBatch) error {
	c.recs = append(c.recs, rec)
	return nil
}

func TestFileBatchReadsAndInfers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	writeAt(t, dir, "a.json", `{"b":1,"a":"x"}`+"\n"+`{"b":2.5,"c":[1,2],"d":null}`+"\n", 1)
	schema, err := FileBatchSchema(nil, "json", nil, []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := schema.AsStruct().String(); got != "struct<a:string,b:double,c:array<bigint>,d:string>" {
		t.Fatalf("schema %s", got)
	}
	src := FileBatch{Format: "json", Paths: []string{dir}, Schema: schema, TimeZone: "UTC"}
	event := flow.EventSchema(sqltypes.ToArrowSchema(schema, "UTC"))
	var out collectEmitter
	if err := src.Run(context.Background(), flow.Env{Mem: mem, Partitions: 1, OutSchema: event}, &out); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, rec := range out.recs {
		user := flow.UserColumns(rec)
		for i := 0; i < int(user.NumRows()); i++ {
			var vals []string
			for c, f := range schema {
				vals = append(vals, fmt.Sprint(expr.ValueAt(user.Column(c), i, f.Type)))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
		user.Release()
		rec.Release()
	}
	if strings.Join(rows, ",") != "x|1|<nil>|<nil>,<nil>|2.5|[1 2]|<nil>" {
		t.Fatalf("rows %v", rows)
	}
	_, err = FileBatchSchema(nil, "parquet", nil, []string{filepath.Join(dir, "missing")}, "")
	if err == nil || !strings.Contains(err.Error(), "[PATH_NOT_FOUND] Path does not exist: file://") {
		t.Fatalf("missing path: %v", err)
	}
	empty := t.TempDir()
	_, err = FileBatchSchema(nil, "parquet", nil, []string{empty}, "")
	if err == nil || !strings.Contains(err.Error(), "Unable to infer schema for Parquet. It must be specified manually.") {
		t.Fatalf("empty dir: %v", err)
	}
}

func TestFileStreamParquetConformsToTheSchema(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	// A file with nanosecond timestamps (as Spark's INT96 columns read), an int column read as
	// bigint, a string column read as int, and no column "missing".
	as := arrow.NewSchema([]arrow.Field{
		{Name: "TS", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, as)
	b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1_500_000_001, -1}, nil)
	b.Field(1).(*array.Int32Builder).AppendValues([]int32{7, 8}, []bool{true, false})
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"12", "x"}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	f, err := os.Create(filepath.Join(dir, "a.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(as, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) // settled
	if err := os.Chtimes(f.Name(), old, old); err != nil {
		t.Fatal(err)
	}
	src := openFiles(t, mem, "parquet", map[string]string{"path": dir}, "ts TIMESTAMP, n BIGINT, s INT, missing STRING", nil)
	latest(t, src)
	want := []string{"1969-12-31T23:59:59.999999Z|NULL|NULL|NULL", "1970-01-01T00:00:01.5Z|7|12|NULL"}
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %q", got)
	}
}

func TestFileStreamGlobPath(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	for _, sub := range []string{"2024-01", "2024-02", "_tmp"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		writeAt(t, filepath.Join(dir, sub), "x.txt", sub+"\n", 1)
		writeAt(t, filepath.Join(dir, sub), "y.csv", "skip\n", 1)
	}
	src := openFiles(t, mem, "text", map[string]string{"path": filepath.Join(dir, "*", "*.txt")}, "", nil)
	latest(t, src)
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != "2024-01,2024-02" {
		t.Fatalf("rows %v", got)
	}
	if _, err := FileBatchSchema(nil, "csv", nil, []string{filepath.Join(dir, "nothing*")}, ""); err == nil ||
		!strings.Contains(err.Error(), "PATH_NOT_FOUND") {
		t.Fatalf("unmatched glob: %v", err)
	}
}

// lineFiles writes n one-line files f1.txt ("line 1") .. fn.txt, a second apart, into a new
// directory.
func lineFiles(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		writeAt(t, dir, fmt.Sprintf("f%d.txt", i+1), fmt.Sprintf("line %d\n", i+1), i)
	}
	return dir
}

// Trigger.AvailableNow over files with maxFilesPerTrigger: PrepareAvailableNow logs every file
// there now in batches of at most maxFilesPerTrigger (the last is the target); each Latest
// after an epoch is the next batch; a file written after the call is never read.
func TestFileStreamAvailableNowBatchesByMaxFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := lineFiles(t, 5)
	meta := &fakeMetadata{}
	src := openFiles(t, mem, "text", map[string]string{"path": dir, "maxFilesPerTrigger": "2"}, "", meta)
	ctx := context.Background()
	target, err := src.(sources.AvailableNow).PrepareAvailableNow(ctx, sources.Offset(`{"logOffset":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(target) != `{"logOffset":2}` {
		t.Fatalf("target %s", target)
	}
	writeAt(t, dir, "late.txt", "late\n", 9)
	var epochs []string
	cur := `{"logOffset":-1}`
	for range 5 {
		end := latest(t, src)
		if end == cur {
			break
		}
		epochs = append(epochs, strings.Join(readAll(t, src, cur, end), ","))
		cur = end
	}
	if got := strings.Join(epochs, " / "); got != "line 1,line 2 / line 3,line 4 / line 5" {
		t.Fatalf("epochs %s", got)
	}
	// The batches are in the metadata: a restarted query replays them as logged.
	if !strings.Contains(string(meta.data), "f5.txt") || strings.Contains(string(meta.data), "late.txt") {
		t.Fatalf("metadata %s", meta.data)
	}
}

// Trigger.Once ignores maxFilesPerTrigger: LatestAndAvailable logs every file there now in
// batches of at most maxFilesPerTrigger and reports the last as available, so one epoch reads
// them all; a default trigger's next epoch still takes one batch.
func TestFileStreamAvailableIgnoresMaxFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := lineFiles(t, 3)
	src := openFiles(t, mem, "text", map[string]string{"path": dir, "maxFilesPerTrigger": "1"}, "", nil)
	next, avail, err := src.(sources.RateLimited).LatestAndAvailable(context.Background(), sources.Offset(`{"logOffset":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(next) != `{"logOffset":0}` || string(avail) != `{"logOffset":2}` {
		t.Fatalf("latest %s available %s", next, avail)
	}
	if got := readAll(t, src, `{"logOffset":-1}`, string(avail)); strings.Join(got, ",") != "line 1,line 2,line 3" {
		t.Fatalf("once epoch %v", got)
	}
	writeAt(t, dir, "f4.txt", "line 4\n", 5)
	writeAt(t, dir, "f5.txt", "line 5\n", 6)
	if got := latest(t, src); got != `{"logOffset":3}` {
		t.Fatalf("next latest %s", got)
	}
	if got := readAll(t, src, `{"logOffset":2}`, `{"logOffset":3}`); strings.Join(got, ",") != "line 4" {
		t.Fatalf("next epoch %v", got)
	}
}

// A restarted availableNow query over files logged in batches of maxFilesPerTrigger keeps
// reading one batch per epoch from where its epochs stood: the batches logged before the
// restart but not read yet are not taken in one epoch.
func TestFileStreamAvailableNowRestartKeepsMaxFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := lineFiles(t, 4)
	meta := &fakeMetadata{}
	opts := map[string]string{"path": dir, "maxFilesPerTrigger": "1"}
	ctx := context.Background()
	src := openFiles(t, mem, "text", opts, "", meta)
	if _, err := src.(sources.AvailableNow).PrepareAvailableNow(ctx, sources.Offset(`{"logOffset":-1}`)); err != nil {
		t.Fatal(err)
	}
	first, err := src.(sources.StartRelative).LatestFrom(ctx, sources.Offset(`{"logOffset":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, src, `{"logOffset":-1}`, string(first)); strings.Join(got, ",") != "line 1" {
		t.Fatalf("first epoch %v", got)
	}
	// The query stops after the first epoch and starts again from its checkpoint.
	src.Close()
	src = openFiles(t, mem, "text", opts, "", meta)
	target, err := src.(sources.AvailableNow).PrepareAvailableNow(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if string(target) != `{"logOffset":3}` {
		t.Fatalf("target %s", target)
	}
	var epochs []string
	cur := string(first)
	for range 5 {
		end, err := src.(sources.StartRelative).LatestFrom(ctx, sources.Offset(cur))
		if err != nil {
			t.Fatal(err)
		}
		if string(end) == cur {
			break
		}
		epochs = append(epochs, strings.Join(readAll(t, src, cur, string(end)), ","))
		cur = string(end)
	}
	if got := strings.Join(epochs, " / "); got != "line 2 / line 3 / line 4" {
		t.Fatalf("epochs after the restart %s", got)
	}
}
