package pyworker

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// PoolConfig says how a Pool runs its workers.
type PoolConfig struct {
	// Python is the interpreter (PYSPARK_PYTHON); "python3" when empty.
	Python string
	// MaxWorkers bounds the workers running tasks at once (Open blocks beyond it); the number of
	// CPUs when not positive.
	MaxWorkers int
	// Output receives the daemon's and the workers' stdout and stderr; the server's stderr when
	// nil.
	Output io.Writer
	// Stdout, when set, receives their stdout instead of Output (the lines PySpark's worker_io
	// writes there when PYSPARK_SPARK_SESSION_UUID is set: the workers' log records).
	Stdout io.Writer
	// Env is added to the server's environment for the daemon and its workers.
	Env []string
	// Module is the worker main the daemon runs in each forked worker (Spark's
	// spark.python.worker.module; PythonPlannerRunner's workerModule, e.g. AnalyzeUDTFModule);
	// "pyspark.worker", which runs Tasks, when empty.
	Module string
}

// Pool runs tasks on reusable PySpark workers forked by one pyspark.daemon, the way Spark's
// PythonWorkerFactory does with spark.python.use.daemon and spark.python.worker.reuse: a worker
// whose task ended cleanly goes back to the idle list and runs the next task on the same socket;
// any other worker is killed. It is safe for concurrent use.
type Pool struct {
	cfg  PoolConfig
	done chan struct{} // closed by Close

	startMu sync.Mutex // serializes daemon starts

	mu       sync.Mutex
	closed   bool
	daemon   *daemon
	idle     []*pooledWorker
	busy     map[*pooledWorker]struct{}
	filesDir string
	// reserved counts the workers granted (reservation.go); waiting are the requests waiting
	// for theirs, in arrival order.
	reserved int
	waiting  []*grant
}

// pooledWorker is one worker forked by the daemon and its authenticated socket.
type pooledWorker struct {
	conn   net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	pid    int
	daemon *daemon
}

// NewPool returns a pool; it starts nothing until the first Open.
func NewPool(cfg PoolConfig) *Pool {
	if cfg.MaxWorkers <= 0 {
		cfg.MaxWorkers = runtime.NumCPU()
	}
	return &Pool{
		cfg:  cfg,
		done: make(chan struct{}),
		busy: map[*pooledWorker]struct{}{},
	}
}

// errPoolClosed is the error of an Open on a closed pool.
func errPoolClosed() error { return workerFailure("the Python worker pool is closed") }

// Open starts task t on an idle worker, or on a new one, once one worker is reserved for it
// (reservation.go: at most MaxWorkers are reserved at once, except for a larger Reservation
// granted alone); it waits for the reservation bounded by ctx. The task's header is written with
// its first input.
func (p *Pool) Open(ctx context.Context, t Task) (*Stream, error) {
	if families[t.EvalType] == nil {
		return nil, workerFailure("Weir cannot run Python functions of eval type %d", t.EvalType)
	}
	if p.cfg.Module != "" && p.cfg.Module != workerModule {
		return nil, workerFailure("the Python worker pool of %s runs no tasks", p.cfg.Module)
	}
	if err := p.reserve(ctx, 1); err != nil {
		return nil, err
	}
	s, err := p.openReserved(ctx, t, func() { p.unreserve(1) })
	if err != nil {
		p.unreserve(1)
	}
	return s, err
}

// openReserved starts task t on a worker already reserved; done is called when the task's
// stream is closed (not when openReserved fails).
func (p *Pool) openReserved(ctx context.Context, t Task, done func()) (*Stream, error) {
	fam := families[t.EvalType]
	if fam == nil {
		return nil, workerFailure("Weir cannot run Python functions of eval type %d", t.EvalType)
	}
	if t.Barrier != nil {
		port, secret, err := t.Barrier.join(t.PartitionIndex)
		if err != nil {
			return nil, err
		}
		t.barrierPort, t.barrierSecret = port, secret
		inner := done
		done = func() {
			t.Barrier.leave()
			inner()
		}
	}
	w, filesDir, err := p.worker(ctx)
	if err != nil {
		if t.Barrier != nil {
			t.Barrier.leave()
		}
		return nil, err
	}
	s := newStream(p, w, t, fam, filesDir)
	s.onClose = done
	return s, nil
}

// worker takes an idle worker that is still alive, or forks a new one.
func (p *Pool) worker(ctx context.Context) (*pooledWorker, string, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, "", errPoolClosed()
	}
	for len(p.idle) > 0 {
		w := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if w.idleAlive() {
			p.busy[w] = struct{}{}
			dir := p.filesDir
			p.mu.Unlock()
			return w, dir, nil
		}
		w.kill()
	}
	p.mu.Unlock()

	d, dir, err := p.runningDaemon(ctx)
	if err != nil {
		return nil, "", err
	}
	w, err := d.fork(ctx)
	if err != nil {
		return nil, "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		w.kill()
		return nil, "", errPoolClosed()
	}
	p.busy[w] = struct{}{}
	return w, dir, nil
}

