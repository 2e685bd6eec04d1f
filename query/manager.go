package query

import (
	"context"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// retention is how long a stopped or failed query stays inspectable after its last access
// (Spark Connect's stoppedQueryInactivityTimeout).
const retention = time.Hour

// Manager is a session's streaming queries (spark.streams): it starts them, finds them, waits
// for their termination and fans their events out to listeners. Its methods are safe for
// concurrent use.
type Manager struct {
	env Env

	mu        sync.Mutex
	queries   map[string]*Query
	lastSeen  map[string]time.Time // terminated queries: last access
	listeners map[int]Listener
	nextL     int
	// terminatedSince: a query ended since the last ResetTerminated; failure the latest such
	// query's failure. termCh is closed (and replaced) whenever a query ends.
	terminatedSince bool
	failure         error
	termCh          chan struct{}
}

// NewManager returns a manager running queries with env (a nil Clock is the wall clock, a nil
// Mem the default allocator, a nil Stdout discards, a nil Runner is a flow.LocalRunner).
func NewManager(env Env) *Manager {
	if env.Clock == nil {
		env.Clock = clock.New()
	}
	if env.Mem == nil {
		env.Mem = memory.DefaultAllocator
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Runner == nil {
		env.Runner = flow.NewLocalRunner(flow.WithAllocator(env.Mem))
	}
	if env.Locations == nil {
		env.Locations = NewLocations()
	}
	return &Manager{env: env, queries: map[string]*Query{}, lastSeen: map[string]time.Time{},
		listeners: map[int]Listener{}, termCh: make(chan struct{})}
}

// evictLocked drops terminated queries not accessed for the retention period.
func (m *Manager) evictLocked() {
	now := m.env.Clock.Now()
	for id, seen := range m.lastSeen {
		if now.Sub(seen) >= retention {
			delete(m.lastSeen, id)
			delete(m.queries, id)
		}
	}
}

// Active returns the running queries, oldest first.
func (m *Manager) Active() []*Query {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.evictLocked()
	var out []*Query
	for _, q := range m.queries {
		if !q.terminated() {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].startedAt.Equal(out[j].startedAt) {
			return out[i].startedAt.Before(out[j].startedAt)
		}
		return out[i].id < out[j].id
	})
	return out
}

// Get returns the query with id, active or terminated within the retention period (an access
// extends it).
func (m *Manager) Get(id string) (*Query, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.evictLocked()
	q, ok := m.queries[id]
	if ok {
		if _, ended := m.lastSeen[id]; ended {
			m.lastSeen[id] = m.env.Clock.Now()
		}
	}
	return q, ok
}

// AwaitAnyTermination waits until a query ended since the last ResetTerminated (true, and the
// latest such query's failure if one failed), timeout passes (false) or ctx ends.
func (m *Manager) AwaitAnyTermination(ctx context.Context, timeout *time.Duration) (bool, error) {
	var expired <-chan time.Time
	if timeout != nil {
		t := m.env.Clock.Timer(*timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		m.mu.Lock()
		if m.terminatedSince {
			err := m.failure
			m.mu.Unlock()
			return true, err
		}
		ch := m.termCh
		m.mu.Unlock()
		select {
		case <-ch:
		case <-expired:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// ResetTerminated forgets the queries that ended so far, for AwaitAnyTermination.
func (m *Manager) ResetTerminated() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.terminatedSince = false
	m.failure = nil
}

// AddListener adds a listener for every query's progress, idle and terminated events; remove
// removes it.
func (m *Manager) AddListener(l Listener) (remove func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.nextL
	m.nextL++
	m.listeners[id] = l
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.listeners, id)
	}
}

// StopAll stops every active query and waits for them (session release).
func (m *Manager) StopAll() {
	for _, q := range m.Active() {
		_ = q.Stop(context.Background())
	}
}

// emit delivers an event to every listener, in the order they were added.
func (m *Manager) emit(ev Event) {
	m.mu.Lock()
	ids := make([]int, 0, len(m.listeners))
	for id := range m.listeners {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	ls := make([]Listener, len(ids))
	for i, id := range ids {
		ls[i] = m.listeners[id]
	}
	m.mu.Unlock()
	for _, l := range ls {
		l.OnEvent(ev)
	}
}

// queryTerminated records q's end (before q's done channel closes).
func (m *Manager) queryTerminated(q *Query, exc *Exception) {
	m.emit(Event{Type: TerminatedEvent, JSON: q.terminatedEventJSON(exc)})
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.queries[q.id]; ok {
		m.lastSeen[q.id] = m.env.Clock.Now()
	}
	m.terminatedSince = true
	if exc != nil {
		m.failure = exc.Err
	}
	close(m.termCh)
	m.termCh = make(chan struct{})
}

// reserveName checks a query name against the active queries and registers q under its id.
func (m *Manager) register(q *Query) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.evictLocked()
	if q.name != "" {
		for _, other := range m.queries {
			if other.name == q.name && !other.terminated() {
				return sparkerr.IllegalArgument("Cannot start query with name %s as a query with that name is already "+
					"active in this SparkSession", q.name)
			}
		}
	}
	m.queries[q.id] = q
	return nil
}

// unregister drops a query that failed to start.
func (m *Manager) unregister(q *Query) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.queries, q.id)
}
