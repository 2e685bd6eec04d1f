package connect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sparkerr"
)

// TestDataRootsRefuseOverRPC: a server built WithDataRoots gives its sessions the policy; a
// write, an overwrite of the state dir and a checkpointLocation outside the roots come back
// as AnalysisExceptions of the refusal's class, and nothing is created.
func TestDataRootsRefuseOverRPC(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, outside, state := filepath.Join(tmp, "data"), filepath.Join(tmp, "outside"), filepath.Join(tmp, "state")
	for _, d := range []string{data, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := NewServer(WithStateDir(state), WithDataRoots(data))
	if err != nil {
		t.Fatal(err)
	}
	client := serveBufconn(t, srv)
	sid := newUUID()
	write := func(path string, mode pb.WriteOperation_SaveMode) error {
		_, err := run(t, client, sid, commandPlan(&pb.Command{CommandType: &pb.Command_WriteOperation{WriteOperation: &pb.WriteOperation{
			Input:    &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT 1 AS v"}}},
			Source:   strPtr("json"),
			SaveType: &pb.WriteOperation_Path{Path: path},
			Mode:     mode,
		}}}))
		return err
	}
	wantStatusError(t, write(filepath.Join(outside, "out"), pb.WriteOperation_SAVE_MODE_OVERWRITE),
		sparkerr.AnalysisException, fileaccess.ClassOutsideDataRoots, "")
	wantStatusError(t, write(state, pb.WriteOperation_SAVE_MODE_OVERWRITE),
		sparkerr.AnalysisException, fileaccess.ClassProtectedPath, "")
	cp := filepath.Join(outside, "cp")
	_, err = run(t, client, sid, startPlan(&pb.WriteStreamOperationStart{Input: rateMicroBatch("1"), Format: "noop",
		Options: map[string]string{"checkpointLocation": cp}}))
	wantStatusError(t, err, sparkerr.AnalysisException, fileaccess.ClassOutsideDataRoots, "")
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("refused requests created %v", entries)
	}
	if err := write(filepath.Join(data, "out"), pb.WriteOperation_SAVE_MODE_UNSPECIFIED); err != nil {
		t.Fatalf("a write inside the root: %v", err)
	}
	if _, err := NewServer(WithStateDir(state), WithDataRoots(filepath.Join(tmp, "missing"))); err == nil ||
		!strings.Contains(err.Error(), "data root") {
		t.Fatalf("a missing data root: %v", err)
	}
}

// TestArtifactsStayInTheirDir: an artifact name that leads out of the session's directory,
// by ".." or through a link, is refused and nothing is written outside.
func TestArtifactsStayInTheirDir(t *testing.T) {
	tmp := t.TempDir()
	dir, outside := filepath.Join(tmp, "session"), filepath.Join(tmp, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "files")); err != nil {
		t.Fatal(err)
	}
	store := newArtifactStore(dir, nil)
	for _, name := range []string{"files/evil.txt", "../outside/evil.txt", "/etc/evil", "jars/../../outside/evil"} {
		err := store.put(name, []byte("x"))
		if se, ok := sparkerr.As(err); !ok || se.JavaClass != sparkerr.IllegalArgumentException {
			t.Fatalf("%s: want IllegalArgumentException, got %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("artifacts written outside: %v", entries)
	}
	if err := store.put("pyfiles/ok.py", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pyfiles", "ok.py")); err != nil {
		t.Fatal(err)
	}
}
