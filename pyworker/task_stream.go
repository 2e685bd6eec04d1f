package pyworker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// pythonErrorMsg is how Spark introduces a worker's traceback (PythonException's message).
const pythonErrorMsg = "An exception was thrown from the Python worker. Please see the stack trace below."

// Stream is one task running on a pooled worker: Send and CloseSend write its input (from one
// goroutine), Recv and Ready read its results (from one goroutine, maybe another), Close ends it
// (from any goroutine, also to abort the others).
//
// The worker's output is read by the stream's own goroutine into a queue as soon as the worker
// writes it, so a caller that sends all its input before receiving never deadlocks against a
// worker blocked writing output; results keep their order. The queued batches are allocated with
// Task.Alloc, which bounds them. After the results, the reader takes worker.py's end section
// (TIMING_DATA and six longs, END_OF_DATA_SECTION, accumulator updates, END_OF_STREAM once the
// input's END_OF_STREAM reached the worker); a worker that got there is reusable.
type Stream struct {
	pool     *Pool
	w        *pooledWorker
	task     Task
	fam      *family
	enc      inputEncoder
	filesDir string
	onClose  func() // gives the task's reserved worker back (Close)

	// Writer side (Send, CloseSend).
	sendClosed bool
	sendErr    error

	mu       sync.Mutex
	started  bool // the task header is being or was written
	closing  bool // Close began: no more writes
	queue    []arrow.RecordBatch
	done     bool  // the reader ended
	err      error // why, nil after a clean end
	reusable bool  // the end section ended with END_OF_STREAM
	notify   chan struct{}

	readerDone chan struct{}
	killOnce   sync.Once
	killed     chan struct{}
	closeOnce  sync.Once
}

func newStream(p *Pool, w *pooledWorker, t Task, fam *family, filesDir string) *Stream {
	s := &Stream{
		pool: p, w: w, task: t, fam: fam, filesDir: filesDir,
		notify:     make(chan struct{}, 1),
		readerDone: make(chan struct{}),
		killed:     make(chan struct{}),
	}
	s.enc = fam.newInput(&s.task)
	go s.read()
	return s
}

// Pid is the worker process running the task.
func (s *Stream) Pid() int { return s.w.pid }

// Send writes one input unit (see Group), the task's header first, bounded by ctx (which kills
// the worker when done first). It fails with the worker's PythonException once the worker raised.
func (s *Stream) Send(ctx context.Context, g Group) error {
	if s.sendClosed {
		return errors.New("pyworker: Send after CloseSend")
	}
	return s.write(ctx, &g, func(w io.Writer) error { return s.enc.send(w, g) })
}

// CloseSend ends the input: the family's end marker, then END_OF_STREAM.
func (s *Stream) CloseSend(ctx context.Context) error {
	if s.sendClosed {
		return s.sendErr
	}
	err := s.write(ctx, nil, func(w io.Writer) error {
		if err := s.enc.closeSend(w); err != nil {
			return err
		}
		return writeInt(w, EndOfStream)
	})
	s.sendClosed = true
	return err
}

// write runs op on the worker's buffered socket (after the header if not written yet) and
// flushes.
func (s *Stream) write(ctx context.Context, firstUnit *Group, op func(w io.Writer) error) error {
	if s.sendErr != nil {
		return s.sendErr
	}
	if err := s.readerErr(); err != nil {
		s.sendErr = err
		return err
	}
	if err := ctx.Err(); err != nil {
		s.kill()
		s.sendErr = fmt.Errorf("pyworker: Python worker %d: %w", s.w.pid, err)
		return s.sendErr
	}
	s.mu.Lock()
	closing, first := s.closing, !s.started
	s.started = true
	s.mu.Unlock()
	if closing {
		s.sendErr = errors.New("pyworker: the stream is closed")
		return s.sendErr
	}
	stop := context.AfterFunc(ctx, s.kill)
	err := func() error {
		if first {
			conf, err := s.fam.evalConf(&s.task, firstUnit)
			if err != nil {
				return err
			}
			if err := writeTaskHeader(s.w.bw, &s.task, s.fam, conf, s.filesDir); err != nil {
				return err
			}
		}
		if err := op(s.w.bw); err != nil {
			return err
		}
		return s.w.bw.Flush()
	}()
	if !stop() {
		s.sendErr = fmt.Errorf("pyworker: Python worker %d: %w", s.w.pid, ctx.Err())
		return s.sendErr
	}
	if err == nil {
		return nil
	}
	var ne *net.OpError
	if errors.As(err, &ne) {
		// The worker is gone: its output says why (a traceback, or the crash) once read.
		select {
		case <-s.readerDone:
		case <-time.After(closeGrace):
		case <-ctx.Done():
		}
		if rerr := s.readerErr(); rerr != nil {
			err = rerr
		} else {
			err = workerFailure("Python worker %d: %v", s.w.pid, err).Wrap(err)
		}
	}
	// The input may be cut mid-frame: the worker cannot go on.
	s.kill()
	s.sendErr = err
	return err
}

// readerErr is the reader's error once it ended with one.
func (s *Stream) readerErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.err
	}
	return nil
}

