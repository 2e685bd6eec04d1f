package connect

import (
	"sync"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

// session is one Spark Connect session: an engine session plus the service's per-session
// state. It is owned by the user id and the principal (token) that created it.
type session struct {
	id           string
	userID       string
	owner        principal
	serverSideID string
	engine       EngineSession
	errors       *errorStore
	artifacts    *artifactStore

	mu         sync.Mutex
	lastUsed   time.Time
	executions map[string]*execution
	persisted  map[string]*pb.StorageLevel
	closed     bool

	// bus is the session's client-side streaming listener bus.
	bus listenerBus
	// listeners are the session's server-side streaming listeners (3.5 clients).
	listeners serverListeners
}

// ownedBy reports whether the caller (who, user) owns the session; the token part is compared
// in constant time.
func (s *session) ownedBy(who principal, user string) bool {
	return s.owner.same(who) && s.userID == user
}

func (s *session) touch(now time.Time) {
	s.mu.Lock()
	s.lastUsed = now
	s.mu.Unlock()
}

// addExecution registers e unless its operation id is taken or the session is closed.
func (s *session) addExecution(e *execution) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return sessionClosed(s.id)
	}
	if _, ok := s.executions[e.id]; ok {
		return operationAlreadyExists(e.id)
	}
	s.executions[e.id] = e
	return nil
}

func (s *session) execution(opID string) *execution {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.executions[opID]
}

// removeExecution forgets e (if it is still the execution under its id).
func (s *session) removeExecution(e *execution) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.executions[e.id] == e {
		delete(s.executions, e.id)
	}
}

// executionsWhere returns the executions matching keep.
func (s *session) executionsWhere(keep func(*execution) bool) []*execution {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*execution
	for _, e := range s.executions {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// close cancels and forgets every execution and stops the session's streaming queries; the
// session takes no new executions.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	execs := s.executions
	s.executions = map[string]*execution{}
	s.mu.Unlock()
	for _, e := range execs {
		e.cancel(operationCanceled())
	}
	s.listeners.closeAll()
	if eng, ok := s.engine.(StreamingEngine); ok {
		eng.Close()
	}
}

// busy reports whether a client stream is attached to one of the session's executions.
func (s *session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.executions {
		if e.isAttached() {
			return true
		}
	}
	return false
}
