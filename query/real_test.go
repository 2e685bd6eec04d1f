package query

import (
	"context"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/plan"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sql/logical"
)

// Tests over the real rate-micro-batch source and memory/noop sinks.

type tables struct {
	mu sync.Mutex
	m  map[string]*sinks.MemoryTable
}

func (r *tables) RegisterTable(name string, t *sinks.MemoryTable) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[name] = t
	return nil
}

func (r *tables) get(name string) *sinks.MemoryTable {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[name]
}

func rateScan(t *testing.T, rowsPerBatch string) *logical.SourceScan {
	return rateScanWith(t, map[string]string{"rowsPerBatch": rowsPerBatch, "numPartitions": "2"})
}

// steppedRateScan is rate-micro-batch with 4 rows a batch, batch k stamped k seconds.
func steppedRateScan(t *testing.T) *logical.SourceScan {
	return rateScanWith(t, map[string]string{"rowsPerBatch": "4", "numPartitions": "2", "startTimestamp": "0",
		"advanceMillisPerBatch": "1000"})
}

// rateScanWith is a rate-micro-batch stream scan with opts.
func rateScanWith(t *testing.T, opts map[string]string) *logical.SourceScan {
	t.Helper()
	schema, err := connectors.StreamSchema("rate-micro-batch", opts, "")
	if err != nil {
		t.Fatal(err)
	}
	return &logical.SourceScan{Format: "rate-micro-batch", Options: opts, Out: schema, Streaming: true}
}

func tableRows(tb *sinks.MemoryTable) int64 {
	var n int64
	for _, r := range tb.Snapshot() {
		n += r.NumRows()
		r.Release()
	}
	return n
}

func TestRateMicroBatchToMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		m := newTestManager(mem)
		defer m.StopAll()
		reg := &tables{m: map[string]*sinks.MemoryTable{}}
		m.env.Tables = reg
		q := start(t, m, Spec{Plan: rateScan(t, "10"), Format: "memory", Name: "rates", OutputMode: flow.OutputAppend,
			Trigger: Trigger{Kind: plan.TriggerProcessingTime, Interval: time.Second}})
		time.Sleep(2500 * time.Millisecond)
		synctest.Wait()
		ps := q.RecentProgress()
		if len(ps) != 3 {
			t.Fatalf("progress %q", ps)
		}
		p := progressOf(t, ps[2])
		src := p["sources"].([]any)[0].(map[string]any)
		if p["numInputRows"] != float64(10) || p["sink"].(map[string]any)["description"] != "MemorySink" ||
			!strings.HasPrefix(src["description"].(string), "RatePerMicroBatchStream[rowsPerBatch=10") ||
			src["startOffset"] != `{"offset":20,"timestamp":2000}` || src["endOffset"] != `{"offset":30,"timestamp":3000}` {
			t.Fatalf("progress %s", ps[2])
		}
		if n := tableRows(reg.get("rates")); n != 30 {
			t.Fatalf("memory table has %d rows", n)
		}
		if err := q.ProcessAllAvailable(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		reg.get("rates").Release()
		mem.AssertSize(t, 0)
	})
}

func TestRateMicroBatchToNoopAvailableNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		m := newTestManager(mem)
		defer m.StopAll()
		q := start(t, m, Spec{Plan: rateScan(t, "7"), Format: "noop", OutputMode: flow.OutputAppend,
			Trigger: Trigger{Kind: plan.TriggerAvailableNow}})
		if ended, err := q.AwaitTermination(context.Background(), nil); !ended || err != nil {
			t.Fatalf("await: %t %v", ended, err)
		}
		ps := q.RecentProgress()
		if len(ps) != 1 {
			t.Fatalf("progress %q", ps)
		}
		p := progressOf(t, ps[0])
		if p["numInputRows"] != float64(7) || p["sink"].(map[string]any)["numOutputRows"] != float64(7) {
			t.Fatalf("progress %s", ps[0])
		}
		mem.AssertSize(t, 0)
	})
}

