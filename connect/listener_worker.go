package connect

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sparkerr"
)

// listenerWorkerModule is PySpark's server-side streaming listener worker (Spark 3.5's
// PythonStreamingQueryListener runs it for spark.streams.addListener of a 3.5 client).
const listenerWorkerModule = "pyspark.sql.connect.streaming.worker.listener_worker"

// listenerError prefixes a listener worker's traceback, as Spark's PythonStreamingQueryListener.
const listenerError = "Found error inside Streaming query listener Python process"

// Listener event kinds as the listener worker numbers them.
const (
	workerQueryStarted    = 0
	workerQueryProgress   = 1
	workerQueryIdle       = 2
	workerQueryTerminated = 3
)

var workerEventKinds = map[query.EventType]int32{
	query.ProgressEvent:   workerQueryProgress,
	query.IdleEvent:       workerQueryIdle,
	query.TerminatedEvent: workerQueryTerminated,
}

// workerEvent is one event for a listener worker: its kind and Spark's event JSON.
type workerEvent struct {
	kind int32
	json string
}

// maxHeldEvents bounds the events a listener queues for its worker (and the events held back
// while a query starts); beyond it the oldest are dropped, as listener events are best-effort.
const maxHeldEvents = 10000

// serverListeners are a session's server-side streaming listeners (the Spark 3.5 protocol:
// add_listener with a pickled listener that the server runs in PySpark's listener worker),
// by the id the client gave them. One query.Listener, added to the session's query manager with
// the first of them, feeds them all. onQueryStarted comes from startStream (the manager has no
// started event): while a start is in flight the events of queries not yet announced are held,
// so each listener sees a query's started event before its progress, as in Spark.
type serverListeners struct {
	mu         sync.Mutex
	byID       map[string]*serverListener
	order      []string
	unregister func()
	starting   int
	announced  map[string]bool // query ids whose started event was posted
	held       []workerEvent
	heldIDs    []string
	closed     bool // the session closed: no more listeners
}

// add registers l under its id; it fails when the id is taken or the session closed (the caller
// then closes l). register adds the feed to the query manager when it is the first listener.
func (ls *serverListeners) add(l *serverListener, register func(query.Listener) func(), sessionID string) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.closed {
		return sessionClosed(sessionID)
	}
	if _, ok := ls.byID[l.id]; ok {
		return sparkerr.IllegalArgument("A streaming query listener with id %s is already registered", l.id)
	}
	if ls.byID == nil {
		ls.byID = map[string]*serverListener{}
		ls.announced = map[string]bool{}
	}
	ls.byID[l.id] = l
	ls.order = append(ls.order, l.id)
	if ls.unregister == nil {
		ls.unregister = register(listenerFeed{ls})
	}
	return nil
}

// remove unregisters and returns the listener with id, or nil.
func (ls *serverListeners) remove(id string) *serverListener {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l := ls.byID[id]
	if l == nil {
		return nil
	}
	delete(ls.byID, id)
	for i, x := range ls.order {
		if x == id {
			ls.order = append(ls.order[:i], ls.order[i+1:]...)
			break
		}
	}
	if len(ls.byID) == 0 && ls.unregister != nil {
		ls.unregister()
		ls.unregister = nil
	}
	return l
}

// ids lists the registered listeners' ids in the order they were added.
func (ls *serverListeners) ids() []string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return append([]string{}, ls.order...)
}

// closeAll stops every listener and refuses new ones (session close).
func (ls *serverListeners) closeAll() {
	ls.mu.Lock()
	ls.closed = true
	ls.mu.Unlock()
	for _, id := range ls.ids() {
		if l := ls.remove(id); l != nil {
			l.close()
		}
	}
}

// beginStart marks a query start in flight; endStart (with the started query's id and started
// event JSON, or "" when the start failed) must follow.
func (ls *serverListeners) beginStart() {
	ls.mu.Lock()
	ls.starting++
	ls.mu.Unlock()
}

func (ls *serverListeners) endStart(queryID, startedJSON string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.starting--
	if queryID != "" && len(ls.byID) > 0 {
		ls.announced[queryID] = true
		ls.deliverLocked(workerEvent{workerQueryStarted, startedJSON})
	}
	keepEv, keepIDs := ls.held[:0:0], ls.heldIDs[:0:0]
	for i, ev := range ls.held {
		if ls.starting == 0 || ls.announced[ls.heldIDs[i]] {
			ls.deliverLocked(ev)
		} else {
			keepEv, keepIDs = append(keepEv, ev), append(keepIDs, ls.heldIDs[i])
		}
	}
	ls.held, ls.heldIDs = keepEv, keepIDs
}

// listenerFeed is the query.Listener of a session's server-side listeners.
type listenerFeed struct{ ls *serverListeners }

