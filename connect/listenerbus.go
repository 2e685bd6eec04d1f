package connect

import (
	"context"
	"sync"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sparkerr"
)

// maxQueuedEvents bounds the events a listener-bus stream holds for a slow client; beyond it the
// oldest are dropped (listener events are best-effort in Spark too).
const maxQueuedEvents = 10000

// listenerBus is a session's Spark 4 client-side listener bus: at most one long-lived
// ExecutePlan stream (add_listener_bus_listener) that carries the session's query events until
// remove_listener_bus_listener ends it. The zero value has no listener.
type listenerBus struct {
	mu     sync.Mutex
	active *busListener
}

// busListener is one registered listener-bus stream: a query.Listener whose events queue up
// for the stream's producer, so the queries never wait for the client.
type busListener struct {
	mu      sync.Mutex
	queue   []query.Event
	wake    chan struct{}
	removed chan struct{}
	once    sync.Once
}

func newBusListener() *busListener {
	return &busListener{wake: make(chan struct{}, 1), removed: make(chan struct{})}
}

// OnEvent implements query.Listener.
func (l *busListener) OnEvent(ev query.Event) {
	l.mu.Lock()
	if len(l.queue) >= maxQueuedEvents {
		l.queue = l.queue[1:]
	}
	l.queue = append(l.queue, ev)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *busListener) take() []query.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.queue
	l.queue = nil
	return out
}

func (l *busListener) remove() { l.once.Do(func() { close(l.removed) }) }

// registered reports whether the session has a listener-bus stream.
func (b *listenerBus) registered() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.active != nil
}

// add registers a new listener, or returns false if one is registered already.
func (b *listenerBus) add() (*busListener, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active != nil {
		return nil, false
	}
	b.active = newBusListener()
	return b.active, true
}

// drop forgets l if it is still the registered listener.
func (b *listenerBus) drop(l *busListener) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active == l {
		b.active = nil
	}
}

// removeActive ends the registered listener's stream, if any.
func (b *listenerBus) removeActive() {
	b.mu.Lock()
	l := b.active
	b.active = nil
	b.mu.Unlock()
	if l != nil {
		l.remove()
	}
}

var eventTypes = map[query.EventType]pb.StreamingQueryEventType{
	query.ProgressEvent:   pb.StreamingQueryEventType_QUERY_PROGRESS_EVENT,
	query.TerminatedEvent: pb.StreamingQueryEventType_QUERY_TERMINATED_EVENT,
	query.IdleEvent:       pb.StreamingQueryEventType_QUERY_IDLE_EVENT,
}

// listenerBusCommand serves StreamingQueryListenerBusCommand. Adding keeps this execution open:
// it first answers listener_bus_listener_added, then one events result per query event, and
// ends (ResultComplete) when a later remove_listener_bus_listener arrives or the operation is
// cancelled. Only streaming_query_listener_events_result responses travel on it. A redundant add
// or a remove without a listener just completes, as in Spark.
func (s *Server) listenerBusCommand(ctx context.Context, sess *session, c *pb.StreamingQueryListenerBusCommand, emit func(*pb.ExecutePlanResponse) error) error {
	eng, err := streamingEngine(sess)
	if err != nil {
		return err
	}
	switch c.GetCommand().(type) {
	case *pb.StreamingQueryListenerBusCommand_RemoveListenerBusListener:
		sess.bus.removeActive()
		return nil
	case *pb.StreamingQueryListenerBusCommand_AddListenerBusListener:
	case nil:
		return sparkerr.IllegalArgument("Missing command in StreamingQueryListenerBusCommand")
	default:
		return sparkerr.Unsupported("listener bus command %T is not supported", c.GetCommand())
	}
	l, ok := sess.bus.add()
	if !ok {
		return nil
	}
	unregister := eng.Streams().AddListener(l)
	defer func() {
		unregister()
		sess.bus.drop(l)
	}()
	added := true
	if err := emit(eventsResponse(&pb.StreamingQueryListenerEventsResult{ListenerBusListenerAdded: &added})); err != nil {
		return err
	}
	send := func() error {
		for _, ev := range l.take() {
			t, ok := eventTypes[ev.Type]
			if !ok {
				continue
			}
			if err := emit(eventsResponse(&pb.StreamingQueryListenerEventsResult{
				Events: []*pb.StreamingQueryListenerEvent{{EventJson: ev.JSON, EventType: t}},
			})); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		if err := send(); err != nil {
			return err
		}
		select {
		case <-l.wake:
		case <-l.removed:
			return send()
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func eventsResponse(r *pb.StreamingQueryListenerEventsResult) *pb.ExecutePlanResponse {
	return &pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryListenerEventsResult{
		StreamingQueryListenerEventsResult: r,
	}}
}
