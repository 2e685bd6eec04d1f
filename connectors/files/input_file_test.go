package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestBatchesCarryTheirInputFile: every batch a file read emits has its file in its batch
// environment (URI, start 0, the file's size), for plain and Hive-partitioned directories.
func TestBatchesCarryTheirInputFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.json":            `{"v":"1"}` + "\n" + `{"v":"2"}` + "\n",
		"k=7/b.json":        `{"v":"3"}` + "\n",
		"k=8/c-longer.json": `{"v":"4"}` + "\n" + `{"v":"5"}` + "\n" + `{"v":"6"}` + "\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a.json beside k=… would make the directory's partitioning inconsistent: read a.json
	// alone and the partition directories through a glob.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, path := range []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "k=*")} {
		schema, err := FileBatchSchema(nil, "json", nil, []string{path}, "v STRING")
		if err != nil {
			t.Fatal(err)
		}
		src := FileBatch{Format: "json", Paths: []string{path}, Schema: schema, TimeZone: "UTC"}
		out := &collectEmitter{}
		event := flow.EventSchema(sqltypes.ToArrowSchema(schema, "UTC"))
		if err := src.Run(context.Background(), flow.Env{Mem: mem, Partition: 0, Partitions: 1, OutSchema: event}, out); err != nil {
			t.Fatal(err)
		}
		if len(out.recs) == 0 {
			t.Fatalf("%s: no batches", path)
		}
		for _, rec := range out.recs {
			f, ok := expr.InputFileOf(rec.Schema())
			if !ok {
				t.Fatalf("%s: a batch without its input file", path)
			}
			local := LocalPath(f.URI)
			st, err := os.Stat(local)
			if err != nil {
				t.Fatalf("%s: input file %s: %v", path, f.URI, err)
			}
			if f.URI != FileURI(local) || f.Start != 0 || f.Length != st.Size() {
				t.Errorf("%s: input file %+v, want %s at 0 of %d bytes", path, f, FileURI(local), st.Size())
			}
			if !rec.Schema().Equal(event) {
				t.Errorf("%s: batch schema %s, want %s", path, rec.Schema(), event)
			}
			rec.Release()
		}
	}
}
