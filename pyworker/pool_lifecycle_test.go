package pyworker

import (
	"context"
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weirhq/weir/sparkerr"
)

// gone reports whether pid no longer exists.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func TestPoolPythonExceptionThenReplacementWorker(t *testing.T) {
	base := snapshot(t)
	p := newTestPool(t, 1)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tk := task(t, SQLScalarPandasUDF, alloc, UDF{Command: command(t, "raises"), ArgOffsets: []int{0}})
	_, failed, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{1, 2, 3})))
	se, ok := sparkerr.As(err)
	if !ok || se.Class != "PYTHON_EXCEPTION" || se.JavaClass != PythonExceptionClass {
		t.Fatalf("err = %v, want a PythonException", err)
	}
	for _, want := range []string{pythonErrorMsg, "Traceback (most recent call last)", "in raises", "ValueError: boom from a pandas udf, 3 rows"} {
		if !strings.Contains(se.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, se.Error())
		}
	}
	// A worker that raised is not reused (worker.py exits its main): the next task gets another.
	if !gone(failed) {
		t.Errorf("worker %d that raised still runs after its stream closed", failed)
	}
	tk = task(t, SQLScalarPandasUDF, alloc, UDF{Command: command(t, "identity"), ArgOffsets: []int{0}})
	got, pid, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{5})))
	checkRows(t, "after the exception", got, err, "_0=5")
	if pid == failed {
		t.Errorf("the task after an exception ran on the failed worker %d", pid)
	}
	daemonPid := p.daemon.pid
	p.Close()
	alloc.AssertSize(t, 0)
	checkNoLeaks(t, base, failed, pid, daemonPid)
}

func TestPoolVersionMismatchIsAPythonException(t *testing.T) {
	p := newTestPool(t, 1)
	defer p.Close()
	tk := task(t, SQLScalarPandasUDF, nil, UDF{Command: command(t, "identity"), ArgOffsets: []int{0}})
	tk.PythonVersion = "2.7"
	_, _, err := run(t, p, tk, one(longs(memory.DefaultAllocator, []string{"a"}, []any{1})))
	se, ok := sparkerr.As(err)
	if !ok || se.Class != "PYTHON_EXCEPTION" || !strings.Contains(se.Params["traceback"], "PYTHON_VERSION_MISMATCH") {
		t.Fatalf("err = %v, want a PYTHON_VERSION_MISMATCH PythonException", err)
	}
}

func TestPoolCancelMidTaskKillsTheWorker(t *testing.T) {
	base := snapshot(t)
	p := newTestPool(t, 1)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s, err := p.Open(context.Background(), task(t, SQLScalarPandasUDF, alloc, UDF{Command: command(t, "sleeps"), ArgOffsets: []int{0}}))
	if err != nil {
		t.Fatal(err)
	}
	pid := s.Pid()
	rec := longs(alloc, []string{"a"}, []any{1})
	if err := s.Send(context.Background(), one(rec)); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := s.CloseSend(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The query is interrupted while the function sleeps.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	if _, err := s.Recv(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Recv = %v, want context.Canceled", err)
	}
	if _, err := s.Recv(context.Background()); err == nil || !strings.Contains(err.Error(), "was killed") {
		t.Errorf("Recv after the kill = %v, want the worker killed", err)
	}
	s.Close()
	if !gone(pid) {
		t.Errorf("worker %d still runs after its task was cancelled", pid)
	}
	// The pool goes on with a new worker.
	tk := task(t, SQLScalarPandasUDF, alloc, UDF{Command: command(t, "identity"), ArgOffsets: []int{0}})
	got, next, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{9})))
	checkRows(t, "after the kill", got, err, "_0=9")
	daemonPid := p.daemon.pid
	p.Close()
	alloc.AssertSize(t, 0)
	checkNoLeaks(t, base, pid, next, daemonPid)
}

