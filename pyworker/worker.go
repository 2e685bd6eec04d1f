package pyworker

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// Config says which worker to start.
type Config struct {
	// Python is the interpreter (PYSPARK_PYTHON); "python3" when empty.
	Python string
	// Module is run as `Python -m Module`, e.g.
	// "pyspark.sql.connect.streaming.worker.foreach_batch_worker".
	Module string
	// Env is added to the server's environment (e.g. SPARK_CONNECT_LOCAL_URL).
	Env []string
	// Output receives the worker's stdout and stderr; the server's stderr when nil.
	Output io.Writer
}

// bufferSize is SPARK_BUFFER_SIZE, the worker's socket buffer (Spark's spark.buffer.size).
const bufferSize = 65536

// authTimeout bounds the worker's connect and authentication (SPARK_AUTH_SOCKET_TIMEOUT, seconds).
const authTimeout = 15

// closeGrace is how long Close waits for a worker to exit after its socket closed before killing.
const closeGrace = 2 * time.Second

// Worker is one running Python worker process and its authenticated socket. Its methods are not
// safe for concurrent use; Close may be called from any goroutine once.
type Worker struct {
	cmd    *exec.Cmd
	conn   net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	pid    int
	exited chan struct{} // closed when the process has been reaped
	// waitErr is the process's exit status, valid once exited is closed.
	waitErr error
	broken  error
}

// Start starts the worker process and returns it once it connected back and authenticated. ctx
// bounds the start only; the process lives until Close.
func Start(ctx context.Context, cfg Config) (*Worker, error) {
	python := cfg.Python
	if python == "" {
		python = "python3"
	}
	if cfg.Module == "" {
		return nil, errors.New("pyworker: no module to run")
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, workerFailure("cannot listen for a Python worker: %v", err).Wrap(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	cmd := exec.Command(python, "-m", cfg.Module)
	cmd.Env = workerEnv(secret, cfg.Env, "PYTHON_WORKER_FACTORY_PORT="+strconv.Itoa(port))
	out := cfg.Output
	if out == nil {
		out = os.Stderr
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Pdeathsig: when the server dies (kill -9), the kernel kills the worker. A PySpark worker
	// whose socket closed may otherwise wait forever for its Spark Connect client's threads,
	// which retry against the dead server. (The signal follows the OS thread that started the
	// process; Go keeps its threads unless a goroutine locked to one exits, which Weir's do not.)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, workerFailure("cannot start Python worker %s -m %s: %v", python, cfg.Module, err).Wrap(err)
	}
	w := &Worker{cmd: cmd, pid: cmd.Process.Pid, exited: make(chan struct{})}
	go func() {
		w.waitErr = cmd.Wait()
		close(w.exited)
	}()

	conn, err := w.accept(ctx, ln, secret)
	if err != nil {
		w.kill()
		<-w.exited
		return nil, err
	}
	w.conn = conn
	w.br = bufio.NewReaderSize(conn, bufferSize)
	w.bw = bufio.NewWriterSize(conn, bufferSize)
	return w, nil
}

// workerEnv is the environment of a PySpark worker process (or daemon) authenticating with
// secret: the server's environment, the variables PythonWorkerFactory sets, then extra and env.
func workerEnv(secret string, env []string, extra ...string) []string {
	out := append(os.Environ(),
		"PYTHON_WORKER_FACTORY_SECRET="+secret,
		"SPARK_AUTH_SOCKET_TIMEOUT="+strconv.Itoa(authTimeout),
		"SPARK_BUFFER_SIZE="+strconv.Itoa(bufferSize),
		"PYTHONUNBUFFERED=YES",
	)
	if os.Getenv("SPARK_HOME") == "" {
		// PySpark's Connect package, imported by `python -m` before the module's __main__ exists,
		// takes itself for a doctest run and looks for SPARK_HOME, which a pyspark-client install
		// has none of (it exits if none is found). Spark's workers inherit the JVM's SPARK_HOME;
		// Weir has no Spark distribution, so any directory will do: the worker reads nothing there.
		out = append(out, "SPARK_HOME="+os.TempDir())
	}
	out = append(out, extra...)
	return append(out, env...)
}

// newSecret is a fresh authentication secret (PythonWorkerFactory's authHelper.secret).
func newSecret() (string, error) {
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(key[:]), nil
}

// accept waits for the worker's connect-back (or its exit, or ctx), authenticates it as
// SocketAuthHelper does and reads the pid it sends.
func (w *Worker) accept(ctx context.Context, ln *net.TCPListener, secret string) (net.Conn, error) {
	type accepted struct {
		conn net.Conn
		err  error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	var conn net.Conn
	select {
	case a := <-ch:
		if a.err != nil {
			return nil, workerFailure("Python worker %d did not connect back: %v", w.pid, a.err).Wrap(a.err)
		}
		conn = a.conn
	case <-w.exited:
		ln.Close()
		if a := <-ch; a.conn != nil { // a connection made just before the exit
			a.conn.Close()
		}
		return nil, workerFailure("Python worker %d exited before connecting back (%v)", w.pid, w.waitErr)
	case <-ctx.Done():
		ln.Close()
		if a := <-ch; a.conn != nil {
			a.conn.Close()
		}
		return nil, fmt.Errorf("pyworker: waiting for Python worker %d: %w", w.pid, ctx.Err())
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	conn.SetDeadline(time.Now().Add(authTimeout * time.Second))
	if err := authenticate(conn, secret); err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pyworker: authenticating Python worker %d: %w", w.pid, ctx.Err())
		}
		return nil, workerFailure("Python worker %d failed to authenticate: %v", w.pid, err).Wrap(err)
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

// authenticate is the server side of pyspark.util._do_server_auth followed by
// get_sock_file_to_executor's pid.
func authenticate(conn net.Conn, secret string) error {
	var b [4]byte
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return err
	}
	n := int32(binary.BigEndian.Uint32(b[:]))
	if n < 0 || n > 1024 {
		return fmt.Errorf("invalid secret length %d", n)
	}
	got := make([]byte, n)
	if _, err := io.ReadFull(conn, got); err != nil {
		return err
	}
	reply := "ok"
	if subtle.ConstantTimeCompare(got, []byte(secret)) != 1 {
		reply = "err"
	}
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(reply)))
	if _, err := conn.Write(append(msg, reply...)); err != nil {
		return err
	}
	if reply != "ok" {
		return errors.New("wrong secret")
	}
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return fmt.Errorf("reading its pid: %w", err)
	}
	return nil
}

// Pid is the worker process's id.
func (w *Worker) Pid() int { return w.pid }

// Exited is closed once the process has exited and been reaped.
func (w *Worker) Exited() <-chan struct{} { return w.exited }

// Close closes the socket, gives the process a short grace to exit by itself, then kills its
// process group, and reaps it. It returns nil when the process was reaped.
func (w *Worker) Close() error {
	w.conn.Close()
	select {
	case <-w.exited:
	case <-time.After(closeGrace):
		w.kill()
		<-w.exited
	}
	// The process group may hold children the worker started; they go with it.
	_ = syscall.Kill(-w.pid, syscall.SIGKILL)
	return nil
}

func (w *Worker) kill() { _ = syscall.Kill(-w.pid, syscall.SIGKILL) }
