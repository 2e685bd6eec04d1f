package files

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
)

// overwriteFixture is a target directory beside a state dir, with a policy naming the state dir.
type overwriteFixture struct {
	t        *testing.T
	root     string // the parent of the target
	target   string
	stateDir string
	files    *fileaccess.Policy
}

func newOverwriteFixture(t *testing.T) *overwriteFixture {
	t.Helper()
	base := t.TempDir()
	f := &overwriteFixture{t: t, root: filepath.Join(base, "data"), stateDir: filepath.Join(base, "state")}
	f.target = filepath.Join(f.root, "out")
	for _, d := range []string{f.root, f.stateDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	f.files, err = fileaccess.New(fileaccess.Config{StateDir: f.stateDir, WorkDir: base, Home: filepath.Join(base, "home")})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// start begins a json batch write of rows (id, name) to the target in mode, without ending it.
func (f *overwriteFixture) start(mode sinks.SaveMode, ids ...int64) (*sinktest.BatchHarness, error) {
	f.t.Helper()
	h, err := sinktest.NewBatchHarnessEnv(f.t, "json", sinks.Env{Schema: batchSchema, TimeZone: "UTC", Files: f.files}, 2, mode,
		map[string]string{"path": f.target})
	if err != nil || h == nil {
		return h, err
	}
	for i, id := range ids {
		h.Push(i%2, []any{id, "v"})
	}
	return h, nil
}

// write writes ids to the target in mode, to the end.
func (f *overwriteFixture) write(mode sinks.SaveMode, ids ...int64) {
	f.t.Helper()
	h, err := f.start(mode, ids...)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := h.End(); err != nil {
		f.t.Fatal(err)
	}
}

// rows reads the target back ("id|name", sorted).
func (f *overwriteFixture) rows() string {
	f.t.Helper()
	return strings.Join(readBack(f.t, "json", f.target, batchSchema, nil), ",")
}

// beside lists the target's parent (the target and any leftovers).
func (f *overwriteFixture) beside() []string { return sinktest.ListDir(f.t, f.root) }

// journal lists the state dir's overwrite journal.
func (f *overwriteFixture) journal() []string {
	entries, _ := os.ReadDir(filepath.Join(f.stateDir, overwriteJournalDir))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestOverwriteReplacesOnlyWhenComplete(t *testing.T) {
	f := newOverwriteFixture(t)
	f.write(sinks.SaveErrorIfExists, 1, 2)
	h, err := f.start(sinks.SaveOverwrite, 3, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	// While the new output is written, readers of the target see the old one, whole.
	if got := f.rows(); got != "1|v,2|v" {
		t.Fatalf("during the overwrite: %s", got)
	}
	if len(f.journal()) != 1 {
		t.Fatalf("journal %v", f.journal())
	}
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	if got := f.rows(); got != "3|v,4|v,5|v" {
		t.Fatalf("after the overwrite: %s", got)
	}
	if got := f.beside(); !slices.Equal(got, []string{"out"}) {
		t.Fatalf("leftovers beside the target: %v", got)
	}
	if names := sinktest.ListDir(t, f.target); names[0] != "_SUCCESS" || len(partFiles(names)) != 2 || len(names) != 3 {
		t.Fatalf("target files %v", names)
	}
	if j := f.journal(); len(j) != 0 {
		t.Fatalf("journal left %v", j)
	}
}

func TestOverwriteOfNewPathAndOfAFile(t *testing.T) {
	f := newOverwriteFixture(t)
	f.write(sinks.SaveOverwrite, 7)
	if got := f.rows(); got != "7|v" {
		t.Fatalf("new path: %s", got)
	}
	// A plain file at the path is replaced by the output directory.
	if err := os.RemoveAll(f.target); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.target, []byte("old file"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.write(sinks.SaveOverwrite, 8)
	if got := f.rows(); got != "8|v" {
		t.Fatalf("over a file: %s", got)
	}
	if got := f.beside(); !slices.Equal(got, []string{"out"}) {
		t.Fatalf("leftovers: %v", got)
	}
}

func TestOverwriteAbortLeavesOldOutput(t *testing.T) {
	f := newOverwriteFixture(t)
	f.write(sinks.SaveErrorIfExists, 1)
	h, err := f.start(sinks.SaveOverwrite, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	h.Sink.Abort()
	if got := f.rows(); got != "1|v" {
		t.Fatalf("after abort: %s", got)
	}
	if got := f.beside(); !slices.Equal(got, []string{"out"}) {
		t.Fatalf("leftovers: %v", got)
	}
	if j := f.journal(); len(j) != 0 {
		t.Fatalf("journal left %v", j)
	}
	// The target is free again.
	f.write(sinks.SaveOverwrite, 4)
	if got := f.rows(); got != "4|v" {
		t.Fatalf("overwrite after abort: %s", got)
	}
}

func TestOverwriteOfATargetBeingOverwrittenIsRefused(t *testing.T) {
	f := newOverwriteFixture(t)
	f.write(sinks.SaveErrorIfExists, 1)
	h, err := f.start(sinks.SaveOverwrite, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.start(sinks.SaveOverwrite, 3)
	var se *sparkerr.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "Another write is overwriting") {
		t.Fatalf("second overwrite: %v", err)
	}
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	if got := f.rows(); got != "2|v" {
		t.Fatalf("rows %s", got)
	}
}

// A crash is simulated by abandoning a write (no Finish, no Abort) at each point of the
// overwrite; the target must then hold the old or the new output, whole, and the leftovers go
// at the next overwrite of the target or when the server starts (RecoverOverwrites).
func TestOverwriteCrashPoints(t *testing.T) {
	type crash struct {
		name string
		// at leaves an overwrite of ids {2,3} at a crash point; want is what the target holds.
		at   func(f *overwriteFixture, h *sinktest.BatchHarness)
		want string
	}
	endInputs := func(h *sinktest.BatchHarness) {
		for _, op := range h.Ops {
			if err := op.(flow.EndOfDataHandler).EndOfData(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	fs := func(h *sinktest.BatchHarness) *fileSink { return h.Sink.(sinks.BatchAdapter).Sink.(*fileSink) }
	crashes := []crash{
		{"while writing", func(f *overwriteFixture, h *sinktest.BatchHarness) {}, "1|v"},
		{"written, before the swap", func(f *overwriteFixture, h *sinktest.BatchHarness) {
			endInputs(h)
			if err := fs(h).finishBatch(); err != nil {
				t.Fatal(err)
			}
		}, "1|v"},
		{"after the swap, before removing the old output", func(f *overwriteFixture, h *sinktest.BatchHarness) {
			endInputs(h)
			o := fs(h).replace
			if err := fs(h).finishBatch(); err != nil {
				t.Fatal(err)
			}
			if err := swapIn(o.staging, o.target); err != nil {
				t.Fatal(err)
			}
		}, "2|v,3|v"},
		{"between the fallback's two renames", func(f *overwriteFixture, h *sinktest.BatchHarness) {
			endInputs(h)
			o := fs(h).replace
			if err := fs(h).finishBatch(); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(o.target, o.staging+overwriteOldSuffix); err != nil {
				t.Fatal(err)
			}
		}, "1|v"},
		{"while removing the old output", func(f *overwriteFixture, h *sinktest.BatchHarness) {
			endInputs(h)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := h.Sink.Finish(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted finish: %v", err)
			}
		}, "2|v,3|v"},
	}
	for _, c := range crashes {
		for _, recovery := range []string{"server start", "next overwrite"} {
			t.Run(c.name+"/"+recovery, func(t *testing.T) {
				f := newOverwriteFixture(t)
				f.write(sinks.SaveErrorIfExists, 1)
				h, err := f.start(sinks.SaveOverwrite, 2, 3)
				if err != nil {
					t.Fatal(err)
				}
				c.at(f, h)
				forgetInFlight(f.target) // the process that held it is gone
				if recovery == "server start" {
					if err := RecoverOverwrites(context.Background(), f.stateDir); err != nil {
						t.Fatal(err)
					}
					if got := f.rows(); got != c.want {
						t.Fatalf("after recovery: %s, want %s", got, c.want)
					}
					if got := f.beside(); !slices.Equal(got, []string{"out"}) {
						t.Fatalf("leftovers after recovery: %v", got)
					}
					if j := f.journal(); len(j) != 0 {
						t.Fatalf("journal left %v", j)
					}
					return
				}
				if c.name != "between the fallback's two renames" {
					if got := f.rows(); got != c.want {
						t.Fatalf("after the crash: %s, want %s", got, c.want)
					}
				}
				// The next overwrite fails before its swap: the old output (restored if the
				// crash left the target missing) is still there.
				h2, err := f.start(sinks.SaveOverwrite, 8)
				if err != nil {
					t.Fatal(err)
				}
				if got := f.rows(); got != c.want {
					t.Fatalf("during the next overwrite: %s, want %s", got, c.want)
				}
				h2.Sink.Abort()
				f.write(sinks.SaveOverwrite, 9)
				if got := f.rows(); got != "9|v" {
					t.Fatalf("next overwrite: %s", got)
				}
				if got := f.beside(); !slices.Equal(got, []string{"out"}) {
					t.Fatalf("leftovers after the next overwrite: %v", got)
				}
			})
		}
	}
}

// forgetInFlight drops target from this process's running overwrites, as a restart would.
func forgetInFlight(target string) {
	overwritesInFlight.Lock()
	delete(overwritesInFlight.targets, target)
	overwritesInFlight.Unlock()
}

func TestRemoveTreeNeverFollowsLinksAndStopsWhenCancelled(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	tree := filepath.Join(base, "tree")
	for _, d := range []string{outside, filepath.Join(tree, "a", "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	canary := filepath.Join(outside, "canary")
	if err := os.WriteFile(canary, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "a", "link")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := removeTree(ctx, tree); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled removal: %v", err)
	}
	if _, err := os.Stat(tree); err != nil {
		t.Fatalf("a cancelled removal removed the tree: %v", err)
	}
	if err := removeTree(context.Background(), tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Fatalf("tree still there: %v", err)
	}
	if _, err := os.Stat(canary); err != nil {
		t.Fatalf("removal followed a symlink: %v", err)
	}
	if err := removeTree(context.Background(), filepath.Join(base, "missing")); err != nil {
		t.Fatalf("missing path: %v", err)
	}
}

func TestRecoverOverwritesIgnoresForeignJournalRecords(t *testing.T) {
	f := newOverwriteFixture(t)
	f.write(sinks.SaveErrorIfExists, 1)
	victim := filepath.Join(f.root, "victim")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(f.stateDir, overwriteJournalDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A record naming a path that is not a staging directory of its target removes nothing.
	rec := `{"target":"` + f.target + `","staging":"` + victim + `"}`
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RecoverOverwrites(context.Background(), f.stateDir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("recovery removed a path its journal named: %v", err)
	}
	if got := f.rows(); got != "1|v" {
		t.Fatalf("target: %s", got)
	}
	if j := f.journal(); len(j) != 0 {
		t.Fatalf("journal left %v", j)
	}
}