func TestPoolWorkerCrashIsAClearError(t *testing.T) {
	p := newTestPool(t, 1)
	defer p.Close()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s, err := p.Open(context.Background(), task(t, SQLScalarPandasUDF, alloc, UDF{Command: command(t, "sleeps"), ArgOffsets: []int{0}}))
	if err != nil {
		t.Fatal(err)
	}
	rec := longs(alloc, []string{"a"}, []any{1})
	if err := s.Send(context.Background(), one(rec)); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(s.Pid(), syscall.SIGKILL) // as the OOM killer would
	_, err = s.Recv(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exited unexpectedly (crashed)") {
		t.Errorf("Recv = %v, want a crash", err)
	}
	if errors.Is(err, io.EOF) {
		t.Errorf("Recv = %v: a crash reads as io.EOF, the end of the results", err)
	}
	if err := s.Send(context.Background(), one(rec)); err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Errorf("Send after the crash = %v, want the crash", err)
	}
	s.Close()
	rec.Release()
	alloc.AssertSize(t, 0)
}

func TestPoolReusesAWorker(t *testing.T) {
	p := newTestPool(t, 2)
	defer p.Close()
	tk := task(t, SQLScalarArrowUDF, nil, UDF{Command: command(t, "scalar_arrow"), ArgOffsets: []int{0}})
	var pids []int
	for i := 0; i < 3; i++ {
		got, pid, err := run(t, p, tk, one(longs(memory.DefaultAllocator, []string{"a"}, []any{i})))
		checkRows(t, "reuse", got, err, "_0="+string(rune('0'+3*i)))
		pids = append(pids, pid)
	}
	if pids[0] != pids[1] || pids[1] != pids[2] {
		t.Errorf("three tasks in a row ran on workers %v, want one reused", pids)
	}
	// A stream closed before anything was sent gives its worker back untouched.
	s, err := p.Open(context.Background(), tk)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, pid, err := run(t, p, tk, one(longs(memory.DefaultAllocator, []string{"a"}, []any{1})))
	checkRows(t, "after an unused stream", got, err, "_0=3")
	if pid != pids[0] {
		t.Errorf("after an unused stream the task ran on worker %d, want %d", pid, pids[0])
	}
	// A stream closed before its end kills its worker rather than reusing it.
	s, err = p.Open(context.Background(), tk)
	if err != nil {
		t.Fatal(err)
	}
	if s.Pid() != pids[0] {
		t.Errorf("Open took worker %d, want the idle %d", s.Pid(), pids[0])
	}
	rec := longs(memory.DefaultAllocator, []string{"a"}, []any{1})
	if err := s.Send(context.Background(), one(rec)); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	s.Close()
	if !gone(pids[0]) {
		t.Errorf("worker %d of an abandoned stream still runs", pids[0])
	}
	_, pid, err = run(t, p, tk, one(longs(memory.DefaultAllocator, []string{"a"}, []any{1})))
	if err != nil || pid == pids[0] {
		t.Errorf("after an abandoned stream: worker %d (was %d), %v", pid, pids[0], err)
	}
}

