package sources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// counterSource is a fake StreamSource: offsets are integers, row i of (start, end] holds value
// i and belongs to partition i mod n; Latest is whatever the test sets.
type counterSource struct {
	mem   memory.Allocator
	parts int

	mu     sync.Mutex
	latest int64
	reads  []string
	fail   error
}

var counterSchema = sqltypes.Schema{{Name: "v", Type: sqltypes.LongType, Nullable: true}}

func (c *counterSource) Schema() sqltypes.Schema { return counterSchema }
func (c *counterSource) Partitions() int         { return c.parts }
func (c *counterSource) Description() string     { return "Counter" }
func (c *counterSource) Initial(context.Context) (Offset, error) {
	return LongOffset(0), nil
}
func (c *counterSource) Latest(context.Context) (Offset, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return nil, c.fail
	}
	return LongOffset(c.latest), nil
}
func (c *counterSource) setLatest(v int64) {
	c.mu.Lock()
	c.latest = v
	c.mu.Unlock()
}
func (c *counterSource) Read(_ context.Context, p int, start, end Offset, emit func(arrow.RecordBatch) error) error {
	s, _ := ParseLongOffset("counter", start)
	e, _ := ParseLongOffset("counter", end)
	c.mu.Lock()
	c.reads = append(c.reads, fmt.Sprintf("p%d(%d,%d]", p, s, e))
	c.mu.Unlock()
	b := array.NewInt64Builder(c.mem)
	defer b.Release()
	for i := s + 1; i <= e; i++ {
		if int(i%int64(c.parts)) == p {
			b.Append(i)
		}
	}
	arr := b.NewArray()
	defer arr.Release()
	return emit(array.NewRecordBatch(sqltypes.ToArrowSchema(counterSchema, "UTC"), []arrow.Array{arr}, int64(arr.Len())))
}
func (c *counterSource) Close() error { return nil }

// eventLog records what one partition emitted: "[1 3]" for data, "B0" for Barrier{0}.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	var ev string
	if m, ok, err := flow.MarkerOf(rec); err != nil {
		return err
	} else if ok {
		ev = fmt.Sprintf("B%d", m.Epoch)
	} else {
		ev = fmt.Sprint(rec.Column(flow.UserOffset).(*array.Int64).Int64Values())
	}
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
	return nil
}

func (l *eventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.events, " ")
}

var counterEventSchema = flow.EventSchema(sqltypes.ToArrowSchema(counterSchema, "UTC"))

// runPartitions starts every partition of e; the returned channel yields each Run's error.
func runPartitions(ctx context.Context, e *EpochSource, mem memory.Allocator, n int) ([]*eventLog, []chan error) {
	logs := make([]*eventLog, n)
	errs := make([]chan error, n)
	for p := range n {
		logs[p] = &eventLog{}
		errs[p] = make(chan error, 1)
		go func() {
			errs[p] <- e.Run(ctx, flow.Env{Mem: mem, Partition: p, Partitions: n, OutSchema: counterEventSchema}, logs[p])
		}()
	}
	return logs, errs
}

func epoch(id, start, end int64) Epoch {
	return Epoch{ID: id, Start: LongOffset(start), End: LongOffset(end)}
}

func TestEpochSourceEmitsEpochsThenBarriers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		src := &counterSource{mem: mem, parts: 2}
		e := NewEpochSource(src, false)
		// An epoch handed before the partitions run is queued for them.
		e.Next(epoch(0, 0, 4))
		logs, errs := runPartitions(t.Context(), e, mem, 2)
		synctest.Wait()
		if got := [2]string{logs[0].String(), logs[1].String()}; got != [2]string{"[2 4] B0", "[1 3] B0"} {
			t.Fatalf("after epoch 0: %q", got)
		}
		if e.Rows(0) != 4 {
			t.Fatalf("rows(0) = %d", e.Rows(0))
		}
		// An empty epoch still places its barrier; the partitions wait between epochs.
		e.Next(epoch(1, 4, 4))
		e.Next(epoch(2, 4, 7))
		synctest.Wait()
		if got := [2]string{logs[0].String(), logs[1].String()}; got != [2]string{"[2 4] B0 B1 [6] B2", "[1 3] B0 B1 [5 7] B2"} {
			t.Fatalf("after epoch 2: %q", got)
		}
		select {
		case err := <-errs[0]:
			t.Fatalf("partition 0 ended early: %v", err)
		default:
		}
		e.Next(epoch(3, 7, 8))
		e.Finish()
		e.Next(epoch(4, 8, 9)) // after Finish: ignored
		for p := range 2 {
			if err := <-errs[p]; err != nil {
				t.Fatalf("partition %d: %v", p, err)
			}
		}
		if got := logs[0].String(); got != "[2 4] B0 B1 [6] B2 [8] B3" {
			t.Fatalf("partition 0: %s", got)
		}
		for id, want := range []int64{4, 0, 3, 1, 0} {
			if got := e.Rows(int64(id)); got != want {
				t.Fatalf("rows(%d) = %d, want %d", id, got, want)
			}
		}
	})
}

func TestEpochSourceCancelAndErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		src := &counterSource{mem: mem, parts: 1}
		e := NewEpochSource(src, false)
		ctx, cancel := context.WithCancel(t.Context())
		_, errs := runPartitions(ctx, e, mem, 1)
		synctest.Wait()
		cancel()
		if err := <-errs[0]; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Run returned %v", err)
		}
		// A partition count that does not match the source is an internal error.
		err := e.Run(t.Context(), flow.Env{Mem: mem, Partition: 0, Partitions: 3, OutSchema: counterEventSchema}, &eventLog{})
		if se, ok := sparkerr.As(err); !ok || se.Class != "INTERNAL_ERROR" {
			t.Fatalf("mismatched partitions: %v", err)
		}
		// Finish with nothing queued ends Run at once.
		e2 := NewEpochSource(src, false)
		e2.Finish()
		if err := e2.Run(t.Context(), flow.Env{Mem: mem, Partition: 0, Partitions: 1, OutSchema: counterEventSchema}, &eventLog{}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEpochSourceContinuous(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		mock := clock.NewMock()
		src := &counterSource{mem: mem, parts: 2}
		e := NewEpochSource(src, true, WithClock(mock), WithPollInterval(10*time.Millisecond))
		logs, errs := runPartitions(t.Context(), e, mem, 2)
		synctest.Wait()
		// Rows move without an epoch once the source has them and a poll comes.
		src.setLatest(3)
		synctest.Wait()
		if logs[0].String() != "" {
			t.Fatalf("read before the poll: %s", logs[0])
		}
		mock.Add(10 * time.Millisecond)
		synctest.Wait()
		if got := [2]string{logs[0].String(), logs[1].String()}; got != [2]string{"[2]", "[1 3]"} {
			t.Fatalf("after the first poll: %q", got)
		}
		// An epoch ending ahead of what was read reads up to its end, then places the barrier.
		e.Next(epoch(0, 0, 5))
		synctest.Wait()
		if got := [2]string{logs[0].String(), logs[1].String()}; got != [2]string{"[2] [4] B0", "[1 3] [5] B0"} {
			t.Fatalf("after epoch 0: %q", got)
		}
		if e.Rows(0) != 5 {
			t.Fatalf("rows(0) = %d", e.Rows(0))
		}
		// Rows read past an epoch's end before it arrives belong to that epoch.
		src.setLatest(8)
		mock.Add(10 * time.Millisecond)
		synctest.Wait()
		e.Next(epoch(1, 5, 7))
		synctest.Wait()
		if got := logs[1].String(); got != "[1 3] [5] B0 [7] B1" {
			t.Fatalf("partition 1 after epoch 1: %s", got)
		}
		if e.Rows(1) != 3 {
			t.Fatalf("rows(1) = %d", e.Rows(1))
		}
		// Every partition read the same planned ranges.
		src.mu.Lock()
		reads := slices.Clone(src.reads)
		src.mu.Unlock()
		slices.Sort(reads)
		if got := strings.Join(reads, " "); got != "p0(0,3] p0(3,5] p0(5,8] p1(0,3] p1(3,5] p1(5,8]" {
			t.Fatalf("reads: %s", got)
		}
		e.Finish()
		for p := range 2 {
			if err := <-errs[p]; err != nil {
				t.Fatalf("partition %d: %v", p, err)
			}
		}
	})
}

func TestEpochSourceContinuousStartAndFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		mock := clock.NewMock()
		src := &counterSource{mem: mem, parts: 1, latest: 6}
		e := NewEpochSource(src, true, WithClock(mock), WithStart(LongOffset(4)))
		logs, errs := runPartitions(t.Context(), e, mem, 1)
		synctest.Wait()
		mock.Add(DefaultPollInterval)
		synctest.Wait()
		if got := logs[0].String(); got != "[5 6]" {
			t.Fatalf("resumed reading: %s", got)
		}
		boom := sparkerr.IllegalArgument("source broke")
		src.mu.Lock()
		src.fail = boom
		src.mu.Unlock()
		mock.Add(DefaultPollInterval)
		if err := <-errs[0]; !errors.Is(err, boom) {
			t.Fatalf("failed poll: %v", err)
		}
	})
}

func TestCompareOffsets(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
		err  bool
	}{
		{"3", "5", -1, false},
		{"5", "5", 0, false},
		{"10", "9", 1, false},
		{`{"offset":5,"timestamp":100}`, `{"timestamp":200,"offset":10}`, -1, false},
		{`{"t":{"0":23,"1":10}}`, `{"t":{"0":23,"1":12,"2":0}}`, -1, false},
		{`{"t":{"0":23,"1":10}}`, `{"t":{"0":20,"1":12}}`, 0, true},
		{`"a"`, `"b"`, 0, true},
	} {
		got, err := CompareOffsets(Offset(tc.a), Offset(tc.b))
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Fatalf("CompareOffsets(%s, %s) = %d, %v", tc.a, tc.b, got, err)
		}
	}
}
