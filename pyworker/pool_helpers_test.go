package pyworker

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// testUDFs are testdata/udfs.py's pickled commands and the interpreter's version.
type testUDFs struct {
	Version  string            `json:"version"`
	Commands map[string]string `json:"commands"`
}

var (
	udfsOnce sync.Once
	udfsVal  testUDFs
	udfsErr  error
)

// udfs pickles testdata/udfs.py's functions once per test binary.
func udfs(t *testing.T) testUDFs {
	t.Helper()
	python := testPython(t)
	udfsOnce.Do(func() {
		script, err := filepath.Abs("testdata/udfs.py")
		if err != nil {
			udfsErr = err
			return
		}
		out, err := exec.Command(python, script).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = errors.New(string(ee.Stderr))
			}
			udfsErr = err
			return
		}
		udfsErr = json.Unmarshal(out, &udfsVal)
	})
	if udfsErr != nil {
		t.Fatalf("pickling testdata/udfs.py: %v", udfsErr)
	}
	return udfsVal
}

// command is the pickled command of a testdata/udfs.py function.
func command(t *testing.T, name string) []byte {
	t.Helper()
	b64, ok := udfs(t).Commands[name]
	if !ok {
		t.Fatalf("testdata/udfs.py has no %s", name)
	}
	p, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// syncBuffer collects the daemon's output, written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// newTestPool returns a pool of the test interpreter; its output is logged when the test fails.
func newTestPool(t *testing.T, maxWorkers int) *Pool {
	t.Helper()
	out := &syncBuffer{}
	p := NewPool(PoolConfig{Python: testPython(t), MaxWorkers: maxWorkers, Output: out})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("workers' output:\n%s", out.String())
		}
	})
	return p
}

// task builds a task of the test interpreter's version with a checked allocator.
func task(t *testing.T, et EvalType, alloc memory.Allocator, fns ...UDF) Task {
	return Task{EvalType: et, UDFs: fns, PythonVersion: udfs(t).Version, Alloc: alloc,
		Conf: map[string]string{"spark.sql.session.timeZone": "UTC"}}
}

// longs builds a batch of int64 columns (nil cells are null); names and cols pair up.
func longs(alloc memory.Allocator, names []string, cols ...[]any) arrow.RecordBatch {
	fields := make([]arrow.Field, len(names))
	arrs := make([]arrow.Array, len(cols))
	for i, name := range names {
		fields[i] = arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
		b := array.NewInt64Builder(alloc)
		for _, v := range cols[i] {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(int64(v.(int)))
			}
		}
		arrs[i] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(cols[0])))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// strs builds a batch of one string column.
func strs(alloc memory.Allocator, name string, vals ...any) arrow.RecordBatch {
	b := array.NewStringBuilder(alloc)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v.(string))
		}
	}
	arr := b.NewArray()
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{arr}, int64(len(vals)))
}

// rows renders a batch's rows as "name=value ..." strings.
func rows(rec arrow.RecordBatch) []string {
	var out []string
	for r := 0; r < int(rec.NumRows()); r++ {
		cells := make([]string, rec.NumCols())
		for c := range cells {
			cells[c] = rec.ColumnName(c) + "=" + rec.Column(c).ValueStr(r)
		}
		out = append(out, strings.Join(cells, " "))
	}
	return out
}

// run opens t on p, sends groups (releasing their batches), closes the input and collects every
// result row, then closes the stream; it returns the stream's worker pid too.
func run(t *testing.T, p *Pool, tk Task, groups ...Group) ([]string, int, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := p.Open(ctx, tk)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func() {
		for _, g := range groups {
			for _, side := range g.Batches {
				for _, rec := range side {
					rec.Release()
				}
			}
		}
	}()
	for _, g := range groups {
		if err := s.Send(ctx, g); err != nil {
			return nil, s.Pid(), err
		}
	}
	if err := s.CloseSend(ctx); err != nil {
		return nil, s.Pid(), err
	}
	var got []string
	for {
		rec, err := s.Recv(ctx)
		if err == io.EOF {
			return got, s.Pid(), nil
		}
		if err != nil {
			return got, s.Pid(), err
		}
		got = append(got, rows(rec)...)
		rec.Release()
	}
}

// one is an input unit of one batch.
func one(recs ...arrow.RecordBatch) Group { return Group{Batches: [][]arrow.RecordBatch{recs}} }

func checkRows(t *testing.T, what string, got []string, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}
