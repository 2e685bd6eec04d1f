package connect

import (
	"context"
	"fmt"
	"sync"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"google.golang.org/protobuf/proto"
)

// execution is one ExecutePlan operation: a goroutine producing responses into a bounded
// replay buffer that client streams (the ExecutePlan stream, then ReattachExecute streams)
// consume by index. Responses stay buffered until released (ReleaseExecute) or, once sent,
// until the buffer needs room; the producer waits while the buffer is full of unsent
// responses.
type execution struct {
	id           string
	sessionID    string
	serverSideID string
	tags         []string
	reattachable bool
	// started is when the operation was created; tracker counts its batch jobs' progress
	// (ExecutionProgress and the web UI read it).
	started time.Time
	tracker *flow.Tracker

	ctx      context.Context
	cancelFn context.CancelCauseFunc
	limit    int

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every state change
	buf        []buffered    // responses with index base, base+1, …
	base       int
	ids        map[string]int // response id → index, for every response produced
	bytes      int
	sentUpTo   int // responses below this index were sent to some client
	done       bool
	err        error
	waiting    bool // the producer waits for room
	gen        int  // current attachment; a new stream bumps it and evicts the old one
	attached   bool
	detachedAt time.Time
}

type buffered struct {
	resp *pb.ExecutePlanResponse
	size int
}

func newExecution(sess *session, opID string, tags []string, reattachable bool, limit int) *execution {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &execution{
		id:           opID,
		sessionID:    sess.id,
		serverSideID: sess.serverSideID,
		tags:         tags,
		reattachable: reattachable,
		ctx:          ctx,
		cancelFn:     cancel,
		limit:        limit,
		started:      time.Now(),
		tracker:      &flow.Tracker{},
		changed:      make(chan struct{}),
		ids:          map[string]int{},
		detachedAt:   time.Now(),
	}
}

// start runs produce in its own goroutine; when it returns, the execution appends
// ResultComplete (on success) and finishes.
func (e *execution) start(produce func(ctx context.Context, emit func(*pb.ExecutePlanResponse) error) error) {
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = sparkerr.Internal("panic in execution %s: %v", e.id, r)
			}
			e.finish(err)
		}()
		err = produce(e.ctx, e.emit)
		if err == nil {
			err = e.emit(&pb.ExecutePlanResponse{
				ResponseType: &pb.ExecutePlanResponse_ResultComplete_{ResultComplete: &pb.ExecutePlanResponse_ResultComplete{}},
			})
		}
		if err != nil && e.ctx.Err() != nil {
			// Whatever the producer saw, the client sees why the execution was stopped.
			err = context.Cause(e.ctx)
		}
	}()
}

// cancel stops the execution with cause (the error its clients see).
func (e *execution) cancel(cause error) { e.cancelFn(cause) }

func (e *execution) notifyLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *execution) finish(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done = true
	e.err = err
	e.notifyLocked()
}

// emit stamps resp with the execution's ids and a fresh response id and buffers it, waiting
// while the buffer is full of responses no client has received yet.
func (e *execution) emit(resp *pb.ExecutePlanResponse) error {
	resp.SessionId = e.sessionID
	resp.ServerSideSessionId = e.serverSideID
	resp.OperationId = e.id
	resp.ResponseId = newUUID()
	size := proto.Size(resp)
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		e.trimSentLocked(size)
		if len(e.buf) == 0 || e.bytes+size <= e.limit {
			break
		}
		ch := e.changed
		e.waiting = true
		e.mu.Unlock()
		select {
		case <-ch:
		case <-e.ctx.Done():
			e.mu.Lock()
			e.waiting = false
			return context.Cause(e.ctx)
		}
		e.mu.Lock()
		e.waiting = false
	}
	e.ids[resp.ResponseId] = e.base + len(e.buf)
	e.buf = append(e.buf, buffered{resp: resp, size: size})
	e.bytes += size
	e.notifyLocked()
	return nil
}

// trimSentLocked drops the oldest already-sent responses while adding extra bytes would
// exceed the limit.
func (e *execution) trimSentLocked(extra int) {
	for len(e.buf) > 0 && e.base < e.sentUpTo && e.bytes+extra > e.limit {
		e.dropFirstLocked()
	}
}