// OnEvent implements query.Listener: it queues the event for every listener (never blocking).
func (f listenerFeed) OnEvent(ev query.Event) {
	kind, ok := workerEventKinds[ev.Type]
	if !ok {
		return
	}
	id := eventQueryID(ev.JSON)
	ls := f.ls
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.starting > 0 && !ls.announced[id] {
		if len(ls.held) >= maxHeldEvents {
			ls.held, ls.heldIDs = ls.held[1:], ls.heldIDs[1:]
		}
		ls.held, ls.heldIDs = append(ls.held, workerEvent{kind, ev.JSON}), append(ls.heldIDs, id)
		return
	}
	ls.deliverLocked(workerEvent{kind, ev.JSON})
	if kind == workerQueryTerminated {
		delete(ls.announced, id)
	}
}

func (ls *serverListeners) deliverLocked(ev workerEvent) {
	for _, id := range ls.order {
		ls.byID[id].post(ev)
	}
}

// eventQueryID is the query id of a listener event's JSON (progress events nest it).
func eventQueryID(s string) string {
	var ev struct {
		ID       string `json:"id"`
		Progress *struct {
			ID string `json:"id"`
		} `json:"progress"`
	}
	_ = json.Unmarshal([]byte(s), &ev)
	if ev.Progress != nil {
		return ev.Progress.ID
	}
	return ev.ID
}

// serverListener is one listener running in its own PySpark listener worker, fed by one
// goroutine (owned by the listener: close stops it) from a queue, so queries never wait for
// Python. A listener that raises is logged and, when its worker died of it, stops receiving
// events, as in Spark (listener errors do not fail queries).
type serverListener struct {
	id     string
	logger *slog.Logger
	revoke func()
	worker *pyworker.Worker
	// statusPerEvent: 4.x's worker answers 0 or a traceback after each event; 3.5's answers nothing.
	statusPerEvent bool

	mu     sync.Mutex
	queue  []workerEvent
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// startServerListener starts the listener worker for a pickled listener of sess and initializes
// it (Python version, session id, the listener); errors come back to addListener.
func (s *Server) startServerListener(ctx context.Context, sess *session, id string, payload *pb.PythonUDF) (*serverListener, error) {
	version, err := pyworker.InterpreterPySpark(ctx, s.opts.python)
	if err != nil {
		return nil, err
	}
	url, revoke, err := s.workers.issue(sess)
	if err != nil {
		return nil, err
	}
	w, err := pyworker.Start(ctx, pyworker.Config{
		Python: s.opts.python,
		Module: listenerWorkerModule,
		Env:    []string{"SPARK_CONNECT_LOCAL_URL=" + url},
		Output: newWorkerLog(s.opts.logger, "listener", sess.id),
	})
	if err != nil {
		revoke()
		return nil, err
	}
	err = errors.Join(w.WritePythonVersion(payload.GetPythonVer()), w.WriteUTF(sess.id), w.WriteBytes(payload.GetCommand()), w.Flush(ctx))
	if err == nil {
		var v int32
		v, err = w.ReadStatus(ctx, listenerError)
		if err == nil && v != 0 {
			err = sparkerr.Newf(sparkerr.SparkException, "", "", "listener worker answered %d, not 0", v)
		}
		err = initFailure(err)
	}
	if err != nil {
		_ = w.Close()
		revoke()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	l := &serverListener{
		id: id, logger: s.opts.logger.With("listener", id, "session", sess.id), revoke: revoke, worker: w,
		statusPerEvent: version.AtLeast(4, 0), wake: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{}),
	}
	go l.run(runCtx)
	return l, nil
}

func (l *serverListener) post(ev workerEvent) {
	l.mu.Lock()
	if len(l.queue) >= maxHeldEvents {
		l.queue = l.queue[1:]
	}
	l.queue = append(l.queue, ev)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *serverListener) run(ctx context.Context) {
	defer close(l.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
		l.mu.Lock()
		evs := l.queue
		l.queue = nil
		l.mu.Unlock()
		for _, ev := range evs {
			if err := l.send(ctx, ev); err != nil {
				if ctx.Err() == nil {
					l.logger.Warn("streaming query listener failed; it receives no more events", "err", err)
				}
				return
			}
		}
	}
}

// send hands one event to the worker and, for a 4.x worker, reads its answer; a listener's
// exception in a 4.x worker is logged and the listener carries on.
func (l *serverListener) send(ctx context.Context, ev workerEvent) error {
	w := l.worker
	if err := errors.Join(w.WriteUTF(ev.json), w.WriteInt(ev.kind), w.Flush(ctx)); err != nil {
		return err
	}
	if !l.statusPerEvent {
		return nil
	}
	v, err := w.ReadStatus(ctx, listenerError)
	if err != nil && v == pyworker.PythonExceptionThrown {
		l.logger.Warn("streaming query listener raised", "err", err)
		return nil
	}
	return err
}

// close stops the feeding goroutine, the worker and its token.
func (l *serverListener) close() {
	l.cancel()
	<-l.done
	if err := l.worker.Close(); err != nil {
		l.logger.Warn("closing the streaming query listener worker", "err", err)
	}
	l.revoke()
}
