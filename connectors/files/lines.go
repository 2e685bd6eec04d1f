package files

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// fileBatchBytes is how many bytes of lines a batch read from a JSON, CSV or text file holds
// at most (with fileBatchRows, whichever comes first), so a batch of long lines stays bounded.
const fileBatchBytes = 8 << 20

// openRegular opens path for reading, refusing what is not a regular file (a device such as
// /dev/zero, a FIFO, a socket): Spark reads a file as byte ranges of its listed length, so such
// a file would read as empty (its length is 0) or, read as a stream, never end. Weir refuses it
// with an error saying so rather than silently reading nothing.
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError("open", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fileError("open", path, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegularError(path, st.Mode())
	}
	return f, nil
}

// notRegularError refuses reading a file that is not a regular file or a directory.
func notRegularError(path string, mode os.FileMode) *sparkerr.Error {
	kind := "not a regular file"
	switch {
	case mode&os.ModeCharDevice != 0:
		kind = "a character device"
	case mode&os.ModeDevice != 0:
		kind = "a block device"
	case mode&os.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case mode&os.ModeSocket != 0:
		kind = "a socket"
	}
	return sparkerr.IllegalArgument("Cannot read %s: it is %s. File sources read regular files and directories of them only.",
		FileURI(path), kind)
}

// lineTooLong is the error of a line longer than the bound.
func lineTooLong(path string, line, limit int64) *sparkerr.Error {
	uri := FileURI(path)
	return sparkerr.Newf(sparkerr.SparkException, "FAILED_READ_FILE.NO_HINT", "KD001",
		"Encountered error while reading file %s. Line %d is longer than %d bytes, the bound set by %s; "+
			"set it to a larger size (e.g. \"256m\") to read this file.", uri, line, limit, sources.MaxLineBytesConf).
		WithParams("path", uri)
}

// lineReader reads lines ending in '\n' (the '\n' and a '\r' before it removed) from r,
// holding at most max bytes of a line.
type lineReader struct {
	br   *bufio.Reader
	path string
	max  int64
	n    int64 // lines read
	buf  []byte
}

func newLineReader(r io.Reader, path string, max int64) *lineReader {
	if max <= 0 {
		max = sources.DefaultMaxLineBytes
	}
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), path: path, max: max}
}

// next returns the next line; ok is false at the end of the input.
func (l *lineReader) next() (line string, ok bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		if int64(len(l.buf))+int64(len(chunk)) > l.max+2 { // +2: a "\r\n" ending is not part of the line
			return "", false, lineTooLong(l.path, l.n+1, l.max)
		}
		l.buf = append(l.buf, chunk...)
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(l.buf) == 0 {
				return "", false, nil
			}
		default:
			return "", false, fileError("read", l.path, err)
		}
		l.n++
		b := l.buf
		if len(b) > 0 && b[len(b)-1] == '\n' {
			b = b[:len(b)-1]
		}
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
		if int64(len(b)) > l.max {
			return "", false, lineTooLong(l.path, l.n, l.max)
		}
		return string(b), true, nil
	}
}

// readLines reads a line-based file, turning each line into a row (or skipping it).
func (r *fileReader) readLines(ctx context.Context, path string, emit func(arrow.RecordBatch) error, row func(string) ([]any, bool)) error {
	f, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return r.readLinesFrom(ctx, f, path, emit, row)
}

// readLinesFrom reads lines from in (named path in errors). The line buffer and the rows a
// batch holds are counted in the query's memory budget, and a batch is emitted at
// fileBatchRows rows or fileBatchBytes bytes of lines.
func (r *fileReader) readLinesFrom(ctx context.Context, in io.Reader, path string, emit func(arrow.RecordBatch) error,
	row func(string) ([]any, bool)) error {
	lr := newLineReader(in, path, r.maxLine)
	var rows [][]any
	var held int64 // bytes of lines in rows, reserved in the budget
	release := func() {
		r.release(held)
		held = 0
	}
	defer release()
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		rec := r.buildRows(rows)
		rows = rows[:0]
		release()
		return emit(rec)
	}
	for {
		line, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := r.reserve(int64(len(line))); err != nil {
			return fmt.Errorf("reading %s: %w", FileURI(path), err)
		}
		held += int64(len(line))
		if vals, ok := row(line); ok {
			rows = append(rows, vals)
		}
		if len(rows) == fileBatchRows || held >= fileBatchBytes {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
