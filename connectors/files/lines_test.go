package files

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// endless is an io.Reader that never ends: it repeats pattern and counts the bytes read.
type endless struct {
	pattern []byte
	off     int
	read    int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[e.off]
		e.off = (e.off + 1) % len(e.pattern)
	}
	e.read += int64(len(p))
	return len(p), nil
}

func textReader(mem memory.Allocator, maxLine int64) *fileReader {
	return newFileReader(mem, fileOptions{format: "text"}, textSchema, "UTC", maxLine)
}

func textRow(line string) ([]any, bool) { return []any{line}, true }

// TestEndlessLineIsRefusedWithinTheBound: a stream without line breaks (what /dev/zero is)
// fails once a line passes the bound, having read at most the bound plus one buffer.
func TestEndlessLineIsRefusedWithinTheBound(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	budget := flow.NewMemoryBudget(mem, 64<<20)
	const max = 1 << 20
	in := &endless{pattern: []byte{0}}
	err := textReader(budget, max).readLinesFrom(context.Background(), in, "/data/zero", func(rec arrow.RecordBatch) error {
		rec.Release()
		t.Fatal("a batch was emitted")
		return nil
	}, textRow)
	e, ok := sparkerr.As(err)
	if !ok || e.Class != "FAILED_READ_FILE.NO_HINT" || e.JavaClass != sparkerr.SparkException {
		t.Fatalf("error = %v", err)
	}
	for _, part := range []string{"file:///data/zero", "Line 1 is longer than 1048576 bytes", sources.MaxLineBytesConf} {
		if !strings.Contains(e.Message, part) {
			t.Errorf("message %q lacks %q", e.Message, part)
		}
	}
	if in.read > max+2*(64<<10) {
		t.Fatalf("read %d bytes for a bound of %d", in.read, max)
	}
	if budget.Used() != 0 {
		t.Fatalf("budget holds %d bytes", budget.Used())
	}
}

// TestEndlessShortLinesStayBounded: an endless stream of short lines is read batch by batch
// (nothing accumulates) until the context ends.
func TestEndlessShortLinesStayBounded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	budget := flow.NewMemoryBudget(mem, 16<<20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := 0
	err := textReader(budget, 0).readLinesFrom(ctx, &endless{pattern: []byte("ab\r\n")}, "/data/lines",
		func(rec arrow.RecordBatch) error {
			defer rec.Release()
			if rec.NumRows() != fileBatchRows {
				t.Fatalf("batch of %d rows", rec.NumRows())
			}
			if batches++; batches == 100 {
				cancel()
			}
			return nil
		}, textRow)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if budget.Used() != 0 || budget.Peak() > 1<<20 {
		t.Fatalf("used %d, peak %d", budget.Used(), budget.Peak())
	}
}

// TestLongLinesFlushEarlyAndCountInTheBudget: lines are emitted by bytes as well as by rows,
// and lines a batch holds count in the query's budget.
func TestLongLinesFlushEarlyAndCountInTheBudget(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	line := strings.Repeat("x", 1<<20) + "\n"
	input := strings.Repeat(line, 20)
	var rows []int64
	err := textReader(flow.NewMemoryBudget(mem, 64<<20), 2<<20).readLinesFrom(context.Background(),
		strings.NewReader(input), "/data/long", func(rec arrow.RecordBatch) error {
			rows = append(rows, rec.NumRows())
			rec.Release()
			return nil
		}, textRow)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0] != 8 || rows[1] != 8 || rows[2] != 4 {
		t.Fatalf("batches of %v rows, want [8 8 4]", rows)
	}
	err = textReader(flow.NewMemoryBudget(mem, 4<<20), 2<<20).readLinesFrom(context.Background(),
		strings.NewReader(input), "/data/long", func(rec arrow.RecordBatch) error {
			rec.Release()
			return nil
		}, textRow)
	if !flow.IsOutOfMemory(err) {
		t.Fatalf("over a 4 MiB budget: %v", err)
	}
}

func TestLineReaderEdges(t *testing.T) {
	const max = 4
	lr := newLineReader(strings.NewReader("abcd\r\nab\n\nxyz"), "f", max)
	var got []string
	for {
		line, ok, err := lr.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, line)
	}
	if strings.Join(got, "|") != "abcd|ab||xyz" {
		t.Fatalf("lines %q", got)
	}
	lr = newLineReader(strings.NewReader("ab\nabcde\n"), "f", max)
	if _, _, err := lr.next(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lr.next(); err == nil || !strings.Contains(err.Error(), "Line 2 is longer than 4 bytes") {
		t.Fatalf("line of 5 bytes: %v", err)
	}
	var _ io.Reader = &endless{}
}

// TestNonRegularFilesAreRefused: a FIFO (and so a device) named as a file source's path is
// refused at listing and at open, without blocking on it.
func TestNonRegularFilesAreRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := listDataFiles(nil, fifo)
	if err == nil || !strings.Contains(err.Error(), "it is a named pipe (FIFO)") {
		t.Fatalf("listing a FIFO: %v", err)
	}
	_, err = FileBatchSchema(nil, "text", nil, []string{fifo}, "")
	if err == nil || !strings.Contains(err.Error(), "File sources read regular files and directories of them only") {
		t.Fatalf("schema of a FIFO: %v", err)
	}
}

func TestMaxLineBytesFromConf(t *testing.T) {
	conf := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == sources.MaxLineBytesConf && v != "" }
	}
	for v, want := range map[string]int64{"": sources.DefaultMaxLineBytes, "1k": 1024, "100": 100} {
		if got, err := sources.MaxLineBytesFromConf(conf(v)); err != nil || got != want {
			t.Errorf("%q: %d, %v", v, got, err)
		}
	}
	for _, v := range []string{"0", "-1", "big"} {
		if _, err := sources.MaxLineBytesFromConf(conf(v)); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}