// runningDaemon returns the pool's daemon, starting it (again, if it died) when needed, and the
// pool's files directory.
func (p *Pool) runningDaemon(ctx context.Context) (*daemon, string, error) {
	p.startMu.Lock()
	defer p.startMu.Unlock()
	p.mu.Lock()
	d, dir, closed := p.daemon, p.filesDir, p.closed
	p.mu.Unlock()
	if closed {
		return nil, "", errPoolClosed()
	}
	if d != nil && d.alive() {
		return d, dir, nil
	}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "weir-pyfiles-"); err != nil {
			return nil, "", workerFailure("cannot create the Python workers' files directory: %v", err).Wrap(err)
		}
	}
	// Every worker the daemon forks writes its faulthandler traceback (a segfault's) to
	// faultDir/<pid> while it runs a task; a crash's error quotes it (faultLog).
	faultDir := filepath.Join(dir, "faulthandler")
	if err := os.MkdirAll(faultDir, 0o700); err != nil {
		return nil, "", workerFailure("cannot create the Python workers' faulthandler directory: %v", err).Wrap(err)
	}
	cfg := p.cfg
	cfg.Env = append(slices.Clip(cfg.Env), "PYTHON_FAULTHANDLER_DIR="+faultDir)
	nd, err := startDaemon(ctx, cfg)
	p.mu.Lock()
	if p.filesDir == "" {
		p.filesDir = dir
	}
	if err == nil && p.closed {
		err = errPoolClosed()
		defer nd.close()
	}
	if err == nil {
		p.daemon = nd
	}
	p.mu.Unlock()
	if d != nil {
		d.close() // reap the dead one
	}
	if err != nil {
		return nil, "", err
	}
	return nd, dir, nil
}

// maxFaultLog bounds the part of a faulthandler log a crash's error quotes.
const maxFaultLog = 16 << 10

// faultLog returns (and removes) what the crashed worker pid's faulthandler wrote, "" if nothing.
func (p *Pool) faultLog(pid int) string {
	p.mu.Lock()
	dir := p.filesDir
	p.mu.Unlock()
	if dir == "" {
		return ""
	}
	path := filepath.Join(dir, "faulthandler", strconv.Itoa(pid))
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer os.Remove(path)
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxFaultLog))
	return strings.TrimSpace(string(b))
}

// release ends a stream's use of w: back to the idle list when reusable and the pool keeps
// fewer than MaxWorkers processes, killed otherwise (after a reservation larger than MaxWorkers
// the extra workers end with their tasks).
func (p *Pool) release(w *pooledWorker, reusable bool) {
	p.mu.Lock()
	delete(p.busy, w)
	if reusable && !p.closed && len(p.idle)+len(p.busy) < p.cfg.MaxWorkers {
		p.idle = append(p.idle, w)
		reusable = true
	} else {
		reusable = false
	}
	p.mu.Unlock()
	if !reusable {
		w.kill()
		w.waitGone()
	}
}

// Close kills the daemon and every worker, idle or busy (a busy stream's Send and Recv then
// fail), reaps them and removes the pool's files directory. Opens waiting for a worker fail.
func (p *Pool) Close() error {
	p.startMu.Lock() // no daemon start in flight
	defer p.startMu.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	workers := p.idle
	p.idle = nil
	for w := range p.busy {
		workers = append(workers, w)
	}
	d, dir := p.daemon, p.filesDir
	p.mu.Unlock()
	// The workers die while the daemon, which ignores SIGCHLD, is alive to have them reaped.
	for _, w := range workers {
		w.kill()
	}
	for _, w := range workers {
		w.waitGone()
	}
	if d != nil {
		d.close()
	}
	if dir != "" {
		return os.RemoveAll(dir)
	}
	return nil
}

// idleAlive reports whether an idle worker's socket is still open and silent: a non-blocking
// peek finds neither the end of a worker that died while idle nor stray bytes.
func (w *pooledWorker) idleAlive() bool {
	if w.br.Buffered() > 0 {
		return false
	}
	sc, ok := w.conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = errors.Is(rerr, syscall.EAGAIN)
		return true // never wait
	})
	return err == nil && alive
}

// kill closes the worker's socket and has it killed. It may be called more than once.
func (w *pooledWorker) kill() {
	w.conn.Close()
	w.daemon.killWorker(w.pid)
}

// waitGone waits, bounded, until the killed worker's process no longer exists (the daemon
// ignores SIGCHLD: the kernel reaps its children).
func (w *pooledWorker) waitGone() {
	deadline := time.Now().Add(closeGrace)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(w.pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
