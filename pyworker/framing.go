package pyworker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// SpecialLengths are the negative lengths pyspark/serializers.py uses to signal events.
const (
	EndOfDataSection      = -1
	PythonExceptionThrown = -2
	TimingData            = -3
	EndOfStream           = -4
	Null                  = -5
	StartArrowStream      = -6
)

// maxFrame bounds a length-prefixed frame read from a worker (a corrupt length must not allocate
// gigabytes).
const maxFrame = 1 << 30

// writeInt writes a 4-byte big-endian int (serializers.write_int).
func writeInt(w io.Writer, v int32) error {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(v))
	_, err := w.Write(b[:])
	return err
}

// writeLong writes an 8-byte big-endian long (serializers.write_long).
func writeLong(w io.Writer, v int64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	_, err := w.Write(b[:])
	return err
}

// writeBytes writes a length-prefixed byte string (serializers.write_with_length).
func writeBytes(w io.Writer, p []byte) error {
	if len(p) > math.MaxInt32 {
		return fmt.Errorf("pyworker: frame of %d bytes is too long", len(p))
	}
	if err := writeInt(w, int32(len(p))); err != nil {
		return err
	}
	_, err := w.Write(p)
	return err
}

// readInt reads a 4-byte big-endian int.
func readInt(r io.Reader) (int32, error) {
	var b [4]byte
	_, err := io.ReadFull(r, b[:])
	return int32(binary.BigEndian.Uint32(b[:])), err
}

// readLong reads an 8-byte big-endian long.
func readLong(r io.Reader) (int64, error) {
	var b [8]byte
	_, err := io.ReadFull(r, b[:])
	return int64(binary.BigEndian.Uint64(b[:])), err
}

// readFrame reads a length-prefixed byte string, refusing lengths past maxFrame.
func readFrame(r io.Reader) ([]byte, error) {
	n, err := readInt(r)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > maxFrame {
		return nil, fmt.Errorf("invalid frame length %d", n)
	}
	p := make([]byte, n)
	_, err = io.ReadFull(r, p)
	return p, err
}

// WriteInt buffers a 4-byte big-endian int.
func (w *Worker) WriteInt(v int32) error { return writeInt(w.bw, v) }

// WriteLong buffers an 8-byte big-endian long.
func (w *Worker) WriteLong(v int64) error { return writeLong(w.bw, v) }

// WriteBytes buffers a length-prefixed byte string (serializers.write_with_length).
func (w *Worker) WriteBytes(p []byte) error { return writeBytes(w.bw, p) }

// WriteUTF buffers a length-prefixed UTF-8 string (read by UTF8Deserializer.loads).
func (w *Worker) WriteUTF(s string) error { return w.WriteBytes([]byte(s)) }

// Flush sends what is buffered, bounded by ctx.
func (w *Worker) Flush(ctx context.Context) error {
	return w.io(ctx, func() error { return w.bw.Flush() })
}

// ReadInt reads a 4-byte big-endian int, bounded by ctx.
func (w *Worker) ReadInt(ctx context.Context) (int32, error) {
	var v int32
	err := w.io(ctx, func() error { var err error; v, err = readInt(w.br); return err })
	return v, err
}

// ReadLong reads an 8-byte big-endian long, bounded by ctx.
func (w *Worker) ReadLong(ctx context.Context) (int64, error) {
	var v int64
	err := w.io(ctx, func() error { var err error; v, err = readLong(w.br); return err })
	return v, err
}

// ReadBytes reads a length-prefixed byte string, bounded by ctx.
func (w *Worker) ReadBytes(ctx context.Context) ([]byte, error) {
	n, err := w.ReadInt(ctx)
	if err != nil {
		return nil, err
	}
	return w.readFrame(ctx, n)
}

// ReadUTF reads a length-prefixed UTF-8 string, bounded by ctx.
func (w *Worker) ReadUTF(ctx context.Context) (string, error) {
	p, err := w.ReadBytes(ctx)
	return string(p), err
}

func (w *Worker) readFrame(ctx context.Context, n int32) ([]byte, error) {
	if n < 0 || n > maxFrame {
		return nil, w.fail(workerFailure("Python worker %d sent an invalid frame length %d", w.pid, n))
	}
	p := make([]byte, n)
	err := w.io(ctx, func() error { _, err := io.ReadFull(w.br, p); return err })
	return p, err
}

// ReadStatus reads the int a worker answers a request with. A PYTHON_EXCEPTION_THROWN (-2) is
// followed by the traceback, returned as a PythonException whose message starts with msg; any
// other value is returned as is for the caller's protocol to judge.
func (w *Worker) ReadStatus(ctx context.Context, msg string) (int32, error) {
	v, err := w.ReadInt(ctx)
	if err != nil {
		return 0, err
	}
	if v == PythonExceptionThrown {
		tb, err := w.ReadUTF(ctx)
		if err != nil {
			return 0, err
		}
		return v, PythonException(msg, tb)
	}
	return v, nil
}

// WritePythonVersion sends the Python version (major.minor) the server expects, as
// pyspark.worker_util.check_python_version reads it; a worker of another version answers with
// PYTHON_EXCEPTION_THROWN and a PYTHON_VERSION_MISMATCH traceback.
func (w *Worker) WritePythonVersion(version string) error { return w.WriteUTF(version) }

// io runs one blocking operation on the socket, closing the socket when ctx is done first. An
// operation that fails leaves the worker broken: later calls return the same error.
func (w *Worker) io(ctx context.Context, op func() error) error {
	if w.broken != nil {
		return w.broken
	}
	if err := ctx.Err(); err != nil {
		return w.fail(err)
	}
	stop := context.AfterFunc(ctx, func() { w.conn.Close() })
	err := op()
	if !stop() {
		// ctx ended while the operation ran: report that rather than the closed socket.
		return w.fail(fmt.Errorf("pyworker: Python worker %d: %w", w.pid, ctx.Err()))
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return w.fail(workerFailure("Python worker %d exited unexpectedly (crashed): %v", w.pid, err).Wrap(err))
		}
		return w.fail(workerFailure("Python worker %d: %v", w.pid, err).Wrap(err))
	}
	return nil
}

func (w *Worker) fail(err error) error {
	w.broken = err
	w.conn.Close()
	return err
}
