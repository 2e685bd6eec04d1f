package pyworker

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// reserveAsync runs p.reserve(ctx, n) in a goroutine; the channel receives its error.
func reserveAsync(p *Pool, ctx context.Context, n int) chan error {
	ch := make(chan error, 1)
	go func() { ch <- p.reserve(ctx, n) }()
	return ch
}

// waitQueued waits until n requests wait in p's queue (a goroutine's reserve reached it).
func waitQueued(t *testing.T, p *Pool, n int) {
	t.Helper()
	for i := 0; ; i++ {
		p.mu.Lock()
		q := len(p.waiting)
		p.mu.Unlock()
		if q == n {
			return
		}
		if i > 5000 {
			t.Fatalf("%d requests queued, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func isDone(ch chan error) (error, bool) {
	select {
	case err := <-ch:
		return err, true
	default:
		return nil, false
	}
}

// TestReserveGrants checks the pool's grant rule: requests fit under MaxWorkers beside the
// others, a larger one is granted alone, in arrival order (a small request behind a waiting
// large one waits too), and a cancelled request leaves the queue.
func TestReserveGrants(t *testing.T) {
	p := NewPool(PoolConfig{MaxWorkers: 4})
	ctx := context.Background()
	if err := p.reserve(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if err := p.reserve(ctx, 1); err != nil {
		t.Fatal(err)
	}
	big := reserveAsync(p, ctx, 10) // more than MaxWorkers: waits until no one holds any
	waitQueued(t, p, 1)
	small := reserveAsync(p, ctx, 1) // behind big, although it does not fit anyway
	waitQueued(t, p, 2)
	p.unreserve(3)
	if _, ok := isDone(big); ok {
		t.Fatal("a request for 10 was granted while 1 worker was reserved")
	}
	if _, ok := isDone(small); ok {
		t.Fatal("a request overtook an earlier one")
	}
	p.unreserve(1)
	if err := <-big; err != nil {
		t.Fatal(err)
	}
	if p.reserved != 10 {
		t.Fatalf("reserved = %d, want 10 (the large request alone)", p.reserved)
	}
	if _, ok := isDone(small); ok {
		t.Fatal("a request was granted beside one larger than MaxWorkers")
	}
	short, cancel := context.WithCancel(ctx)
	cancelled := reserveAsync(p, short, 2)
	waitQueued(t, p, 2)
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled reserve = %v", err)
	}
	waitQueued(t, p, 1)
	p.unreserve(10)
	if err := <-small; err != nil {
		t.Fatal(err)
	}
	if p.reserved != 1 || len(p.waiting) != 0 {
		t.Fatalf("reserved = %d, waiting %d; want 1, 0", p.reserved, len(p.waiting))
	}
	p.Close()
	if err := p.reserve(ctx, 1); err == nil {
		t.Fatal("reserve on a closed pool succeeded")
	}
}

// TestReservationRunsPastTheBound runs a plan needing 3 workers on a pool of 1: its three tasks
// run at once on three workers, a plain Open waits until they all ended, and the extra workers
// are not kept idle afterwards.
func TestReservationRunsPastTheBound(t *testing.T) {
	base := snapshot(t)
	p := newTestPool(t, 1)
	tk := task(t, SQLScalarPandasUDF, nil, UDF{Command: command(t, "identity"), ArgOffsets: []int{0}})
	ctx := context.Background()
	r := p.NewReservation()
	r.SetNeed(3)
	var streams []*Stream
	pids := map[int]bool{}
	for range 3 {
		s, err := r.Open(ctx, tk)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, s)
		pids[s.Pid()] = true
	}
	if len(pids) != 3 {
		t.Fatalf("three running tasks ran on %d workers", len(pids))
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if s, err := r.Open(short, tk); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a fourth task of a plan needing 3 = %v, %v: want it to wait", s, err)
	}
	plain := make(chan error, 1)
	go func() {
		s, err := p.Open(ctx, tk)
		if err == nil {
			s.Close()
		}
		plain <- err
	}()
	waitQueued(t, p, 1)
	for i, s := range streams {
		if err := s.CloseSend(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Recv(ctx); err != io.EOF {
			t.Fatalf("Recv of an empty task = %v, want io.EOF", err)
		}
		s.Close()
		// isDone consumes the result: keep it, the plain Open may end right after the last close.
		if err, ok := isDone(plain); ok {
			if i < len(streams)-1 {
				t.Fatal("a plain Open ran while the plan's reservation was held")
			}
			plain <- err
		}
	}
	if err := <-plain; err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	idle, reserved := len(p.idle), p.reserved
	p.mu.Unlock()
	if idle > 1 || reserved != 0 {
		t.Fatalf("after the plan: %d idle workers (MaxWorkers 1), %d reserved", idle, reserved)
	}
	p.Close()
	checkNoLeaks(t, base)
}
