package pyworker

import (
	"context"
	"fmt"
	"sync"
)

// The pool's workers are granted by reservation: a request for n workers waits, first come
// first served, until the workers reserved by others leave room for n under MaxWorkers, or
// until no one holds any (a request for more than MaxWorkers is granted alone: the pool then
// runs more than MaxWorkers workers, for that request only). A request never holds part of its
// workers while it waits, so requests cannot wait on each other in a cycle; strict arrival
// order keeps small requests from starving a large one.

// grant is one waiting reservation request.
type grant struct {
	n     int
	ready chan struct{} // closed when granted
}

// reserve waits, bounded by ctx, until n workers are granted to the caller.
func (p *Pool) reserve(ctx context.Context, n int) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return errPoolClosed()
	}
	g := &grant{n: n, ready: make(chan struct{})}
	p.waiting = append(p.waiting, g)
	p.grantLocked()
	p.mu.Unlock()
	select {
	case <-g.ready:
		return nil
	case <-ctx.Done():
	case <-p.done:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-g.ready: // granted meanwhile: give it back
		p.reserved -= n
	default:
		for i, w := range p.waiting {
			if w == g {
				p.waiting = append(p.waiting[:i], p.waiting[i+1:]...)
				break
			}
		}
	}
	p.grantLocked()
	if p.closed {
		return errPoolClosed()
	}
	return fmt.Errorf("pyworker: waiting for a Python worker: %w", ctx.Err())
}

// unreserve gives n granted workers back.
func (p *Pool) unreserve(n int) {
	p.mu.Lock()
	p.reserved -= n
	p.grantLocked()
	p.mu.Unlock()
}

// grantLocked grants the waiting requests at the head of the queue that fit.
func (p *Pool) grantLocked() {
	for len(p.waiting) > 0 {
		g := p.waiting[0]
		if p.reserved > 0 && p.reserved+g.n > p.cfg.MaxWorkers {
			return
		}
		p.reserved += g.n
		p.waiting = p.waiting[1:]
		close(g.ready)
	}
}

// Reservation runs the Python tasks of one plan: the first task to start reserves the plan's
// workers (SetNeed) at once, the others run on them, and the reservation is given back when the
// last running task ends (a later task reserves again). A plan whose tasks can all run at once
// on its reservation therefore never waits for a worker held by one of its own tasks, and never
// holds some of its workers while waiting for the rest. Without a need set, each task reserves
// one worker for itself, as Pool.Open does. It is safe for concurrent use.
type Reservation struct {
	pool *Pool

	mu        sync.Mutex
	need      int
	held      bool          // need workers are reserved
	acquiring bool          // a task is waiting for the reservation
	running   int           // tasks started on the reservation and not yet closed
	changed   chan struct{} // closed and replaced when held or running changes
}

// NewReservation returns a reservation for one plan's tasks on p; it reserves nothing until
// its first Open.
func (p *Pool) NewReservation() *Reservation {
	return &Reservation{pool: p, changed: make(chan struct{})}
}

// SetNeed sets how many tasks of the plan may run at once (n ≤ 0: no shared reservation). It
// is called before the first Open.
func (r *Reservation) SetNeed(n int) {
	r.mu.Lock()
	r.need = n
	r.mu.Unlock()
}

// Open starts task t (see Pool.Open) on one of the reservation's workers, reserving them first
// when no task of the plan runs; it waits, bounded by ctx, while the reservation's workers
// are all running tasks.
func (r *Reservation) Open(ctx context.Context, t Task) (*Stream, error) {
	r.mu.Lock()
	if r.need <= 0 {
		r.mu.Unlock()
		return r.pool.Open(ctx, t)
	}
	for {
		switch {
		case r.held && r.running < r.need:
			r.running++
			r.mu.Unlock()
			s, err := r.pool.openReserved(ctx, t, r.taskDone)
			if err != nil {
				r.taskDone()
			}
			return s, err
		case !r.held && !r.acquiring:
			r.acquiring = true
			need := r.need
			r.mu.Unlock()
			err := r.pool.reserve(ctx, need)
			r.mu.Lock()
			r.acquiring = false
			r.held = err == nil
			r.signalLocked()
			if err != nil {
				r.mu.Unlock()
				return nil, err
			}
			continue
		}
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("pyworker: waiting for a Python worker: %w", ctx.Err())
		}
		r.mu.Lock()
	}
}

// taskDone ends one task's use of the reservation; the last running task gives it back.
func (r *Reservation) taskDone() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running--
	if r.running == 0 && r.held {
		r.held = false
		r.pool.unreserve(r.need)
	}
	r.signalLocked()
}

func (r *Reservation) signalLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}
