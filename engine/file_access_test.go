package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// accessLayout is a server's file layout in a temporary directory: one data root holding
// a.json and links out of it (to a directory and to a file), a directory outside the root holding secret.json, and the
// state, working and home directories.
type accessLayout struct {
	tmp, data, outside, state string
}

func newAccessLayout(t *testing.T) (accessLayout, *Session) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := accessLayout{tmp: tmp, data: filepath.Join(tmp, "data"), outside: filepath.Join(tmp, "outside"),
		state: filepath.Join(tmp, "state")}
	for _, d := range []string{l.data, l.outside, l.state, filepath.Join(tmp, "work"), filepath.Join(tmp, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for path, text := range map[string]string{filepath.Join(l.data, "a.json"): `{"v":1}`, filepath.Join(l.outside, "secret.json"): `{"v":2}`} {
		if err := os.WriteFile(path, []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(l.outside, filepath.Join(l.data, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(l.outside, "secret.json"), filepath.Join(l.data, "linked.json")); err != nil {
		t.Fatal(err)
	}
	p, err := fileaccess.New(fileaccess.Config{Roots: []string{l.data}, StateDir: l.state,
		WorkDir: filepath.Join(tmp, "work"), Home: filepath.Join(tmp, "home")})
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(WithFileAccess(p))
	t.Cleanup(func() { s.Close() })
	return l, s
}

// listing is every path under dir, for "nothing was created" checks.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var paths []string
	if err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		paths = append(paths, path)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(paths, "\n")
}

func wantRefused(t *testing.T, err error, class, path string) {
	t.Helper()
	se, ok := sparkerr.As(err)
	if !ok || se.Class != class || se.JavaClass != sparkerr.AnalysisException || se.SQLState != "42501" ||
		se.Params["path"] != "file:"+path || !strings.Contains(se.Message, "file:"+path) {
		t.Fatalf("want %s naming file:%s, got %v", class, path, err)
	}
}

func execErr(s *Session, rel plan.Relation) error {
	res, err := s.Execute(context.Background(), rel)
	if err != nil {
		return err
	}
	_, err = collect(context.Background(), res)
	return err
}

// TestFileAccessReads: batch reads (with and without a schema, a glob through a link) and a
// streaming file source outside the data roots are refused; inside they read.
func TestFileAccessReads(t *testing.T) {
	l, s := newAccessLayout(t)
	secret := filepath.Join(l.outside, "secret.json")
	wantRefused(t, execErr(s, &plan.DataSource{Format: "json", Paths: []string{secret}}), fileaccess.ClassOutsideDataRoots, secret)
	wantRefused(t, execErr(s, &plan.DataSource{Format: "json", Paths: []string{secret}, Schema: "v BIGINT"}),
		fileaccess.ClassOutsideDataRoots, secret)
	wantRefused(t, execErr(s, &plan.DataSource{Format: "json", Options: map[string]string{"path": "file://" + secret}}),
		fileaccess.ClassOutsideDataRoots, secret)
	// The glob's directory is in the root; its matches "link" and "linked.json" lead out of it.
	wantRefused(t, execErr(s, &plan.DataSource{Format: "json", Paths: []string{filepath.Join(l.data, "link*")}, Schema: "v BIGINT"}),
		fileaccess.ClassOutsideDataRoots, l.outside)
	wantRefused(t, execErr(s, &plan.DataSource{Format: "json", Paths: []string{filepath.Join(l.data, "l*.json")}}),
		fileaccess.ClassOutsideDataRoots, secret)
	wantRefused(t, execErr(s, &plan.DataSource{Format: "json", Paths: []string{filepath.Join(l.data, "..", "outside")}, Schema: "v BIGINT"}),
		fileaccess.ClassOutsideDataRoots, l.outside)
	_, err := s.Analyze(context.Background(), &plan.DataSource{Format: "text", IsStreaming: true, Paths: []string{l.outside},
		Options: map[string]string{"path": l.outside}})
	wantRefused(t, err, fileaccess.ClassOutsideDataRoots, l.outside)
	if got := strings.Join(rowsOf(t, s, &plan.DataSource{Format: "json", Paths: []string{filepath.Join(l.data, "a*.json")}}), ","); got != "1" {
		t.Fatalf("read inside the root: %s", got)
	}
}

// TestFileAccessWrites: a batch write and an overwrite outside the roots, an overwrite of the
// root itself and a write into the state directory are refused and create nothing.
func TestFileAccessWrites(t *testing.T) {
	l, s := newAccessLayout(t)
	before := listing(t, l.tmp)
	input := sqlRel("SELECT 1 AS v")
	for _, c := range []struct {
		mode        plan.SaveMode
		path, class string
		refused     string
	}{
		{plan.SaveUnset, filepath.Join(l.outside, "new"), fileaccess.ClassOutsideDataRoots, ""},
		{plan.SaveAppend, filepath.Join(l.data, "link", "new"), fileaccess.ClassOutsideDataRoots, filepath.Join(l.outside, "new")},
		{plan.SaveOverwrite, l.outside, fileaccess.ClassOutsideDataRoots, ""},
		{plan.SaveOverwrite, filepath.Join(l.data, "link"), fileaccess.ClassOutsideDataRoots, l.outside},
		{plan.SaveOverwrite, l.data, fileaccess.ClassProtectedPath, ""},
		{plan.SaveOverwrite, l.tmp, fileaccess.ClassProtectedPath, ""},
		{plan.SaveOverwrite, l.state, fileaccess.ClassProtectedPath, ""},
		{plan.SaveOverwrite, "/", fileaccess.ClassProtectedPath, ""},
		{plan.SaveAppend, filepath.Join(l.state, "x"), fileaccess.ClassProtectedPath, ""},
	} {
		err := runWrite(t, s, &plan.Write{Input: input, Format: "json", Path: c.path, Mode: c.mode})
		refused := c.refused
		if refused == "" {
			refused = c.path
		}
		wantRefused(t, err, c.class, refused)
		if after := listing(t, l.tmp); after != before {
			t.Fatalf("write %s (mode %v) changed the layout:\n%s", c.path, c.mode, after)
		}
	}
	out := filepath.Join(l.data, "out")
	if err := runWrite(t, s, &plan.Write{Input: input, Format: "json", Path: out}); err != nil {
		t.Fatal(err)
	}
	if err := runWrite(t, s, &plan.Write{Input: input, Format: "json", Path: out, Mode: plan.SaveOverwrite}); err != nil {
		t.Fatal(err)
	}
}

// TestFileAccessStreams: a checkpointLocation (option or the conf's root) and a file sink path
// outside the roots are refused and create nothing there.
func TestFileAccessStreams(t *testing.T) {
	l, s := newAccessLayout(t)
	ctx := context.Background()
	rate := &plan.DataSource{Format: "rate-micro-batch", IsStreaming: true, Options: map[string]string{"rowsPerBatch": "1"}}
	before := listing(t, l.outside)
	cp := filepath.Join(l.outside, "cp")
	_, err := s.StartStream(ctx, &plan.WriteStream{Input: rate, Format: "memory", QueryName: "m1",
		Options: map[string]string{"checkpointLocation": cp}}, nil)
	wantRefused(t, err, fileaccess.ClassOutsideDataRoots, cp)
	if err := s.Conf().Set("spark.sql.streaming.checkpointLocation", filepath.Join(l.outside, "cps")); err != nil {
		t.Fatal(err)
	}
	_, err = s.StartStream(ctx, &plan.WriteStream{Input: rate, Format: "memory", QueryName: "m2"}, nil)
	wantRefused(t, err, fileaccess.ClassOutsideDataRoots, filepath.Join(l.outside, "cps", "m2"))
	// A query name cannot lead the conf's root elsewhere either.
	if err := s.Conf().Set("spark.sql.streaming.checkpointLocation", filepath.Join(l.data, "cps")); err != nil {
		t.Fatal(err)
	}
	_, err = s.StartStream(ctx, &plan.WriteStream{Input: rate, Format: "memory", QueryName: "../../outside/m3"}, nil)
	wantRefused(t, err, fileaccess.ClassOutsideDataRoots, filepath.Join(l.outside, "m3"))
	sinkPath := filepath.Join(l.outside, "out")
	_, err = s.StartStream(ctx, &plan.WriteStream{Input: rate, Format: "parquet", Path: sinkPath,
		Options: map[string]string{"checkpointLocation": filepath.Join(l.data, "cp")}}, nil)
	wantRefused(t, err, fileaccess.ClassOutsideDataRoots, sinkPath)
	_, err = s.StartStream(ctx, &plan.WriteStream{Input: rate, Format: "parquet", Path: filepath.Join(l.data, "out"),
		Options: map[string]string{"checkpointLocation": filepath.Join(l.state, "cp")}}, nil)
	wantRefused(t, err, fileaccess.ClassProtectedPath, filepath.Join(l.state, "cp"))
	if after := listing(t, l.outside); after != before {
		t.Fatalf("refused streams created files outside the root:\n%s", after)
	}
	if entries, _ := os.ReadDir(l.state); len(entries) != 0 {
		t.Fatalf("a refused stream wrote into the state dir: %v", entries)
	}
	// Inside the root the stream runs.
	q, err := s.StartStream(ctx, &plan.WriteStream{Input: rate, Format: "json", Path: filepath.Join(l.data, "out"),
		Trigger: plan.TriggerAvailableNow, Options: map[string]string{"checkpointLocation": filepath.Join(l.data, "cp")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	timeout := 30 * time.Second
	if done, err := q.AwaitTermination(ctx, &timeout); !done || err != nil {
		t.Fatalf("query: done=%v err=%v", done, err)
	}
}

// TestFileAccessSpillDir: a batch query's operators spill under the session's spill directory
// (state.SpillDirConf) only where the file-access policy lets the server write: outside the
// data roots the query is refused and nothing is created or swept there; inside it runs.
func TestFileAccessSpillDir(t *testing.T) {
	l, s := newAccessLayout(t)
	before := listing(t, l.outside)
	query := &plan.SQLQuery{Query: "SELECT id, sum(id) OVER (ORDER BY id) AS s FROM range(20000)"}
	for k, v := range map[string]string{"spark.sql.streaming.stateStore.weir.memoryBudgetBytes": "1",
		"spark.sql.streaming.stateStore.weir.spillDir": l.outside} {
		if err := s.Conf().Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	wantRefused(t, execErr(s, query), fileaccess.ClassOutsideDataRoots, l.outside)
	if after := listing(t, l.outside); after != before {
		t.Fatalf("a refused spill created files outside the root:\n%s", after)
	}
	if err := s.Conf().Set("spark.sql.streaming.stateStore.weir.spillDir", filepath.Join(l.data, "spill")); err != nil {
		t.Fatal(err)
	}
	if err := execErr(s, query); err != nil {
		t.Fatal(err)
	}
}
