package flow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/barrier"
)

// JobRunner starts graphs. LocalRunner runs them in this process; a distributed runner would
// place partitions elsewhere behind the same interface. Start runs g with the job's settings
// opts until ctx is cancelled or the job is closed.
type JobRunner interface {
	Start(ctx context.Context, g *Graph, opts JobOptions) (Job, error)
}

// Job is a running graph.
type Job interface {
	// Next returns the next batch of the graph's output node: data batches and markers other
	// than EndOfData. It returns io.EOF once every output partition ended, or the job's error.
	// The caller releases the batch.
	Next(ctx context.Context) (arrow.RecordBatch, error)
	// Close stops the job (if still running), waits for all its goroutines and releases
	// buffered batches. It is safe to call more than once.
	Close()
}

// LocalRunner runs every (node, partition) as a goroutine in this process.
type LocalRunner struct {
	mem      memory.Allocator
	capacity int
}

// RunnerOption configures a LocalRunner.
type RunnerOption func(*LocalRunner)

// WithAllocator sets the allocator operators and sources use.
func WithAllocator(mem memory.Allocator) RunnerOption {
	return func(r *LocalRunner) { r.mem = mem }
}

// WithChannelCapacity sets the bound of every inbox channel (default 8 batches).
func WithChannelCapacity(n int) RunnerOption {
	return func(r *LocalRunner) { r.capacity = n }
}

// NewLocalRunner returns a runner.
func NewLocalRunner(opts ...RunnerOption) *LocalRunner {
	r := &LocalRunner{mem: memory.DefaultAllocator, capacity: 8}
	for _, o := range opts {
		o(r)
	}
	return r
}

// envelope is one batch in an inbox, with where it came from.
type envelope struct {
	input, sender int
	rec           arrow.RecordBatch
}

// route is one consumer edge of a producer.
type route struct {
	tasks []*task
	input int
	edge  Input
}

// task is one partition of one node.
type task struct {
	node    *Node
	env     Env
	inbox   chan envelope
	senders []int // senders per input
	routes  []route

	// ctx is the task's own context (a child of the job's); stopping cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	// targets are the consumer tasks this task sends to; output tasks also send to the job.
	targets   []*task
	producers []*task
	output    bool
	// needless: the task needs no more input (it finished early or was stopped); stopped: its
	// consumers all need no more input, so it was cancelled.
	needless, stopped atomic.Bool
	// saver saves the instance's state captures in the background (nil until the first).
	saver *stateSaver
	// ended is set when the task's goroutine returns; sourceBytes counts a source task's
	// output (progress.go; tracked jobs only).
	ended       atomic.Bool
	sourceBytes atomic.Int64
}

type localJob struct {
	cancel  context.CancelFunc
	ctx     context.Context
	wg      sync.WaitGroup
	mu      sync.Mutex
	err     error
	out     chan envelope
	outLeft int
	tasks   []*task
	closed  sync.Once
	stopMu  sync.Mutex
	state   Checkpointing
	policy  barrier.Policy
	// saves counts the background state saves each epoch still owes (see state_saver.go).
	saves *saveTracker
	// tracked: a Tracker reads the job's progress (progress.go).
	tracked bool
}

// Start builds one task per (node, partition), wires the edges and starts the goroutines.
func (r *LocalRunner) Start(ctx context.Context, g *Graph, opts JobOptions) (Job, error) {
	order, err := g.nodes()
	if err != nil {
		return nil, err
	}
	tasks := map[*Node][]*task{}
	var all []*task
	mem, budget := r.mem, opts.MemoryBudget
	if budget != nil {
		mem = budget
	}
	for _, n := range order {
		ts := make([]*task, n.Parallelism)
		for p := range ts {
			ts[p] = &task{
				node:    n,
				env:     Env{Mem: mem, Partition: p, Partitions: n.Parallelism, OutSchema: n.Schema, Budget: budget},
				inbox:   make(chan envelope, r.capacity),
				senders: make([]int, len(n.Inputs)),
			}
		}
		tasks[n] = ts
		all = append(all, ts...)
	}
	for _, n := range order {
		for i, in := range n.Inputs {
			for p, t := range tasks[n] {
				t.senders[i] = sendersInto(in, p)
			}
			for _, prod := range tasks[in.From] {
				prod.routes = append(prod.routes, route{tasks: tasks[n], input: i, edge: in})
			}
		}
	}
	jctx, cancel := context.WithCancel(ctx)
	for _, t := range all {
		t.ctx, t.cancel = context.WithCancel(jctx)
	}
	linkTargets(order, tasks)
	j := &localJob{cancel: cancel, ctx: jctx, out: make(chan envelope, r.capacity),
		outLeft: g.Output.Parallelism, tasks: all, state: opts.Checkpointing, policy: opts.WatermarkPolicy, saves: newSaveTracker(),
		tracked: opts.Tracker != nil}
	opts.Tracker.add(j)
	for _, t := range tasks[g.Output] {
		t.routes = append(t.routes, route{input: -1})
		t.output = true
	}
	for _, t := range all {
		j.wg.Add(1)
		go func(t *task) {
			defer j.wg.Done()
			defer t.ended.Store(true)
			defer t.cancel()
			if err := j.runTask(t.ctx, t); err != nil {
				j.fail(err)
			}
		}(t)
	}
	return j, nil
}