// Recv returns the next result batch (the caller releases it), io.EOF after the last, or the
// worker's error. ctx bounds the wait; when it is done first the worker is killed.
func (s *Stream) Recv(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			rec := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return rec, nil
		}
		if s.done {
			err := s.err
			s.mu.Unlock()
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		s.mu.Unlock()
		select {
		case <-s.notify:
		case <-ctx.Done():
			s.kill()
			return nil, fmt.Errorf("pyworker: Python worker %d: %w", s.w.pid, ctx.Err())
		}
	}
}

// Ready reports whether Recv would not block: a result is queued or the output ended.
func (s *Stream) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) > 0 || s.done
}

// Close ends the task: a worker whose output ended cleanly, or that was given nothing, goes back
// to the pool; any other is killed (the task was cancelled, failed, or not read to its end).
// Queued results are released.
func (s *Stream) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		reusable := s.done && s.err == nil && s.reusable
		untouched := !s.started && !s.done
		s.mu.Unlock()
		if untouched && !s.isKilled() {
			// Nothing was written: the worker still waits for a task's header. Its reader
			// goroutine is stopped with a past read deadline, which leaves the socket usable.
			s.w.conn.SetReadDeadline(time.Unix(1, 0))
			<-s.readerDone
			s.w.conn.SetReadDeadline(time.Time{})
			s.mu.Lock()
			reusable = s.err != nil && errors.Is(s.err, os.ErrDeadlineExceeded) && s.w.br.Buffered() == 0
			s.mu.Unlock()
		}
		if !reusable {
			s.kill()
		}
		<-s.readerDone
		s.mu.Lock()
		for _, rec := range s.queue {
			rec.Release()
		}
		s.queue = nil
		s.mu.Unlock()
		s.pool.release(s.w, reusable)
		if s.onClose != nil {
			s.onClose()
		}
	})
	return nil
}

// kill closes the worker's socket and has the daemon kill it.
func (s *Stream) kill() {
	s.killOnce.Do(func() {
		close(s.killed)
		s.w.kill()
	})
}

func (s *Stream) isKilled() bool {
	select {
	case <-s.killed:
		return true
	default:
		return false
	}
}

// read is the stream's reader goroutine: it queues the worker's output until its end.
func (s *Stream) read() {
	defer close(s.readerDone)
	reusable, err := s.readOutput()
	s.mu.Lock()
	s.done, s.err, s.reusable = true, err, reusable
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *Stream) push(rec arrow.RecordBatch) {
	s.mu.Lock()
	s.queue = append(s.queue, rec)
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// readOutput reads the data section, then the end section; it reports whether the worker may
// be reused.
func (s *Stream) readOutput() (bool, error) {
	r := s.w.br
	for {
		v, err := readInt(r)
		if err != nil {
			return false, s.readFailure(err)
		}
		switch v {
		case PythonExceptionThrown:
			tb, err := readFrame(r)
			if err != nil {
				return false, s.readFailure(err)
			}
			return false, PythonException(pythonErrorMsg, string(tb))
		case TimingData:
			reusable, err := readEndSection(r)
			if err != nil {
				return false, s.readFailure(err)
			}
			return reusable, nil
		default:
			if err := s.fam.decode(v, r, &s.task, s.push); err != nil {
				return false, s.readFailure(err)
			}
		}
	}
}

// readEndSection reads what worker.py's main writes after the data: the rest of TIMING_DATA
// (boot, init, finish times and processing ms), the memory and disk bytes spilled,
// END_OF_DATA_SECTION, the accumulator updates (int n, n length-prefixed pickles, which Weir
// has no use for), then END_OF_STREAM when the worker may be reused (END_OF_DATA_SECTION when
// it exits instead).
func readEndSection(r io.Reader) (bool, error) {
	for i := 0; i < 6; i++ {
		if _, err := readLong(r); err != nil {
			return false, err
		}
	}
	v, err := readInt(r)
	if err != nil {
		return false, err
	}
	if v != EndOfDataSection {
		return false, fmt.Errorf("protocol error: %d after the timing data, want END_OF_DATA_SECTION", v)
	}
	n, err := readInt(r)
	if err != nil {
		return false, err
	}
	for i := int32(0); i < n; i++ {
		if _, err := readFrame(r); err != nil {
			return false, err
		}
	}
	v, err = readInt(r)
	if err != nil {
		return false, err
	}
	return v == EndOfStream, nil
}

// readFailure turns a read error into the stream's error: a crash when the worker's socket
// ended (or was reset: the worker died with input unread), a kill when the stream was killed.
// An end of input is never wrapped: the stream's error must not read as the io.EOF that ends its
// results.
func (s *Stream) readFailure(err error) error {
	eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	failure := func(format string, args ...any) error {
		e := workerFailure(format, args...)
		if eof {
			return e
		}
		return e.Wrap(err)
	}
	if s.isKilled() {
		return failure("Python worker %d was killed", s.w.pid)
	}
	select {
	case <-s.pool.done:
		return failure("Python worker %d was killed: its pool was closed", s.w.pid)
	default:
	}
	if eof || errors.Is(err, syscall.ECONNRESET) {
		// A fatal signal's traceback, when the worker's faulthandler wrote one (Spark quotes it
		// the same way: "Fatal Python error: Segmentation fault" and the stack).
		return crashFailure(fmt.Sprintf("Python worker %d", s.w.pid), s.task.Conf[FaultHandlerConf] == "true",
			s.pool.faultLog(s.w.pid), err)
	}
	return workerFailure("Python worker %d: %v", s.w.pid, err).Wrap(err)
}
