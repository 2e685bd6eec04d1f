package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
)

// rowsOf runs rel and renders its rows sorted ("a|b").
func rowsOf(t *testing.T, s *Session, rel plan.Relation) []string {
	t.Helper()
	ctx := context.Background()
	res, err := s.Execute(ctx, rel)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := collect(ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	schema := res.Schema
	var rows []string
	for _, rec := range recs {
		for i := 0; i < int(rec.NumRows()); i++ {
			vals := make([]string, len(schema))
			for c, f := range schema {
				vals[c] = fmt.Sprint(expr.ValueAt(rec.Column(c), i, f.Type))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
		rec.Release()
	}
	sort.Strings(rows)
	return rows
}

func TestBatchReadOfFiles(t *testing.T) {
	s := NewSession()
	defer s.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"n":1,"s":"x"}`+"\n"+`{"n":2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := rowsOf(t, s, &plan.DataSource{Format: "json", Paths: []string{dir}})
	if strings.Join(got, ",") != "1|x,2|<nil>" {
		t.Fatalf("json rows %v", got)
	}
	got = rowsOf(t, s, &plan.DataSource{Format: "json", Paths: []string{dir}, Schema: "s STRING, missing INT"})
	if strings.Join(got, ",") != "<nil>|<nil>,x|<nil>" {
		t.Fatalf("json rows with a schema %v", got)
	}
	got = rowsOf(t, s, &plan.DataSource{Format: "text", Options: map[string]string{"path": filepath.Join(dir, "a.json")}})
	if strings.Join(got, ",") != `{"n":1,"s":"x"},{"n":2}` {
		t.Fatalf("text rows %v", got)
	}
}

// spark.read.load without a format reads spark.sql.sources.default, as the write side does.
func TestBatchReadWithoutFormatUsesSourcesDefault(t *testing.T) {
	s := NewSession()
	defer s.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"n":7}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Conf().Set(conf.SourcesDefaultKey, "json"); err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, s, &plan.DataSource{Paths: []string{dir}}); strings.Join(got, ",") != "7" {
		t.Fatalf("rows %v", got)
	}
}

// A rate-micro-batch stream written by the parquet sink reads back, through the commit log,
// as exactly the committed rows.
func TestFileSinkThenBatchRead(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ctx := context.Background()
	out, cp := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "cp")
	q, err := s.StartStream(ctx, &plan.WriteStream{
		Input: &plan.DataSource{Format: "rate-micro-batch", IsStreaming: true,
			Options: map[string]string{"rowsPerBatch": "5", "numPartitions": "2"}},
		Format: "parquet", Path: out, Trigger: plan.TriggerAvailableNow,
		Options: map[string]string{"checkpointLocation": cp}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	timeout := 30 * time.Second
	if done, err := q.AwaitTermination(ctx, &timeout); !done || err != nil {
		t.Fatalf("query: done=%v err=%v", done, err)
	}
	// A staged file nobody committed is ignored.
	if err := os.WriteFile(filepath.Join(out, "part-00042-00000-stray.snappy.parquet"), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := rowsOf(t, s, &plan.DataSource{Format: "parquet", Paths: []string{out}})
	// One epoch of rowsPerBatch rows: (timestamp micros, value).
	if strings.Join(got, ",") != "0|0,0|1,0|2,0|3,0|4" {
		t.Fatalf("rows %v", got)
	}
	log, err := os.ReadDir(filepath.Join(out, "_spark_metadata"))
	if err != nil || len(log) != 1 || log[0].Name() != "0" {
		t.Fatalf("commit log %v %v", log, err)
	}
}

// A text file stream into the JSON sink, restarted on its checkpoint: each run reads only the
// files it has not committed, and the output holds every line exactly once.
func TestFileStreamRestartsExactlyOnce(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ctx := context.Background()
	in, out, cp := t.TempDir(), filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "cp")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(in, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func() {
		t.Helper()
		q, err := s.StartStream(ctx, &plan.WriteStream{
			Input:  &plan.DataSource{Format: "text", IsStreaming: true, Paths: []string{in}, Options: map[string]string{}},
			Format: "json", Path: out, Trigger: plan.TriggerAvailableNow,
			Options: map[string]string{"checkpointLocation": cp}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		timeout := 30 * time.Second
		if done, err := q.AwaitTermination(ctx, &timeout); !done || err != nil {
			t.Fatalf("query: done=%v err=%v", done, err)
		}
	}
	write("a.txt", "a1\na2\n")
	run()
	write("b.txt", "b1\n")
	run()
	run() // nothing new
	got := rowsOf(t, s, &plan.DataSource{Format: "json", Paths: []string{out}})
	if strings.Join(got, ",") != "a1,a2,b1" {
		t.Fatalf("rows %v", got)
	}
	log, err := os.ReadDir(filepath.Join(out, "_spark_metadata"))
	if err != nil || len(log) != 2 {
		t.Fatalf("commit log %v %v", log, err)
	}
}