// sendersInto counts the producer partitions that send into consumer partition p over in.
func sendersInto(in Input, p int) int {
	switch in.Exchange {
	case Forward:
		return 1
	case Gather:
		if p == 0 {
			return in.From.Parallelism
		}
		return 0
	}
	return in.From.Parallelism
}

func (j *localJob) fail(err error) {
	j.mu.Lock()
	if j.err == nil && !errors.Is(err, context.Canceled) {
		j.err = err
	}
	j.mu.Unlock()
	j.cancel()
}

func (j *localJob) firstErr() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

func (j *localJob) runTask(ctx context.Context, t *task) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recoveredError(r, t.node.Name, t.env.Partition)
		}
	}()
	em := &taskEmitter{job: j, t: t}
	if t.node.Source != nil {
		if err := t.node.Source.Run(ctx, t.env, em); err != nil && !j.stoppedEarly(t) {
			return fmt.Errorf("%s: %w", t.node.Name, err)
		}
		// EndOfData goes out under the job's context: a stopped source still ends its edges.
		return em.emitMarker(j.ctx, Marker{Kind: MarkerEndOfData})
	}
	op, err := t.node.NewOperator(t.env)
	if err != nil {
		return err
	}
	if c, ok := op.(Closer); ok {
		defer c.Close()
	}
	defer t.closeSaver()
	if err := j.state.restore(t, op); err != nil {
		return err
	}
	l := newLoop(t, op, em, j.policy)
	return l.run(ctx, j)
}

// Next implements Job.
func (j *localJob) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if j.outLeft == 0 {
			return nil, io.EOF
		}
		select {
		case e := <-j.out:
			m, isMarker, err := MarkerOf(e.rec)
			if err != nil {
				e.rec.Release()
				return nil, err
			}
			if isMarker && m.Kind == MarkerEndOfData {
				e.rec.Release()
				j.outLeft--
				continue
			}
			return e.rec, nil
		case <-j.ctx.Done():
			if err := j.firstErr(); err != nil {
				return nil, err
			}
			return nil, j.ctx.Err()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close implements Job.
func (j *localJob) Close() {
	j.closed.Do(func() {
		j.cancel()
		j.wg.Wait()
		for _, t := range j.tasks {
			drain(t.inbox)
		}
		drain(j.out)
	})
}

func drain(c chan envelope) {
	for {
		select {
		case e := <-c:
			e.rec.Release()
		default:
			return
		}
	}
}

// taskEmitter routes a task's output batches along its routes.
type taskEmitter struct {
	job *localJob
	t   *task
	rr  int
}

func (em *taskEmitter) emitMarker(ctx context.Context, m Marker) error {
	return em.Emit(ctx, NewMarkerBatch(em.t.env.Mem, em.t.node.Schema, m))
}

// Emit implements Emitter.
func (em *taskEmitter) Emit(ctx context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	_, isMarker, err := MarkerOf(rec)
	if err != nil {
		return err
	}
	if !isMarker {
		em.countSource(rec)
	}
	p := em.t.env.Partition
	for _, r := range em.t.routes {
		if r.input < 0 {
			if err := em.send(ctx, em.job.out, envelope{input: 0, sender: p, rec: retained(rec)}); err != nil {
				return err
			}
			continue
		}
		switch {
		case r.edge.Exchange == Forward:
			// A forward edge has one sender per consumer partition: sender 0 (the aligner
			// counts senders 0..n-1 per input).
			err = em.send(ctx, r.tasks[p].inbox, envelope{r.input, 0, retained(rec)})
		case r.edge.Exchange == Gather:
			err = em.send(ctx, r.tasks[0].inbox, envelope{r.input, p, retained(rec)})
		case r.edge.Exchange == Broadcast || isMarker:
			for _, t := range r.tasks {
				if err = em.send(ctx, t.inbox, envelope{r.input, p, retained(rec)}); err != nil {
					break
				}
			}
		default:
			err = em.split(ctx, r, rec)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (em *taskEmitter) split(ctx context.Context, r route, rec arrow.RecordBatch) error {
	parts, err := r.edge.Partitioner.Split(em.t.env, rec, len(r.tasks))
	if err != nil {
		return err
	}
	for i, part := range parts {
		if part == nil {
			continue
		}
		if part.NumRows() == 0 || err != nil {
			part.Release()
			continue
		}
		err = em.send(ctx, r.tasks[i].inbox, envelope{r.input, em.t.env.Partition, part})
	}
	return err
}

// send delivers e or, if ctx ends first, releases it.
func (em *taskEmitter) send(ctx context.Context, c chan envelope, e envelope) error {
	select {
	case c <- e:
		return nil
	case <-ctx.Done():
		e.rec.Release()
		return ctx.Err()
	}
}

func retained(rec arrow.RecordBatch) arrow.RecordBatch {
	rec.Retain()
	return rec
}
