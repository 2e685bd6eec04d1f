package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestPartitionPathEscaping(t *testing.T) {
	for in, want := range map[string]string{
		"plain":       "plain",
		"a/b":         "a%2Fb",
		"x=1:2":       "x%3D1%3A2",
		"50%":         "50%25",
		"tab\there":   "tab%09here",
		"sp ace{[]}^": "sp ace%7B%5B%5D}%5E",
	} {
		if got := EscapePathName(in); got != want {
			t.Errorf("escape %q = %q, want %q", in, got, want)
		}
		if got := UnescapePathName(want); got != in {
			t.Errorf("unescape %q = %q, want %q", want, got, in)
		}
	}
	if got := PartitionDir("k", "", true); got != "k="+DefaultPartitionName {
		t.Errorf("null dir %s", got)
	}
	if got := PartitionDir("k", "", false); got != "k="+DefaultPartitionName {
		t.Errorf("empty dir %s", got)
	}
	if got := UnescapePathName("100%"); got != "100%" {
		t.Errorf("trailing percent %s", got)
	}
}

// readBatchRows runs a batch read of dir and returns its rows as "v|v|…", sorted.
func readBatchRows(t *testing.T, mem memory.Allocator, format, dir, userSchema string) (sqltypes.Schema, []string) {
	t.Helper()
	schema, err := FileBatchSchema(nil, format, nil, []string{dir}, userSchema)
	if err != nil {
		t.Fatal(err)
	}
	src := FileBatch{Format: format, Paths: []string{dir}, Schema: schema, TimeZone: "UTC"}
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
	sort.Strings(rows)
	return schema, rows
}

func TestFileBatchDiscoversPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	for i, d := range []string{
		"n=1/x=1.5/d=2024-01-02/s=a%2Fb",
		"n=3000000000/x=2/d=2024-01-03/s=" + DefaultPartitionName,
		"n=" + DefaultPartitionName + "/x=" + DefaultPartitionName + "/d=" + DefaultPartitionName + "/s=plain",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeAt(t, dir, filepath.Join(filepath.FromSlash(d), "part-0.json"), fmt.Sprintf(`{"v":%d}`+"\n", i), i+1)
	}
	// Hidden directories are not read.
	if err := os.MkdirAll(filepath.Join(dir, "_temporary"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeAt(t, dir, "_temporary/part-9.json", `{"v":99}`+"\n", 9)

	schema, rows := readBatchRows(t, mem, "json", dir, "")
	if got := schema.AsStruct().String(); got != "struct<v:bigint,n:bigint,x:double,d:date,s:string>" {
		t.Fatalf("schema %s", got)
	}
	want := []string{"0|1|1.5|19724|a/b", "1|3000000000|2|19725|<nil>", "2|<nil>|<nil>|<nil>|plain"}
	if strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v, want %v", rows, want)
	}

	// A user schema decides the partition columns' types; columns it lacks are appended.
	schema, rows = readBatchRows(t, mem, "json", dir, "v BIGINT, n STRING, s STRING")
	if got := schema.AsStruct().String(); got != "struct<v:bigint,n:string,s:string,x:double,d:date>" {
		t.Fatalf("user schema %s", got)
	}
	want = []string{"0|1|a/b|1.5|19724", "1|3000000000|<nil>|2|19725", "2|<nil>|plain|<nil>|<nil>"}
	if strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v, want %v", rows, want)
	}
}

func TestPartitionTypeMerging(t *testing.T) {
	dir := t.TempDir()
	for i, d := range []string{"k=1", "k=x"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		writeAt(t, dir, filepath.Join(d, "p.json"), `{"v":1}`+"\n", i+1)
	}
	schema, err := FileBatchSchema(nil, "json", nil, []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := schema.AsStruct().String(); got != "struct<v:bigint,k:string>" {
		t.Fatalf("schema %s", got)
	}
}
