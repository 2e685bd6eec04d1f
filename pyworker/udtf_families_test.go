package pyworker

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
)

// udtf is a UDTF of testdata/udfs.py returning the struct of fields.
func udtf(t *testing.T, name string, fields []arrow.Field, args ...int) UDF {
	return UDF{Name: name, Command: command(t, name), ArgOffsets: args, ReturnType: arrow.StructOf(fields...)}
}

var rangeFields = []arrow.Field{
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}

// runCalls runs tk on p over groups and returns each result batch's rows joined by "; " (one
// entry per eval or terminate call).
func runCalls(t *testing.T, p *Pool, tk Task, groups ...Group) ([]string, error) {
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
			return nil, err
		}
	}
	if err := s.CloseSend(ctx); err != nil {
		return nil, err
	}
	var got []string
	for {
		rec, err := s.Recv(ctx)
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, strings.Join(rows(rec), "; "))
		rec.Release()
	}
}

// noColumns is a batch of n rows without columns (a UDTF call without arguments).
func noColumns(n int64) arrow.RecordBatch {
	return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, n)
}

// TestPoolUDTF runs @udtf handlers on real workers with both eval types: one result batch per
// input row in order (an empty one for a row that yields nothing), then terminate's; keyword
// arguments; calls without arguments; Spark types converted back; an exception in eval is a
// PythonException carrying the traceback.
func TestPoolUDTF(t *testing.T) {
	p := newTestPool(t, 1)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	for _, et := range []EvalType{SQLTableUDF, SQLArrowTableUDF} {
		name := map[EvalType]string{SQLTableUDF: "pickled", SQLArrowTableUDF: "arrow"}[et]
		t.Run(name+"/rows", func(t *testing.T) {
			tk := task(t, et, alloc, udtf(t, "udtf_range", rangeFields, 0))
			got, err := runCalls(t, p, tk,
				one(longs(alloc, []string{"_0"}, []any{2, 0})),
				one(longs(alloc, []string{"_0"}, []any{3})))
			checkRows(t, "udtf_range", got, err,
				"n=2 i=0; n=2 i=1", "", "n=3 i=0; n=3 i=1; n=3 i=2", "n=-1 i=3")
		})
		t.Run(name+"/keyword", func(t *testing.T) {
			u := udtf(t, "udtf_range", rangeFields, 0, 1)
			u.ArgNames = []string{"", "step"}
			tk := task(t, et, alloc, u)
			got, err := runCalls(t, p, tk, one(longs(alloc, []string{"_0", "_1"}, []any{5}, []any{2})))
			checkRows(t, "udtf_range step", got, err, "n=5 i=0; n=5 i=2; n=5 i=4", "n=-1 i=1")
		})
		t.Run(name+"/no-arguments", func(t *testing.T) {
			tk := task(t, et, alloc, udtf(t, "udtf_const", []arrow.Field{
				{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
				{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
				{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			}))
			got, err := runCalls(t, p, tk, one(noColumns(2)))
			call := "d=2024-02-29 s=héllo x=1.5; d=(null) s=(null) x=(null)"
			checkRows(t, "udtf_const", got, err, call, call)
		})
		t.Run(name+"/exception", func(t *testing.T) {
			tk := task(t, et, alloc, udtf(t, "udtf_failing",
				[]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, 0))
			_, err := runCalls(t, p, tk, one(longs(alloc, []string{"_0"}, []any{1, 2, 3, 4})))
			var se *sparkerr.Error
			if !errors.As(err, &se) || se.Class != "PYTHON_EXCEPTION" {
				t.Fatalf("got %v, want a PythonException", err)
			}
			for _, want := range []string{"Traceback", "ValueError: udtf saw three"} {
				if !strings.Contains(se.Error(), want) {
					t.Errorf("the error lacks %q: %v", want, se)
				}
			}
		})
	}
}
