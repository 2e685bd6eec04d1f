package state

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// spillHelperEnv makes the test binary a helper process (TestSpillHelperProcess): "open:DIR"
// opens a store under DIR, writes to it, prints its directory and holds it open until its
// standard input closes; "lock:PATH" prints whether the lock file PATH can be taken.
const spillHelperEnv = "WEIR_SPILL_HELPER"

func TestSpillHelperProcess(t *testing.T) {
	mode, arg, ok := strings.Cut(os.Getenv(spillHelperEnv), ":")
	if !ok {
		return
	}
	switch mode {
	case "open":
		s, err := OpenSpill(arg)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		for i := range 100 {
			if err := s.Put([]byte(fmt.Sprint("k", i)), []byte("v")); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
		}
		fmt.Println(s.Dir())
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := s.Close(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
	case "lock":
		l, err := vfs.Default.Lock(arg)
		if err != nil {
			fmt.Println("held")
		} else {
			_ = l.Close()
			fmt.Println("free")
		}
	}
	os.Exit(0)
}

// spillHelper starts the test binary as a helper process in mode; it returns the process, its
// standard input and the first line it prints.
func spillHelper(t *testing.T, mode string) (*exec.Cmd, io.WriteCloser, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpillHelperProcess$")
	cmd.Env = append(os.Environ(), spillHelperEnv+"="+mode)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper %s: %q %v", mode, line, err)
	}
	return cmd, stdin, strings.TrimSpace(line)
}

// lockHeld reports whether another process finds the lock file of the store in dir held.
func lockHeld(t *testing.T, dir string) bool {
	t.Helper()
	cmd, stdin, line := spillHelper(t, "lock:"+filepath.Join(dir, "LOCK"))
	_ = stdin.Close()
	_ = cmd.Wait()
	return line == "held"
}

// TestOpenSpillSweepsStaleStores leaves a store behind the way a killed process does (its
// process is killed with SIGKILL while the store is open) next to the stores of a live process
// and of this one (one opened through a symbolic link to the parent, a different name for the
// same directory), a directory a crash left before its store was opened, and one being
// created. Opening a store removes the killed process's store and the old lockless directory
// and leaves every other alone, with the live stores still locked and readable.
func TestOpenSpillSweepsStaleStores(t *testing.T) {
	parent := t.TempDir()
	link := filepath.Join(t.TempDir(), "parent")
	if err := os.Symlink(parent, link); err != nil {
		t.Fatal(err)
	}
	killed, _, killedDir := spillHelper(t, "open:"+parent)
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	live, liveIn, liveDir := spillHelper(t, "open:"+parent)
	stopLive := func() error {
		_ = liveIn.Close()
		return live.Wait()
	}
	liveStopped := false
	defer func() {
		if !liveStopped {
			_ = stopLive()
		}
	}()
	own, err := OpenSpill(parent)
	if err != nil {
		t.Fatal(err)
	}
	ownLinked, err := OpenSpill(link)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Spill{own, ownLinked} {
		if err := s.Put([]byte("k"), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	crashed := filepath.Join(parent, spillDirPrefix+"crashed")
	creating := filepath.Join(parent, spillDirPrefix+"creating")
	for _, d := range []string{crashed, creating} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Everything but the directory being created last changed long ago.
	old := time.Now().Add(-2 * time.Hour)
	for _, d := range []string{killedDir, liveDir, own.Dir(), filepath.Join(parent, filepath.Base(ownLinked.Dir())), crashed} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	next, err := OpenSpill(parent)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(d string) bool { _, err := os.Stat(d); return err == nil }
	for _, d := range []string{killedDir, crashed} {
		if exists(d) {
			t.Errorf("stale %s not removed", filepath.Base(d))
		}
	}
	for _, d := range []string{liveDir, own.Dir(), ownLinked.Dir(), creating, next.Dir()} {
		if !exists(d) {
			t.Errorf("%s removed", filepath.Base(d))
		}
	}
	for _, s := range []*Spill{own, ownLinked} {
		if v, ok, err := s.Get([]byte("k")); err != nil || !ok || string(v) != "v" {
			t.Errorf("%s after the sweep: %q %t %v", filepath.Base(s.Dir()), v, ok, err)
		}
		if !lockHeld(t, s.Dir()) {
			t.Errorf("%s is no longer locked after the sweep", filepath.Base(s.Dir()))
		}
	}
	if !lockHeld(t, liveDir) {
		t.Errorf("the live process's store is no longer locked after the sweep")
	}
	for _, s := range []*Spill{own, ownLinked, next} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	liveStopped = true
	if err := stopLive(); err != nil {
		t.Errorf("live helper: %v", err)
	}
	if err := os.Remove(creating); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
}
