package flow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var testSchema = EventSchema(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil))

// checkLeaks records the goroutine count and, at cleanup, waits briefly for it to come back.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("goroutines leaked: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
		}
	})
}

func newMem(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

func intBatch(mem memory.Allocator, xs ...int64) arrow.RecordBatch {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(xs, nil)
	a := b.NewArray()
	defer a.Release()
	return NewDataBatch(mem, testSchema, []arrow.Array{a}, nil)
}

func ints(rec arrow.RecordBatch) []int64 {
	return rec.Column(UserOffset).(*array.Int64).Int64Values()
}

// step is one thing a scripted source does: emit rows, emit a marker, or wait on a channel.
type step struct {
	rows   []int64
	marker *Marker
	wait   <-chan struct{}
	signal chan struct{}
}

// scripted runs per-partition scripts.
func scripted(scripts ...[]step) Source {
	return SourceFunc(func(ctx context.Context, env Env, out Emitter) error {
		for _, s := range scripts[env.Partition] {
			switch {
			case s.wait != nil:
				select {
				case <-s.wait:
				case <-ctx.Done():
					return ctx.Err()
				}
			case s.signal != nil:
				close(s.signal)
			case s.marker != nil:
				if err := out.Emit(ctx, NewMarkerBatch(env.Mem, env.OutSchema, *s.marker)); err != nil {
					return err
				}
			default:
				if err := out.Emit(ctx, intBatch(env.Mem, s.rows...)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// endless emits one-row batches counting up until ctx ends.
var endless = SourceFunc(func(ctx context.Context, env Env, out Emitter) error {
	for i := int64(0); ; i++ {
		if err := out.Emit(ctx, intBatch(env.Mem, i)); err != nil {
			return err
		}
	}
})

// passOp forwards data and records what it saw.
type passOp struct {
	mu     *sync.Mutex
	events *[]string
	env    Env
}

func (p *passOp) log(s string) {
	if p.events != nil {
		p.mu.Lock()
		*p.events = append(*p.events, s)
		p.mu.Unlock()
	}
}

func (p *passOp) Process(ctx context.Context, in int, rec arrow.RecordBatch, out Emitter) error {
	for _, x := range ints(rec) {
		p.log(fmt.Sprintf("p%d:%d", p.env.Partition, x))
	}
	rec.Retain()
	return out.Emit(ctx, rec)
}

func (p *passOp) Barrier(ctx context.Context, epoch int64, out Emitter) error {
	p.log(fmt.Sprintf("barrier%d", epoch))
	return nil
}

func (p *passOp) Watermark(ctx context.Context, ts int64, out Emitter) error {
	p.log(fmt.Sprintf("wm%d", ts))
	return nil
}

func passNode(name string, par int, ins ...Input) *Node {
	return &Node{Name: name, Parallelism: par, Schema: testSchema, Inputs: ins,
		NewOperator: func(env Env) (Operator, error) { return &passOp{env: env}, nil }}
}

func run(t *testing.T, mem memory.Allocator, g *Graph, opts ...RunnerOption) ([]int64, []Marker, error) {
	t.Helper()
	job, err := NewLocalRunner(append([]RunnerOption{WithAllocator(mem)}, opts...)...).Start(context.Background(), g, JobOptions{})
	if err != nil {
		return nil, nil, err
	}
	defer job.Close()
	var xs []int64
	var ms []Marker
	for {
		rec, err := job.Next(context.Background())
		if err == io.EOF {
			return xs, ms, nil
		}
		if err != nil {
			return xs, ms, err
		}
		if m, ok, _ := MarkerOf(rec); ok {
			ms = append(ms, m)
		} else {
			xs = append(xs, ints(rec)...)
		}
		rec.Release()
	}
}

// countOp counts rows and emits the count at EndOfData.
type countOp struct{ n, calls int64 }

func (c *countOp) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ Emitter) error {
	c.n += rec.NumRows()
	return nil
}

func (c *countOp) EndOfData(ctx context.Context, out Emitter) error {
	c.calls++
	return out.Emit(ctx, intBatch(outMem, c.n, c.calls))
}

var outMem memory.Allocator

func TestEndOfDataCountingAndGather(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	outMem = mem
	src := &Node{Name: "src", Parallelism: 3, Schema: testSchema, Source: scripted(
		[]step{{rows: []int64{1, 2}}, {rows: []int64{3}}},
		[]step{{rows: []int64{4}}},
		[]step{})}
	count := &Node{Name: "count", Parallelism: 1, Schema: testSchema,
		Inputs:      []Input{{From: src, Exchange: Gather}},
		NewOperator: func(Env) (Operator, error) { return &countOp{}, nil }}
	xs, _, err := run(t, mem, &Graph{Output: count})
	if err != nil {
		t.Fatal(err)
	}
	// 4 rows, EndOfData handled exactly once.
	if !slices.Equal(xs, []int64{4, 1}) {
		t.Fatalf("got %v", xs)
	}
}

func TestBroadcastAndPartition(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: scripted(
		[]step{{rows: []int64{0, 1, 2}}}, []step{{rows: []int64{3, 4, 5}}})}
	var mu sync.Mutex
	var events []string
	mk := func(name string, in Input) *Node {
		return &Node{Name: name, Parallelism: 3, Schema: testSchema, Inputs: []Input{in},
			NewOperator: func(env Env) (Operator, error) { return &passOp{mu: &mu, events: &events, env: env}, nil }}
	}
	bc := mk("broadcast", Input{From: src, Exchange: Broadcast})
	xs, _, err := run(t, mem, &Graph{Output: passNode("out", 1, Input{From: bc, Exchange: Gather})})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(xs)
	if len(xs) != 18 || xs[0] != 0 || xs[17] != 5 {
		t.Fatalf("broadcast: got %v", xs)
	}
	for p := 0; p < 3; p++ {
		n := 0
		for _, e := range events {
			if len(e) > 1 && e[1] == byte('0'+p) {
				n++
			}
		}
		if n != 6 {
			t.Fatalf("partition %d saw %d rows: %v", p, n, events)
		}
	}

	events = nil
	part := mk("partition", Input{From: src, Exchange: Partition, Partitioner: modPartitioner{}})
	xs, _, err = run(t, mem, &Graph{Output: passNode("out", 1, Input{From: part, Exchange: Gather})})
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 6 {
		t.Fatalf("partition: got %v", xs)
	}
	for _, e := range events {
		var p, x int
		fmt.Sscanf(e, "p%d:%d", &p, &x)
		if x%3 != p {
			t.Fatalf("row %d went to partition %d", x, p)
		}
	}
}

// modPartitioner sends row x to partition x mod n.
type modPartitioner struct{}

func (modPartitioner) Split(env Env, rec arrow.RecordBatch, n int) ([]arrow.RecordBatch, error) {
	buckets := make([][]int64, n)
	for _, x := range ints(rec) {
		buckets[x%int64(n)] = append(buckets[x%int64(n)], x)
	}
	out := make([]arrow.RecordBatch, n)
	for i, b := range buckets {
		if len(b) > 0 {
			out[i] = intBatch(env.Mem, b...)
		}
	}
	return out, nil
}

func TestBarrierAlignmentHoldsData(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	sent := make(chan struct{})
	b1 := &Marker{Kind: MarkerBarrier, Epoch: 1}
	src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: scripted(
		[]step{{rows: []int64{1}}, {marker: b1}, {rows: []int64{2}}, {signal: sent}},
		[]step{{rows: []int64{10}}, {wait: sent}, {marker: b1}, {rows: []int64{11}}})}
	var mu sync.Mutex
	var events []string
	op := &Node{Name: "op", Parallelism: 1, Schema: testSchema, Inputs: []Input{{From: src, Exchange: Gather}},
		NewOperator: func(env Env) (Operator, error) { return &passOp{mu: &mu, events: &events, env: env}, nil }}
	xs, ms, err := run(t, mem, &Graph{Output: op}, WithChannelCapacity(1))
	if err != nil {
		t.Fatal(err)
	}
	at := slices.Index(events, "barrier1")
	before, after := events[:at], events[at+1:]
	slices.Sort(before)
	slices.Sort(after)
	if !slices.Equal(before, []string{"p0:1", "p0:10"}) || !slices.Equal(after, []string{"p0:11", "p0:2"}) {
		t.Fatalf("events %v", events)
	}
	if len(ms) != 1 || ms[0] != *b1 || len(xs) != 4 {
		t.Fatalf("markers %v rows %v", ms, xs)
	}
}

func TestWatermarkIsMinimumOverSenders(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	wm := func(ts int64) step { return step{marker: &Marker{Kind: MarkerWatermark, Timestamp: ts}} }
	a, b := make(chan struct{}), make(chan struct{})
	src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: scripted(
		[]step{wm(5), {signal: a}, {wait: b}, wm(9)}, []step{{wait: a}, wm(3), {signal: b}, wm(7)})}
	var mu sync.Mutex
	var events []string
	op := &Node{Name: "op", Parallelism: 1, Schema: testSchema, Inputs: []Input{{From: src, Exchange: Gather}},
		NewOperator: func(env Env) (Operator, error) { return &passOp{mu: &mu, events: &events, env: env}, nil }}
	_, ms, err := run(t, mem, &Graph{Output: op})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, m := range ms {
		got = append(got, m.Timestamp)
	}
	// 3 is the minimum once both senders reported; later values depend on interleaving (an
	// ended sender stops holding the watermark back) but only ever advance.
	if len(got) == 0 || got[0] != 3 || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Fatalf("watermarks %v", got)
	}
	for _, ts := range got {
		if ts != 3 && ts != 5 && ts != 7 && ts != 9 {
			t.Fatalf("watermark %d is not a minimum over senders: %v", ts, got)
		}
	}
	if len(events) != len(got) {
		t.Fatalf("handler saw %v, forwarded %v", events, got)
	}
}

type failOp struct{}

var errBoom = errors.New("boom")

func (failOp) Process(context.Context, int, arrow.RecordBatch, Emitter) error { return errBoom }

func TestErrorCancelsEverything(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: endless}
	other := &Node{Name: "other", Parallelism: 2, Schema: testSchema, Source: endless}
	fail := &Node{Name: "fail", Parallelism: 2, Schema: testSchema,
		Inputs:      []Input{{From: src, Exchange: Forward}, {From: other, Exchange: Broadcast}},
		NewOperator: func(Env) (Operator, error) { return failOp{}, nil }}
	_, _, err := run(t, mem, &Graph{Output: passNode("out", 1, Input{From: fail, Exchange: Gather})})
	if !errors.Is(err, errBoom) {
		t.Fatalf("got %v", err)
	}
}

func TestCloseReleasesEverything(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	src := &Node{Name: "src", Parallelism: 3, Schema: testSchema, Source: endless}
	mid := passNode("mid", 2, Input{From: src, Exchange: Partition, Partitioner: modPartitioner{}})
	job, err := NewLocalRunner(WithAllocator(mem), WithChannelCapacity(4)).Start(context.Background(),
		&Graph{Output: passNode("out", 1, Input{From: mid, Exchange: Gather})}, JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := job.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	time.Sleep(20 * time.Millisecond) // let every channel fill up
	job.Close()
	job.Close()
}

// takeOp keeps the first n rows and then needs no more input.
type takeOp struct{ n int64 }

func (o *takeOp) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out Emitter) error {
	if o.n <= 0 {
		return nil
	}
	k := min(o.n, rec.NumRows())
	o.n -= k
	return out.Emit(ctx, rec.NewSlice(0, k))
}

func (o *takeOp) Done() bool { return o.n <= 0 }

func TestFinisherStopsUpstream(t *testing.T) {
	for _, ex := range []ExchangeKind{Forward, Partition, Broadcast} {
		t.Run(fmt.Sprint(ex), func(t *testing.T) {
			checkLeaks(t)
			mem := newMem(t)
			src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: endless}
			mid := passNode("mid", 2, Input{From: src, Exchange: ex, Partitioner: modPartitioner{}})
			// Partition 0 takes 3 rows; partition 1 takes 50: upstream keeps feeding 1 after 0
			// is done, and must never block on 0.
			take := &Node{Name: "take", Parallelism: 2, Schema: testSchema, Inputs: []Input{{From: mid, Exchange: Forward}},
				NewOperator: func(env Env) (Operator, error) { return &takeOp{n: 3 + 47*int64(env.Partition)}, nil }}
			done := make(chan struct{})
			var xs []int64
			go func() {
				defer close(done)
				xs, _, err := run(t, mem, &Graph{Output: passNode("out", 1, Input{From: take, Exchange: Gather})})
				if err != nil {
					t.Error(err)
				}
				if len(xs) != 53 {
					t.Errorf("got %d rows", len(xs))
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("early stop did not end the job")
			}
			_ = xs
		})
	}
}

// orderOp records (sender, rows) and sender ends.
type orderOp struct{ log []string }

func (o *orderOp) Process(context.Context, int, arrow.RecordBatch, Emitter) error {
	return errors.New("Process called on a SenderAware operator")
}

func (o *orderOp) ProcessFrom(_ context.Context, _ int, sender int, rec arrow.RecordBatch, _ Emitter) error {
	o.log = append(o.log, fmt.Sprintf("%d:%v", sender, ints(rec)))
	return nil
}

func (o *orderOp) SenderEnded(_ context.Context, _ int, sender int, _ Emitter) error {
	o.log = append(o.log, fmt.Sprintf("end%d", sender))
	return nil
}

func (o *orderOp) EndOfData(ctx context.Context, out Emitter) error {
	for _, s := range o.log {
		var p int
		if _, err := fmt.Sscanf(s, "end%d", &p); err == nil {
			if err := out.Emit(ctx, intBatch(outMem, int64(p))); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestSenderAware(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	outMem = mem
	src := &Node{Name: "src", Parallelism: 3, Schema: testSchema, Source: scripted(
		[]step{{rows: []int64{1}}}, []step{{rows: []int64{2}}}, []step{})}
	var op *orderOp
	n := &Node{Name: "order", Parallelism: 1, Schema: testSchema, Inputs: []Input{{From: src, Exchange: Gather}},
		NewOperator: func(Env) (Operator, error) { op = &orderOp{}; return op, nil }}
	xs, _, err := run(t, mem, &Graph{Output: n})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(xs)
	if !slices.Equal(xs, []int64{0, 1, 2}) || !slices.Contains(op.log, "0:[1]") || !slices.Contains(op.log, "1:[2]") {
		t.Fatalf("ends %v log %v", xs, op.log)
	}
}

func TestForwardEndsEveryPartition(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	outMem = mem
	src := &Node{Name: "src", Parallelism: 3, Schema: testSchema, Source: scripted(
		[]step{{rows: []int64{1}}}, []step{{rows: []int64{2, 3}}}, []step{{rows: []int64{4}}})}
	mid := passNode("mid", 3, Input{From: src, Exchange: Forward})
	count := &Node{Name: "count", Parallelism: 1, Schema: testSchema, Inputs: []Input{{From: mid, Exchange: Gather}},
		NewOperator: func(Env) (Operator, error) { return &countOp{}, nil }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		xs, _, err := run(t, mem, &Graph{Output: count})
		if err != nil || !slices.Equal(xs, []int64{4, 1}) {
			t.Errorf("got %v, %v", xs, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("forward partitions > 0 never ended")
	}
}

func TestFinisherStopsSourcesBeforeClose(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	var returned sync.WaitGroup
	returned.Add(2)
	src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: SourceFunc(func(ctx context.Context, env Env, out Emitter) error {
		defer returned.Done()
		return endless(ctx, env, out)
	})}
	mid := passNode("mid", 2, Input{From: src, Exchange: Partition, Partitioner: modPartitioner{}})
	take := &Node{Name: "take", Parallelism: 1, Schema: testSchema, Inputs: []Input{{From: mid, Exchange: Gather}},
		NewOperator: func(Env) (Operator, error) { return &takeOp{n: 5}, nil }}
	job, err := NewLocalRunner(WithAllocator(mem)).Start(context.Background(), &Graph{Output: passNode("out", 1, Input{From: take, Exchange: Forward})}, JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	n := 0
	for {
		rec, err := job.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
		rec.Release()
	}
	if n != 5 {
		t.Fatalf("got %d rows", n)
	}
	stopped := make(chan struct{})
	go func() { returned.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("sources still running after the limit was satisfied")
	}
}