func TestContinuousRejectsMicroBatchOnlySources(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newTestManager(memory.NewGoAllocator())
		_, err := m.Start(context.Background(), Spec{Plan: rateScan(t, "7"), Format: "noop", OutputMode: flow.OutputAppend,
			Trigger: Trigger{Kind: plan.TriggerContinuous, Interval: time.Second}})
		if err == nil || err.Error() != "Data source rate-micro-batch does not support continuous processing." {
			t.Fatalf("start: %v", err)
		}
	})
}

func TestRateContinuousToMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		m := newTestManager(mem)
		defer m.StopAll()
		reg := &tables{m: map[string]*sinks.MemoryTable{}}
		m.env.Tables = reg
		opts := map[string]string{"rowsPerSecond": "10", "numPartitions": "2"}
		schema, err := connectors.StreamSchema("rate", opts, "")
		if err != nil {
			t.Fatal(err)
		}
		p := &logical.SourceScan{Format: "rate", Options: opts, Out: schema, Streaming: true}
		q := start(t, m, Spec{Plan: p, Format: "memory", Name: "cont", OutputMode: flow.OutputAppend,
			Trigger: Trigger{Kind: plan.TriggerContinuous, Interval: time.Second}})
		time.Sleep(3500 * time.Millisecond)
		synctest.Wait()
		ps := q.RecentProgress()
		if len(ps) < 2 {
			t.Fatalf("progress %q", ps)
		}
		var counted float64
		for _, raw := range ps {
			counted += progressOf(t, raw)["numInputRows"].(float64)
		}
		// Rows move as the source produces them; every committed epoch's rows reached the table.
		if n := tableRows(reg.get("cont")); n < 20 || float64(n) < counted {
			t.Fatalf("memory table has %d rows, progress counted %v", n, counted)
		}
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		reg.get("cont").Release()
		mem.AssertSize(t, 0)
	})
}

// socketScan reads lines from addr.
func socketScan(t *testing.T, addr string) *logical.SourceScan {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	opts := map[string]string{"host": host, "port": port}
	schema, err := connectors.StreamSchema("socket", opts, "")
	if err != nil {
		t.Fatal(err)
	}
	return &logical.SourceScan{Format: "socket", Options: opts, Out: schema, Streaming: true}
}

// These run on the wall clock with a real loopback socket.

func TestSocketRefusedFailsTheStartedQuery(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	m := NewManager(Env{Mem: memory.DefaultAllocator, Partitions: 1})
	defer m.StopAll()
	q, err := m.Start(context.Background(), Spec{Plan: socketScan(t, addr), Format: "noop", OutputMode: flow.OutputAppend})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ended, err := q.AwaitTermination(ctx, nil)
	if !ended || err == nil || !strings.Contains(err.Error(), "terminated with exception: Connection refused") {
		t.Fatalf("await: %t %v", ended, err)
	}
	if exc := q.Exception(); exc == nil || !strings.HasPrefix(exc.Message,
		"org.apache.spark.sql.streaming.StreamingQueryException: [STREAM_FAILED] Query [id = ") {
		t.Fatalf("exception %+v", exc)
	}
}

func TestSocketLinesToMemoryOnTheWallClock(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	conns := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			conns <- c
		}
	}()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	m := NewManager(Env{Mem: mem, Partitions: 2})
	defer m.StopAll()
	reg := &tables{m: map[string]*sinks.MemoryTable{}}
	m.env.Tables = reg
	q, err := m.Start(context.Background(), Spec{Plan: socketScan(t, l.Addr().String()), Format: "memory", Name: "lines",
		OutputMode: flow.OutputAppend})
	if err != nil {
		t.Fatal(err)
	}
	conn := <-conns
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, batch := range []string{"a\nb\n", "c\n"} {
		if _, err := conn.Write([]byte(batch)); err != nil {
			t.Fatal(err)
		}
		want := int64([]int{2, 3}[i])
		// The socket source sees the lines asynchronously: process until they are all in.
		for tableRows(reg.get("lines")) < want {
			if err := q.ProcessAllAvailable(ctx); err != nil {
				t.Fatal(err)
			}
			if ctx.Err() != nil {
				t.Fatalf("table has %d rows", tableRows(reg.get("lines")))
			}
		}
	}
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := tableRows(reg.get("lines")); n != 3 {
		t.Fatalf("table has %d rows", n)
	}
	reg.get("lines").Release()
	mem.AssertSize(t, 0)
}
