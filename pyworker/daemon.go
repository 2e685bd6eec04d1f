package pyworker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// daemonModule is PySpark's fork server (PythonWorkerFactory's spark.python.daemon.module) and
// workerModule the worker main it runs in each forked child (spark.python.worker.module).
const (
	daemonModule = "pyspark.daemon"
	workerModule = "pyspark.worker"
)

// daemon is one running `python -m pyspark.daemon pyspark.worker` (or the pool's Module), the way PythonWorkerFactory
// starts it (createDaemonWorker / startDaemon). Its protocol (pyspark/daemon.py manager):
//
//   - it listens on a loopback port and writes that port to its stdout as an int;
//   - each connection to the port is forked into a worker, which first writes its pid as an int,
//     then authenticates the connection (the client sends the secret as a UTF string, the worker
//     answers "ok" or "err") and runs worker.py's main on it; with SPARK_REUSE_WORKER set, a
//     worker whose task ended cleanly (END_OF_STREAM) runs main again on the same socket;
//   - an int written to its stdin is a pid it SIGKILLs; when its stdin closes it SIGHUPs its
//     process group (every worker) and exits. The stdin pipe is ours: when this process dies,
//     even by kill -9, the pipe closes and the daemon and its workers go with it.
//
// The daemon runs in its own process group, which holds the workers too; it ignores SIGCHLD, so
// the kernel reaps the workers.
type daemon struct {
	cmd    *exec.Cmd
	pid    int
	port   int
	secret string

	mu    sync.Mutex // guards stdin
	stdin io.WriteCloser

	exited  chan struct{} // closed once the daemon has been reaped
	waitErr error         // valid once exited is closed
	copied  chan struct{} // closed once the stdout copy ended (it owns the stdout pipe)
	// errCopied is closed once the stderr copy ended: every holder of the pipe (the daemon and
	// its workers) has exited.
	errCopied chan struct{}
}

// startDaemon starts the daemon and reads its port; ctx bounds the start only.
func startDaemon(ctx context.Context, cfg PoolConfig) (*daemon, error) {
	python := cfg.Python
	if python == "" {
		python = "python3"
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	module := cfg.Module
	if module == "" {
		module = workerModule
	}
	cmd := exec.Command(python, "-m", daemonModule, module)
	cmd.Env = workerEnv(secret, cfg.Env, "SPARK_REUSE_WORKER=1")
	out := cfg.Output
	if out == nil {
		out = os.Stderr
	}
	// Its stderr is a pipe of ours rather than exec's copy, which Wait would wait for: the
	// workers inherit it and may outlive the daemon by a moment.
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	err = cmd.Start()
	errW.Close()
	if err != nil {
		errR.Close()
		return nil, workerFailure("cannot start the Python daemon %s -m %s: %v", python, daemonModule, err).Wrap(err)
	}
	d := &daemon{cmd: cmd, pid: cmd.Process.Pid, secret: secret, stdin: stdin,
		exited: make(chan struct{}), copied: make(chan struct{}), errCopied: make(chan struct{})}
	go func() {
		defer close(d.errCopied)
		defer errR.Close()
		_, _ = io.Copy(out, errR)
	}()

	// The port is the first int on stdout; what follows (the workers' prints) goes to out.
	portc := make(chan error, 1)
	go func() {
		defer close(d.copied)
		p, err := readInt(stdout)
		d.port = int(p)
		portc <- err
		if err == nil {
			dst := out
			if cfg.Stdout != nil {
				dst = cfg.Stdout
			}
			_, _ = io.Copy(dst, stdout)
		}
	}()
	stop := context.AfterFunc(ctx, d.killGroup)
	err = <-portc
	stop()
	if err == nil && (d.port <= 0 || d.port > 65535) {
		err = fmt.Errorf("invalid port %d", d.port)
	}
	if err != nil {
		d.killGroup()
		d.wait()
		<-d.errCopied
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pyworker: starting the Python daemon: %w", ctx.Err())
		}
		return nil, workerFailure("the Python daemon did not report its port (%v, exit %v)", err, d.waitErr).Wrap(err)
	}
	// Wait closes stdout once the daemon exited, which ends the copy even if a worker that
	// inherited stdout outlives the daemon.
	go d.wait()
	return d, nil
}

// wait reaps the daemon.
func (d *daemon) wait() {
	d.waitErr = d.cmd.Wait()
	<-d.copied
	close(d.exited)
}

// alive reports whether the daemon process is still running.
func (d *daemon) alive() bool {
	select {
	case <-d.exited:
		return false
	default:
		return true
	}
}

// fork asks the daemon for a new worker: it connects, reads the forked worker's pid and
// authenticates (PythonWorkerFactory.createSocket + authHelper.authToServer).
func (d *daemon) fork(ctx context.Context) (*pooledWorker, error) {
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(d.port)))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pyworker: connecting to the Python daemon: %w", ctx.Err())
		}
		return nil, workerFailure("cannot connect to the Python daemon %d: %v", d.pid, err).Wrap(err)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	conn.SetDeadline(time.Now().Add(authTimeout * time.Second))
	pid, err := d.handshake(conn)
	if err != nil {
		conn.Close()
		if pid > 0 {
			d.killWorker(pid)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pyworker: forking a Python worker: %w", ctx.Err())
		}
		return nil, workerFailure("the Python daemon %d could not start a worker: %v", d.pid, err).Wrap(err)
	}
	conn.SetDeadline(time.Time{})
	return &pooledWorker{
		conn:   conn,
		br:     bufio.NewReaderSize(conn, bufferSize),
		bw:     bufio.NewWriterSize(conn, bufferSize),
		pid:    pid,
		daemon: d,
	}, nil
}

// handshake reads the forked worker's pid and sends the secret, as daemon.py's child expects.
func (d *daemon) handshake(conn net.Conn) (int, error) {
	pid, err := readInt(conn)
	if err != nil {
		return 0, fmt.Errorf("reading the worker's pid: %w", err)
	}
	if pid <= 0 {
		// daemon.py writes the fork's errno instead of a pid when fork fails.
		return 0, fmt.Errorf("fork failed (%d)", pid)
	}
	if err := writeBytes(conn, []byte(d.secret)); err != nil {
		return int(pid), err
	}
	reply, err := readFrame(conn)
	if err != nil {
		return int(pid), fmt.Errorf("reading the authentication reply: %w", err)
	}
	if string(reply) != "ok" {
		return int(pid), errors.New("the worker refused the secret")
	}
	return int(pid), nil
}

// killWorker has the daemon SIGKILL a worker it forked (PythonWorkerFactory.stopWorker); if the
// daemon is gone the worker is signalled directly.
func (d *daemon) killWorker(pid int) {
	d.mu.Lock()
	err := writeInt(d.stdin, int32(pid))
	d.mu.Unlock()
	if err != nil || !d.alive() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func (d *daemon) killGroup() { _ = syscall.Kill(-d.pid, syscall.SIGKILL) }

// close shuts the daemon down: its stdin closes (it SIGHUPs its workers and exits); after a short
// grace the whole process group is killed; the daemon is reaped.
func (d *daemon) close() {
	d.mu.Lock()
	d.stdin.Close()
	d.mu.Unlock()
	select {
	case <-d.exited:
	case <-time.After(closeGrace):
		d.killGroup()
		<-d.exited
	}
	// Workers that ignored the SIGHUP (or were mid-fork) go with the group.
	d.killGroup()
	<-d.errCopied
}
