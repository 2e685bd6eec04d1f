package pyworker

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weirhq/weir/sparkerr"
)

// testPython is the venv interpreter with PySpark: $WEIR_TEST_PYTHON or <repo>/.venv/bin/python
// (scripts/test.sh installs it before the Go tests). Its absence fails the test: these tests are
// the only proof the protocol matches the installed PySpark.
func testPython(t *testing.T) string {
	t.Helper()
	p := os.Getenv("WEIR_TEST_PYTHON")
	if p == "" {
		abs, err := filepath.Abs("../.venv/bin/python")
		if err != nil {
			t.Fatal(err)
		}
		p = abs
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no Python with PySpark at %s (%v): run scripts/test.sh's venv step or set WEIR_TEST_PYTHON", p, err)
	}
	return p
}

// pythonVersion asks the interpreter for its major.minor.
func pythonVersion(t *testing.T, python string) string {
	t.Helper()
	out, err := exec.Command(python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// startEcho starts testdata/echo_worker.py.
func startEcho(t *testing.T, ctx context.Context) *Worker {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Start(ctx, Config{Python: testPython(t), Module: "echo_worker", Env: []string{"PYTHONPATH=" + dir}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// resources counts what a test must give back: goroutines and open fds.
type resources struct{ goroutines, fds int }

func snapshot(t *testing.T) resources {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return resources{runtime.NumGoroutine(), len(fds)}
}

// checkNoLeaks waits (bounded) for goroutines and fds to return to the baseline and checks the
// worker's process and process group are gone (reaped: kill(pid, 0) is ESRCH, not a zombie).
func checkNoLeaks(t *testing.T, base resources, pids ...int) {
	t.Helper()
	var now resources
	for i := 0; i < 200; i++ {
		now = snapshot(t)
		if now.goroutines <= base.goroutines && now.fds <= base.fds {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if now.goroutines > base.goroutines || now.fds > base.fds {
		t.Errorf("leak: goroutines %d → %d, fds %d → %d", base.goroutines, now.goroutines, base.fds, now.fds)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after Close (kill 0: %v)", pid, err)
		}
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process group %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
}

func TestFramingBothWays(t *testing.T) {
	base := snapshot(t)
	ctx := context.Background()
	w := startEcho(t, ctx)
	for _, c := range []struct {
		i int32
		l int64
		s string
	}{{0, 0, ""}, {-5, -1 << 62, "é ✓ \x00 tab\t"}, {1<<31 - 1, 1<<63 - 1, strings.Repeat("x", 200_000)}} {
		for _, err := range []error{w.WriteUTF("echo"), w.WriteInt(c.i), w.WriteLong(c.l), w.WriteUTF(c.s), w.Flush(ctx)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		i, err := w.ReadInt(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l, err := w.ReadLong(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s, err := w.ReadUTF(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if i != c.i || l != c.l || s != c.s {
			t.Errorf("echo(%d, %d, %.20q) = (%d, %d, %.20q)", c.i, c.l, c.s, i, l, s)
		}
	}
	pid := w.Pid()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkNoLeaks(t, base, pid)
}

func TestExceptionTraceback(t *testing.T) {
	ctx := context.Background()
	w := startEcho(t, ctx)
	defer w.Close()
	if err := errors.Join(w.WriteUTF("raise"), w.WriteUTF("boom from python"), w.Flush(ctx)); err != nil {
		t.Fatal(err)
	}
	v, err := w.ReadStatus(ctx, "Found error inside the Python worker")
	if v != PythonExceptionThrown {
		t.Errorf("status %d, want %d", v, PythonExceptionThrown)
	}
	se, ok := sparkerr.As(err)
	if !ok || se.Class != "PYTHON_EXCEPTION" || se.JavaClass != PythonExceptionClass {
		t.Fatalf("err = %#v, want a PYTHON_EXCEPTION PythonException", err)
	}
	for _, want := range []string{"Found error inside the Python worker: Traceback", "echo_worker.py", "ValueError: boom from python"} {
		if !strings.Contains(se.Error(), want) {
			t.Errorf("message lacks %q:\n%s", want, se.Error())
		}
	}
	if se.Params["traceback"] == "" || !strings.HasPrefix(se.Params["traceback"], "Traceback") {
		t.Errorf("traceback param = %q", se.Params["traceback"])
	}
	// The worker goes on serving after reporting an exception.
	if err := errors.Join(w.WriteUTF("echo"), w.WriteInt(7), w.WriteLong(8), w.WriteUTF("after"), w.Flush(ctx)); err != nil {
		t.Fatal(err)
	}
	if i, err := w.ReadInt(ctx); err != nil || i != 7 {
		t.Fatalf("after exception: %d, %v", i, err)
	}
}

func TestCrashIsAClearError(t *testing.T) {
	base := snapshot(t)
	ctx := context.Background()
	w := startEcho(t, ctx)
	pid := w.Pid()
	if err := errors.Join(w.WriteUTF("crash"), w.Flush(ctx)); err != nil {
		t.Fatal(err)
	}
	_, err := w.ReadStatus(ctx, "unused")
	if err == nil || !strings.Contains(err.Error(), "exited unexpectedly (crashed)") {
		t.Fatalf("err = %v, want a crash error", err)
	}
	if _, again := w.ReadInt(ctx); again != err {
		t.Errorf("a broken worker answers %v, want the first error", again)
	}
	<-w.Exited() // reaped by its own goroutine
	w.Close()
	checkNoLeaks(t, base, pid)
}

func TestHangIsBoundedByContext(t *testing.T) {
	base := snapshot(t)
	w := startEcho(t, context.Background())
	pid := w.Pid()
	if err := errors.Join(w.WriteUTF("hang"), w.Flush(context.Background())); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := w.ReadInt(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The hanging worker ignores its closed socket (it sleeps): Close kills it after the grace.
	w.Close()
	checkNoLeaks(t, base, pid)
}

func TestStartBoundedByContext(t *testing.T) {
	base := snapshot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(ctx, Config{Python: testPython(t), Module: "silent_worker", Env: []string{"PYTHONPATH=" + dir}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	checkNoLeaks(t, base)
}

func TestWorkerThatExitsBeforeConnecting(t *testing.T) {
	var out bytes.Buffer
	_, err := Start(context.Background(), Config{Python: testPython(t), Module: "no_such_module_weir", Output: &out})
	if err == nil || !strings.Contains(err.Error(), "exited before connecting back") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(out.String(), "No module named no_such_module_weir") {
		t.Errorf("output = %q", out.String())
	}
}
