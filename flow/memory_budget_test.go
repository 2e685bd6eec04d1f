package flow

import (
	"context"
	"errors"
	"github.com/weirhq/weir/conf"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
)

// hoardOp keeps every batch until end of data (as a sort does), then emits the row count.
type hoardOp struct{ held []arrow.RecordBatch }

func (h *hoardOp) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ Emitter) error {
	rec.Retain()
	h.held = append(h.held, rec)
	return nil
}

func (h *hoardOp) EndOfData(ctx context.Context, out Emitter) error {
	var n int64
	for _, r := range h.held {
		n += r.NumRows()
	}
	return out.Emit(ctx, intBatch(outMem, n))
}

func (h *hoardOp) Close() {
	for _, r := range h.held {
		r.Release()
	}
	h.held = nil
}

// hoardGraph reads batches×rows int64s from two partitions into one hoarding instance.
func hoardGraph(batches, rows int) *Graph {
	vals := make([]int64, rows)
	script := make([]step, batches)
	for i := range script {
		script[i] = step{rows: vals}
	}
	src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: scripted(script, script)}
	hoard := &Node{Name: "hoard", Parallelism: 1, Schema: testSchema, Inputs: []Input{{From: src, Exchange: Gather}},
		NewOperator: func(Env) (Operator, error) { return &hoardOp{}, nil }}
	return &Graph{Output: hoard}
}

func runBudget(t *testing.T, g *Graph, limit int64) ([]int64, *MemoryBudget, error) {
	t.Helper()
	mem := newMem(t)
	outMem = mem
	budget := NewMemoryBudget(mem, limit)
	job, err := NewLocalRunner(WithAllocator(mem)).Start(context.Background(), g, JobOptions{MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	var xs []int64
	for {
		rec, err := job.Next(context.Background())
		if err != nil {
			job.Close()
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return xs, budget, err
		}
		if _, isMarker, _ := MarkerOf(rec); !isMarker {
			xs = append(xs, ints(rec)...)
		}
		rec.Release()
	}
}

func TestMemoryBudgetFailsTheJobAndReturnsItsMemory(t *testing.T) {
	checkLeaks(t)
	// 2 × 500 batches of 1024 int64s ≈ 8 MB held at once, over a 1 MiB budget.
	_, budget, err := runBudget(t, hoardGraph(500, 1024), 1<<20)
	if !IsOutOfMemory(err) {
		t.Fatalf("error = %v, want UNABLE_TO_ACQUIRE_MEMORY", err)
	}
	e, _ := sparkerr.As(err)
	if e.JavaClass != sparkerr.SparkOutOfMemoryError || e.SQLState != "53200" || e.Params["requestedBytes"] == "" {
		t.Errorf("error = %#v", e)
	}
	for _, want := range []string{"Unable to acquire", "memory budget of 1048576 bytes", conf.QueryMemoryBudgetKey} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q lacks %q", e.Message, want)
		}
	}
	if budget.Used() != 0 {
		t.Errorf("budget holds %d bytes after Close, want 0", budget.Used())
	}
	if budget.Peak() > 1<<20 {
		t.Errorf("peak %d over the budget", budget.Peak())
	}
	// newMem's cleanup asserts the session allocator is back to zero.
}

func TestMemoryBudgetUnderTheLimitRuns(t *testing.T) {
	checkLeaks(t)
	xs, budget, err := runBudget(t, hoardGraph(500, 1024), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 1 || xs[0] != 2*500*1024 {
		t.Fatalf("rows = %v, want [%d]", xs, 2*500*1024)
	}
	if budget.Used() != 0 || budget.Peak() < 8<<20 {
		t.Errorf("used %d, peak %d", budget.Used(), budget.Peak())
	}
}

func TestMemoryBudgetReserve(t *testing.T) {
	b := NewMemoryBudget(nil, 100)
	if err := b.Reserve(60); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(41); !IsOutOfMemory(err) {
		t.Fatalf("Reserve(41) with 60 of 100 used = %v", err)
	}
	if b.Used() != 60 {
		t.Fatalf("a refused Reserve counted: used %d", b.Used())
	}
	b.Release(60)
	if err := b.Reserve(100); err != nil || b.Used() != 100 || b.Peak() != 100 {
		t.Fatalf("Reserve(100) = %v, used %d, peak %d", err, b.Used(), b.Peak())
	}
	if err := NewMemoryBudget(nil, 0).Reserve(1 << 50); err != nil {
		t.Fatalf("unlimited budget refused: %v", err)
	}
}
