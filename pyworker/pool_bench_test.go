package pyworker

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchTask runs a one-row scalar Arrow UDF on p and returns how long Open took and how long
// until the end of its output.
func benchTask(b *testing.B, p *Pool, tk Task) (open, total time.Duration) {
	ctx := context.Background()
	start := time.Now()
	s, err := p.Open(ctx, tk)
	if err != nil {
		b.Fatal(err)
	}
	open = time.Since(start)
	defer s.Close()
	rec := longs(memory.DefaultAllocator, []string{"a"}, []any{1})
	defer rec.Release()
	if err := s.Send(ctx, one(rec)); err != nil {
		b.Fatal(err)
	}
	if err := s.CloseSend(ctx); err != nil {
		b.Fatal(err)
	}
	for {
		out, err := s.Recv(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	return open, time.Since(start)
}

// BenchmarkPoolTaskCold is a task on a new pool: the daemon starts, forks a worker, which imports
// worker.py (pandas, pyarrow) before it runs the task.
func BenchmarkPoolTaskCold(b *testing.B) {
	t := &testing.T{}
	tk := task(t, SQLScalarArrowUDF, nil, UDF{Command: command(t, "scalar_arrow"), ArgOffsets: []int{0}})
	var open, total time.Duration
	for b.Loop() {
		p := NewPool(PoolConfig{Python: testPython(t), MaxWorkers: 1, Output: io.Discard})
		o, d := benchTask(b, p, tk)
		open, total = open+o, total+d
		p.Close()
	}
	b.ReportMetric(float64(open.Microseconds())/float64(b.N), "open-µs/op")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "task-µs/op")
}

// BenchmarkPoolTaskWarm is a task on a pool whose worker is idle after a first task, tasks back
// to back: each waits for the gc.collect() daemon.py runs after a worker's task.
func BenchmarkPoolTaskWarm(b *testing.B) { benchWarm(b, 0) }

// BenchmarkPoolTaskWarmIdle is a task on a worker idle for a while (its gc.collect() done);
// open-µs/op and task-µs/op leave the pause out.
func BenchmarkPoolTaskWarmIdle(b *testing.B) { benchWarm(b, 200*time.Millisecond) }

func benchWarm(b *testing.B, pause time.Duration) {
	t := &testing.T{}
	tk := task(t, SQLScalarArrowUDF, nil, UDF{Command: command(t, "scalar_arrow"), ArgOffsets: []int{0}})
	p := NewPool(PoolConfig{Python: testPython(t), MaxWorkers: 1, Output: io.Discard})
	defer p.Close()
	benchTask(b, p, tk)
	var open, total time.Duration
	for b.Loop() {
		time.Sleep(pause)
		o, d := benchTask(b, p, tk)
		open, total = open+o, total+d
	}
	b.ReportMetric(float64(open.Microseconds())/float64(b.N), "open-µs/op")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "task-µs/op")
}