func TestPoolBoundsBusyWorkers(t *testing.T) {
	base := snapshot(t)
	p := newTestPool(t, 2)
	tk := task(t, SQLScalarPandasUDF, nil, UDF{Command: command(t, "identity"), ArgOffsets: []int{0}})
	ctx := context.Background()
	a, err := p.Open(ctx, tk)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Open(ctx, tk)
	if err != nil {
		t.Fatal(err)
	}
	if a.Pid() == b.Pid() {
		t.Errorf("two busy streams share worker %d", a.Pid())
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if s, err := p.Open(short, tk); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third Open with MaxWorkers 2 = %v, %v: want it to wait until the deadline", s, err)
	}
	// Finishing a task frees its worker for the waiting Open.
	opened := make(chan *Stream)
	go func() {
		s, err := p.Open(ctx, tk)
		if err != nil {
			t.Error(err)
		}
		opened <- s
	}()
	if err := a.CloseSend(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Recv(ctx); err != io.EOF {
		t.Fatalf("Recv of an empty task = %v, want io.EOF", err)
	}
	a.Close()
	c := <-opened
	if c == nil {
		t.FailNow()
	}
	if c.Pid() != a.Pid() {
		t.Errorf("the waiting Open got worker %d, want the released %d", c.Pid(), a.Pid())
	}
	pids := []int{a.Pid(), b.Pid(), p.daemon.pid}
	// Close kills busy workers too; their streams fail, then close.
	p.Close()
	if _, err := b.Recv(ctx); err == nil || !strings.Contains(err.Error(), "its pool was closed") {
		t.Errorf("Recv on a stream of a closed pool = %v, want the pool closed", err)
	}
	b.Close()
	c.Close()
	if _, err := p.Open(ctx, tk); err == nil {
		t.Error("Open on a closed pool succeeded")
	}
	checkNoLeaks(t, base, pids...)
}

// TestPoolSendAllBeforeRecv sends far more output than socket buffers hold before receiving:
// the stream's reader must keep draining the worker.
func TestPoolSendAllBeforeRecv(t *testing.T) {
	p := newTestPool(t, 1)
	defer p.Close()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tk := task(t, SQLScalarArrowUDF, alloc, UDF{Command: command(t, "scalar_arrow"), ArgOffsets: []int{0}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := p.Open(ctx, tk)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const batches, size = 64, 20000 // 64 × 160 KB each way
	vals := make([]any, size)
	for i := range vals {
		vals[i] = i
	}
	for i := 0; i < batches; i++ {
		rec := longs(alloc, []string{"a"}, vals)
		err := s.Send(ctx, one(rec))
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CloseSend(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.Ready() {
		// Not an error: the worker may still be converting; Recv waits.
		t.Log("no result queued yet")
	}
	var n int64
	for {
		rec, err := s.Recv(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(0)
		if col.DataType().ID() != arrow.INT64 || col.ValueStr(int(rec.NumRows()-1)) != "59997" {
			t.Errorf("batch of %d rows ends with %s", rec.NumRows(), col.ValueStr(int(rec.NumRows()-1)))
		}
		n += rec.NumRows()
		rec.Release()
	}
	if n != batches*size {
		t.Errorf("%d result rows, want %d", n, batches*size)
	}
	s.Close()
	alloc.AssertSize(t, 0)
}

func TestPoolReplacesDeadWorkersAndDaemon(t *testing.T) {
	base := snapshot(t)
	p := newTestPool(t, 1)
	tk := task(t, SQLScalarArrowUDF, nil, UDF{Command: command(t, "scalar_arrow"), ArgOffsets: []int{0}})
	batch := func() Group { return one(longs(memory.DefaultAllocator, []string{"a"}, []any{2})) }
	got, first, err := run(t, p, tk, batch())
	checkRows(t, "first task", got, err, "_0=6")

	// An idle worker that died (killed by hand, by the OOM killer) is not handed out.
	syscall.Kill(first, syscall.SIGKILL)
	for !gone(first) {
		time.Sleep(5 * time.Millisecond)
	}
	got, second, err := run(t, p, tk, batch())
	checkRows(t, "after the idle worker died", got, err, "_0=6")
	if second == first {
		t.Fatalf("the dead worker %d ran a task", first)
	}

	// A dead daemon is started again. (Its worker is killed first, while the daemon lives to
	// reap it: a worker orphaned by a dead daemon is pid 1's to reap.)
	s, err := p.Open(context.Background(), tk)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), batch()); err != nil {
		t.Fatal(err)
	}
	s.Close() // abandoned mid-task: its worker is killed
	if !gone(s.Pid()) {
		t.Fatal("the abandoned worker still runs")
	}
	oldDaemon := p.daemon.pid
	syscall.Kill(oldDaemon, syscall.SIGKILL)
	<-p.daemon.exited
	got, third, err := run(t, p, tk, batch())
	checkRows(t, "after the daemon died", got, err, "_0=6")
	if p.daemon.pid == oldDaemon {
		t.Errorf("the pool still uses its dead daemon %d", oldDaemon)
	}
	pids := []int{first, second, third, oldDaemon, p.daemon.pid}
	p.Close()
	checkNoLeaks(t, base, pids...)
}