func (e *execution) dropFirstLocked() {
	e.bytes -= e.buf[0].size
	e.buf[0] = buffered{}
	e.buf = e.buf[1:]
	e.base++
}

// releaseThrough drops buffered responses up to and including index idx.
func (e *execution) releaseThrough(idx int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	changed := false
	for len(e.buf) > 0 && e.base <= idx {
		e.dropFirstLocked()
		changed = true
	}
	if changed {
		e.notifyLocked()
	}
}

// releaseUntil drops buffered responses up to and including the one with responseID.
func (e *execution) releaseUntil(responseID string) {
	e.mu.Lock()
	idx, ok := e.ids[responseID]
	e.mu.Unlock()
	if ok {
		e.releaseThrough(idx)
	}
}

// resumeIndex is the index a reattaching client continues from: the response after
// lastResponseID, or the first one when it is empty.
func (e *execution) resumeIndex(lastResponseID string) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	idx := 0
	if lastResponseID != "" {
		i, ok := e.ids[lastResponseID]
		if !ok {
			return 0, cursorPositionNotAvailable(e.id, lastResponseID)
		}
		idx = i + 1
	}
	if idx < e.base {
		return 0, cursorPositionNotAvailable(e.id, lastResponseID)
	}
	return idx, nil
}

// attach makes a new client stream the execution's consumer and returns its generation.
func (e *execution) attach() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gen++
	e.attached = true
	e.notifyLocked()
	return e.gen
}

// detach ends attachment gen (if it is still current).
func (e *execution) detach(gen int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gen == gen {
		e.attached = false
		e.detachedAt = time.Now()
	}
}

func (e *execution) isAttached() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.attached
}

func (e *execution) isDone() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.done
}

// abandoned reports whether e is reattachable and has had no client for longer than timeout.
func (e *execution) abandoned(now time.Time, timeout time.Duration) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reattachable && !e.attached && now.Sub(e.detachedAt) > timeout
}

// hasTag reports whether the execution carries tag.
func (e *execution) hasTag(tag string) bool {
	for _, t := range e.tags {
		if t == tag {
			return true
		}
	}
	return false
}

// step is what a consumer at some index should do next.
type step struct {
	resp     *pb.ExecutePlanResponse // send this, then advance
	finished bool                    // no more responses; err is the execution's outcome
	err      error
	wait     <-chan struct{} // nothing yet: wait for a change
}

// next returns the step for a consumer of generation gen at index idx.
func (e *execution) next(idx, gen int) step {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gen != gen {
		return step{finished: true, err: cursorDisconnected(e.id)}
	}
	if e.done && e.err != nil && e.ctx.Err() != nil {
		// Cancelled (interrupt, release, shutdown): report it now rather than after the
		// responses still buffered.
		return step{finished: true, err: e.err}
	}
	if idx < e.base {
		return step{finished: true, err: cursorPositionNotAvailable(e.id, fmt.Sprintf("#%d", idx))}
	}
	if idx < e.base+len(e.buf) {
		if idx+1 > e.sentUpTo {
			e.sentUpTo = idx + 1
			if e.waiting {
				e.notifyLocked()
			}
		}
		return step{resp: e.buf[idx-e.base].resp}
	}
	if e.done {
		return step{finished: true, err: e.err}
	}
	return step{wait: e.changed}
}

// state is the execution's state as GetStatus reports it.
func (e *execution) state() pb.GetStatusResponse_OperationStatus_OperationState {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case !e.done && e.ctx.Err() != nil:
		return pb.GetStatusResponse_OperationStatus_OPERATION_STATE_TERMINATING
	case !e.done:
		return pb.GetStatusResponse_OperationStatus_OPERATION_STATE_RUNNING
	case e.err == nil:
		return pb.GetStatusResponse_OperationStatus_OPERATION_STATE_SUCCEEDED
	case e.ctx.Err() != nil:
		return pb.GetStatusResponse_OperationStatus_OPERATION_STATE_CANCELLED
	}
	return pb.GetStatusResponse_OperationStatus_OPERATION_STATE_FAILED
}
