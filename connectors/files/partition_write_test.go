package files

import (
	"github.com/weirhq/weir/flow"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
)

// partFiles lists the part files under the output directory as slash paths relative to it.
func (h *fileHarness) partFiles() []string {
	h.t.Helper()
	var out []string
	err := filepath.WalkDir(h.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "part-") {
			rel, _ := filepath.Rel(h.dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// loggedFiles lists the files the commit log lists, relative to the output directory.
func (h *fileHarness) loggedFiles() []string {
	h.t.Helper()
	files, ok, err := ReadSinkLog(h.dir)
	if err != nil || !ok {
		h.t.Fatalf("read log: ok=%v err=%v", ok, err)
	}
	var out []string
	for _, f := range files {
		rel, err := filepath.Rel(h.dir, LocalPath(f.Path))
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

func TestFileSinkPartitionByJSON(t *testing.T) {
	h := newPartitionedHarness(t, "json", 2, nil, []string{"NAME"})
	h.push(0, []any{int64(1), "a", ts20240102, 1.5}, []any{int64(2), nil, nil, 2.0}, []any{int64(3), "a", nil, 3.0})
	h.push(1, []any{int64(4), "q/x=1", nil, 4.0}, []any{int64(5), "", nil, 5.0})
	h.barrier(0)
	if n := h.sink.OutputRows(); n != 5 {
		t.Fatalf("output rows %d", n)
	}
	files := h.partFiles()
	var dirs []string
	for _, f := range files {
		dirs = append(dirs, filepath.ToSlash(filepath.Dir(f))+"@"+f[strings.LastIndex(f, "/")+1:][:16])
	}
	want := []string{
		"name=__HIVE_DEFAULT_PARTITION__@part-00000-00000",
		"name=__HIVE_DEFAULT_PARTITION__@part-00000-00001",
		"name=a@part-00000-00000",
		"name=q%2Fx%3D1@part-00000-00001",
	}
	if strings.Join(dirs, ",") != strings.Join(want, ",") {
		t.Fatalf("layout %v, want %v", dirs, want)
	}
	if got := h.loggedFiles(); strings.Join(got, ",") != strings.Join(files, ",") {
		t.Fatalf("log lists %v, files %v", got, files)
	}
	// The partition column is not in the files.
	var a string
	for _, f := range files {
		if strings.HasPrefix(f, "name=a/") {
			a = readText(t, h.dir, []string{f})
		}
	}
	if a != `{"id":1,"ts":"2024-01-02T03:04:05.678Z","score":1.5}`+"\n"+`{"id":3,"score":3.0}`+"\n" {
		t.Fatalf("name=a content %q", a)
	}

	// A replay of epoch 0 writes nothing; epoch 1 adds files to existing directories.
	h.push(0, []any{int64(1), "a", nil, 1.5})
	h.push(1, []any{int64(9), "zz", nil, 1.5})
	h.barrier(0)
	if got := h.partFiles(); len(got) != 4 {
		t.Fatalf("replay wrote files: %v", got)
	}
	if staged, _ := filepath.Glob(filepath.Join(h.dir, "*", ".part-*.tmp")); len(staged) != 0 {
		t.Fatalf("replay left staged files %v", staged)
	}
	h.push(1, []any{int64(6), "a", nil, 6.0})
	h.barrier(1)
	entry, err := os.ReadFile(filepath.Join(h.dir, "_spark_metadata", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(string(entry), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "/name=a/part-00001-00001-") {
		t.Fatalf("epoch 1 entry %q", entry)
	}

	// A restarted sink removes staging files a crash left in partition directories.
	h.push(0, []any{int64(7), "crashed", nil, nil})
	if staged, _ := filepath.Glob(filepath.Join(h.dir, "name=crashed", ".part-*.tmp")); len(staged) != 1 {
		t.Fatalf("staged %v", staged)
	}
	newPartitionedHarness(t, "json", 1, map[string]string{"path": h.dir}, []string{"name"})
	if staged, _ := filepath.Glob(filepath.Join(h.dir, "name=crashed", ".part-*.tmp")); len(staged) != 0 {
		t.Fatalf("staged after restart %v", staged)
	}

	// The file source reads the committed files back with the partition column from the
	// directory names (through the commit log).
	rows := readBackRows(t, h.mem, "json", h.dir)
	sort.Strings(rows)
	wantRows := []string{"1|a|2024-01-02T03:04:05.678Z|1.5", "2|null|null|2.0", "3|a|null|3.0", "4|q/x=1|null|4.0",
		"5|null|null|5.0", "6|a|null|6.0"}
	if strings.Join(rows, ",") != strings.Join(wantRows, ",") {
		t.Fatalf("read back %v, want %v", rows, wantRows)
	}
}

func TestFileSinkPartitionByParquetTwoLevels(t *testing.T) {
	h := newPartitionedHarness(t, "parquet", 1, nil, []string{"score", "id"})
	h.push(0, []any{int64(1), "x", nil, 0.5}, []any{int64(2), "y", nil, 0.5})
	h.barrier(0)
	if got := h.partFiles(); len(got) != 2 || !strings.HasPrefix(got[0], "score=0.5/id=1/part-") ||
		!strings.HasPrefix(got[1], "score=0.5/id=2/part-") || !strings.HasSuffix(got[0], ".snappy.parquet") {
		t.Fatalf("layout %v", got)
	}
	schema, err := FileBatchSchema(nil, "parquet", nil, []string{h.dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := schema.AsStruct().String(); got != "struct<name:string,ts:timestamp,score:double,id:int>" {
		t.Fatalf("read schema %s", got)
	}
}

func TestFileSinkPartitionByRefusals(t *testing.T) {
	opts := map[string]string{"path": t.TempDir(), "checkpointLocation": t.TempDir()}
	for _, c := range []struct {
		format string
		by     []string
		class  string
		msg    string
	}{
		{"parquet", []string{"nope"}, "_LEGACY_ERROR_TEMP_1126", "Partition column `nope` not found in schema struct<id:bigint"},
		{"parquet", []string{"id", "ID"}, "COLUMN_ALREADY_EXISTS", "The column `id` already exists"},
		{"json", []string{"id", "name", "ts", "score"}, "_LEGACY_ERROR_TEMP_1129", "Cannot use all columns for partition columns"},
	} {
		_, err := connectors.NewSink(c.format, sinks.Env{Mode: flow.OutputAppend, Schema: fileTestSchema, TimeZone: "UTC", QueryName: "q", PartitionBy: c.by}, opts)
		se, ok := err.(*sparkerr.Error)
		if !ok || se.Class != c.class || se.JavaClass != sparkerr.AnalysisException || !strings.Contains(se.Message, c.msg) {
			t.Errorf("%s %v: %v", c.format, c.by, err)
		}
	}
}
