package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

func sqlRel(q string) plan.Relation { return &plan.SQLQuery{Query: q} }

func runWrite(t *testing.T, s *Session, w *plan.Write) error {
	t.Helper()
	res, err := s.RunCommand(context.Background(), w)
	if err != nil {
		return err
	}
	recs, err := collect(context.Background(), res)
	if len(recs) != 0 {
		t.Fatalf("a write returned %d batches", len(recs))
	}
	return err
}

func errMessage(err error) string {
	if e, ok := sparkerr.As(err); ok {
		return e.JavaClass + ": " + e.Error()
	}
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestWriteFilesReadBack(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := NewSession(WithAllocator(mem))
	defer s.Close()
	input := sqlRel("SELECT id, CAST(id * 10 AS STRING) AS s FROM range(0, 6)")
	for _, format := range []string{"parquet", "json", "csv"} {
		dir := filepath.Join(t.TempDir(), format)
		opts := map[string]string{}
		if format == "csv" {
			opts["header"] = "true"
		}
		if err := runWrite(t, s, &plan.Write{Input: input, Format: format, Path: dir, Options: opts}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "_SUCCESS")); err != nil {
			t.Fatalf("%s: no _SUCCESS: %v", format, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "_spark_metadata")); !os.IsNotExist(err) {
			t.Fatalf("%s: a batch write made _spark_metadata (%v)", format, err)
		}
		read := &plan.DataSource{Format: format, Paths: []string{dir}, Schema: "id BIGINT, s STRING", Options: opts}
		if got := strings.Join(rowsOf(t, s, read), ","); got != "0|0,1|10,2|20,3|30,4|40,5|50" {
			t.Fatalf("%s read back: %s", format, got)
		}
	}
}

func TestWriteSaveModes(t *testing.T) {
	s := NewSession()
	defer s.Close()
	dir := filepath.Join(t.TempDir(), "out")
	write := func(mode plan.SaveMode, q string) error {
		return runWrite(t, s, &plan.Write{Input: sqlRel(q), Format: "json", Path: dir, Mode: mode})
	}
	read := func() string {
		return strings.Join(rowsOf(t, s, &plan.DataSource{Format: "json", Paths: []string{dir}, Schema: "v BIGINT"}), ",")
	}
	if err := write(plan.SaveUnset, "SELECT 1 AS v"); err != nil {
		t.Fatal(err)
	}
	err := write(plan.SaveUnset, "SELECT 2 AS v")
	if got := errMessage(err); !strings.Contains(got, "[PATH_ALREADY_EXISTS] Path file:"+dir+" already exists.") ||
		!strings.HasPrefix(got, "org.apache.spark.sql.AnalysisException") {
		t.Fatalf("default mode on an existing path: %s", got)
	}
	if err := write(plan.SaveIgnore, "SELECT 3 AS v"); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "1" {
		t.Fatalf("after ignore: %s", got)
	}
	if err := write(plan.SaveAppend, "SELECT 4 AS v"); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "1,4" {
		t.Fatalf("after append: %s", got)
	}
	if err := write(plan.SaveOverwrite, "SELECT 5 AS v UNION ALL SELECT 6"); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "5,6" {
		t.Fatalf("after overwrite: %s", got)
	}
	// Overwriting the path being read is refused before anything is deleted.
	err = runWrite(t, s, &plan.Write{Input: &plan.DataSource{Format: "json", Paths: []string{dir}}, Format: "json",
		Path: dir, Mode: plan.SaveOverwrite})
	if got := errMessage(err); !strings.Contains(got, "[UNSUPPORTED_OVERWRITE.PATH] Can't overwrite the target that is also being read from.") {
		t.Fatalf("overwrite of the input: %s", got)
	}
	if got := read(); got != "5,6" {
		t.Fatalf("after a refused overwrite: %s", got)
	}
}

func TestWriteRefusals(t *testing.T) {
	s := NewSession()
	defer s.Close()
	in := sqlRel("SELECT 1 AS v")
	for _, tc := range []struct {
		w    *plan.Write
		want string
	}{
		{&plan.Write{Input: in, TableName: "t", TableMethod: plan.TableInsertInto}, "[TABLE_OR_VIEW_NOT_FOUND] The table or view `t` cannot be found."},
		{&plan.Write{Input: in, Path: "/tmp/x", BucketBy: &plan.Bucketing{Columns: []string{"v"}, NumBuckets: 2}}, "'save' does not support bucketBy right now."},
		{&plan.Write{Input: in, Path: "/tmp/x", SortBy: []string{"v"}}, "sortBy must be used together with bucketBy"},
		{&plan.Write{Input: in, Format: "kafka", Options: map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}}, "Required attribute 'value' not found"},
		{&plan.Write{Input: &plan.DataSource{Format: "rate", IsStreaming: true}, Format: "noop"}, "[CALL_ON_STREAMING_DATASET_UNSUPPORTED] The method `write` can not be called on streaming Dataset/DataFrame."},
	} {
		if got := errMessage(runWrite(t, s, tc.w)); !strings.Contains(got, tc.want) {
			t.Errorf("got %s\nwant %s", got, tc.want)
		}
	}
	// The default format is spark.sql.sources.default.
	dir := filepath.Join(t.TempDir(), "d")
	if err := s.conf.Set("spark.sql.sources.default", "json"); err != nil {
		t.Fatal(err)
	}
	if err := runWrite(t, s, &plan.Write{Input: in, Path: dir}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rowsOf(t, s, &plan.DataSource{Format: "json", Paths: []string{dir}}), ","); got != "1" {
		t.Fatalf("default format: %s", got)
	}
}
