package connect

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

// maxTombstones bounds how many closed session ids are remembered (Spark's
// closedSessionsTombstonesSize).
const maxTombstones = 1000

// sessionRequest is what every Spark Connect request says about its session.
type sessionRequest interface {
	GetSessionId() string
	GetUserContext() *pb.UserContext
	GetClientObservedServerSideSessionId() string
}

// sessionManager owns the server's sessions, keyed by session_id, each owned by the user id
// and the principal (bearer token) that created it.
type sessionManager struct {
	opts *options
	now  func() time.Time
	// artifacts bounds what all sessions' artifacts hold in memory.
	artifacts *artifactMemory

	mu         sync.Mutex
	sessions   map[string]*session
	tombstones map[string]bool
	tombOrder  []string
}

func newSessionManager(opts *options, artifacts *artifactMemory) *sessionManager {
	return &sessionManager{
		opts:       opts,
		now:        time.Now,
		artifacts:  artifacts,
		sessions:   map[string]*session{},
		tombstones: map[string]bool{},
	}
}

// getOrCreate returns the request's session, creating it on first use for the caller in ctx.
func (m *sessionManager) getOrCreate(ctx context.Context, req sessionRequest) (*session, error) {
	return m.lookup(principalOf(ctx), req.GetSessionId(), req.GetUserContext().GetUserId(), req.GetClientObservedServerSideSessionId(), true)
}

// get returns the request's existing session.
func (m *sessionManager) get(ctx context.Context, req sessionRequest) (*session, error) {
	return m.lookup(principalOf(ctx), req.GetSessionId(), req.GetUserContext().GetUserId(), req.GetClientObservedServerSideSessionId(), false)
}

// lookup finds session id for the caller (who, user). A session that exists but was created
// by another user id or another token answers sessionOfOtherUser, whatever else the request
// says, so a caller learns nothing more about someone else's session.
func (m *sessionManager) lookup(who principal, id, user, observed string, create bool) (*session, error) {
	if !isUUID(id) {
		return nil, handleFormat(id)
	}
	m.mu.Lock()
	sess, ok := m.sessions[id]
	if !ok {
		if m.tombstones[id] {
			m.mu.Unlock()
			return nil, sessionClosed(id)
		}
		if !create {
			m.mu.Unlock()
			return nil, sessionNotFound(id)
		}
		if observed != "" {
			// The client saw a session this server does not have: the server restarted.
			m.mu.Unlock()
			return nil, sessionChanged(id)
		}
		serverSideID := newUUID()
		artifactDir := ""
		if m.opts.stateDir != "" {
			artifactDir = filepath.Join(m.opts.stateDir, "artifacts", serverSideID)
		}
		sess = &session{
			id:           id,
			userID:       user,
			owner:        who,
			serverSideID: serverSideID,
			engine:       m.opts.newEngine(user),
			errors:       newErrorStore(m.opts.maxErrorsPerSess),
			artifacts:    newArtifactStore(artifactDir, m.artifacts),
			executions:   map[string]*execution{},
			persisted:    map[string]*pb.StorageLevel{},
		}
		m.sessions[id] = sess
		m.opts.observeSessions(sess)
		m.opts.observeSessionsUI(sess)
		m.opts.logger.Info("session created", "session_id", id, "user_id", user, "server_side_session_id", sess.serverSideID)
	}
	m.mu.Unlock()
	if !sess.ownedBy(who, user) {
		return nil, sessionOfOtherUser(id)
	}
	if observed != "" && observed != sess.serverSideID {
		return nil, sessionChanged(id)
	}
	sess.touch(m.now())
	return sess, nil
}

// release closes and forgets the session (if any) and, unless allowReconnect, tombstones its
// id so it cannot be used again. Only the session's owner may release it.
func (m *sessionManager) release(ctx context.Context, id, user string, allowReconnect bool) (*session, error) {
	m.mu.Lock()
	sess, ok := m.sessions[id]
	if ok && !sess.ownedBy(principalOf(ctx), user) {
		m.mu.Unlock()
		return nil, sessionOfOtherUser(id)
	}
	if ok {
		delete(m.sessions, id)
	}
	if !allowReconnect {
		m.tombstoneLocked(id)
	}
	m.mu.Unlock()
	if ok {
		sess.close()
		sess.artifacts.drop()
		m.opts.logger.Info("session released", "session_id", id)
	}
	return sess, nil
}

func (m *sessionManager) tombstoneLocked(id string) {
	if m.tombstones[id] {
		return
	}
	m.tombstones[id] = true
	m.tombOrder = append(m.tombOrder, id)
	if len(m.tombOrder) > maxTombstones {
		delete(m.tombstones, m.tombOrder[0])
		m.tombOrder = m.tombOrder[1:]
	}
}

// all returns every live session.
func (m *sessionManager) all() []*session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	return out
}

// reap expires idle sessions and cancels reattachable executions left without a client.
func (m *sessionManager) reap() {
	now := m.now()
	for _, sess := range m.all() {
		for _, e := range sess.executionsWhere(func(e *execution) bool { return e.abandoned(now, m.opts.detachedTimeout) }) {
			m.opts.logger.Info("execution abandoned", "session_id", sess.id, "operation_id", e.id)
			e.cancel(operationCanceled())
			sess.removeExecution(e)
		}
		sess.mu.Lock()
		idle := now.Sub(sess.lastUsed)
		sess.mu.Unlock()
		if idle > m.opts.sessionTimeout && !sess.busy() {
			m.opts.logger.Info("session expired", "session_id", sess.id, "idle", idle)
			m.mu.Lock()
			if m.sessions[sess.id] == sess {
				delete(m.sessions, sess.id)
				m.tombstoneLocked(sess.id)
			}
			m.mu.Unlock()
			sess.close()
			sess.artifacts.drop()
		}
	}
}

// closeAll closes every session (server shutdown).
func (m *sessionManager) closeAll() {
	m.mu.Lock()
	sessions := m.sessions
	m.sessions = map[string]*session{}
	m.mu.Unlock()
	for _, s := range sessions {
		s.close()
	}
}
