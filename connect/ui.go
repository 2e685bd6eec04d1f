package connect

import (
	"context"
	"errors"
	"slices"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/ui"
	"google.golang.org/grpc/status"
)

// WithUI records every session's streaming query progress in h, for the web UI (package ui;
// Server.UIBackend is the rest of what it needs).
func WithUI(h *ui.History) Option { return func(o *options) { o.uiHistory = h } }

// observeSessionsUI adds the UI history's listener to a new session's query manager.
func (o *options) observeSessionsUI(sess *session) {
	if o.uiHistory == nil {
		return
	}
	if eng, ok := sess.engine.(StreamingEngine); ok {
		eng.Streams().AddListener(o.uiHistory.Listener(ui.Origin{
			Principal: uiPrincipal(sess.owner), SessionID: sess.id, UserID: sess.userID}))
	}
}

func uiPrincipal(p principal) ui.Principal { return ui.Principal(p[:]) }

// UIBackend is the server as the web UI sees it: sessions, operations and queries per
// principal (the token that created them), and the Interrupt and stop the UI's buttons send.
func (s *Server) UIBackend() ui.Backend { return uiBackend{s} }

type uiBackend struct{ s *Server }

// Authorize maps a bearer token to its principal as the Spark Connect port does.
func (b uiBackend) Authorize(bearer string) (ui.Principal, bool) {
	p, ok := b.s.principalFor(bearer)
	return uiPrincipal(p), ok
}

// owned is p's session id of user id, without touching it (a UI poll must not keep an idle
// session alive); the error is the one Spark Connect answers for a session not the caller's.
func (b uiBackend) owned(p ui.Principal, sessionID, userID string) (*session, error) {
	for _, sess := range b.s.sessions.all() {
		if sess.id == sessionID && uiPrincipal(sess.owner) == p && sess.userID == userID {
			return sess, nil
		}
	}
	return nil, sessionNotFound(sessionID)
}

// Sessions lists p's sessions with their operations and active streaming queries.
func (b uiBackend) Sessions(p ui.Principal) []ui.Session {
	var out []ui.Session
	for _, sess := range b.s.sessions.all() {
		if uiPrincipal(sess.owner) != p {
			continue
		}
		sess.mu.Lock()
		s := ui.Session{ID: sess.id, UserID: sess.userID, LastUsedMs: sess.lastUsed.UnixMilli(), Operations: []ui.Operation{}}
		sess.mu.Unlock()
		for _, e := range sess.executionsWhere(func(*execution) bool { return true }) {
			op := ui.Operation{ID: e.id, Tags: slices.Clone(e.tags), State: uiState(e.state()), StartedMs: e.started.UnixMilli()}
			if op.Tags == nil {
				op.Tags = []string{}
			}
			for _, st := range e.tracker.Progress().Stages {
				op.Stages++
				op.Tasks += st.Tasks
				op.TasksDone += st.Completed
				if st.Done {
					op.StagesDone++
				}
			}
			s.Operations = append(s.Operations, op)
		}
		if eng, ok := sess.engine.(StreamingEngine); ok {
			for _, q := range eng.Streams().Active() {
				s.Queries = append(s.Queries, ui.QueryRef{ID: q.ID(), RunID: q.RunID(), Name: q.Name()})
			}
		}
		out = append(out, s)
	}
	return out
}

func uiState(st pb.GetStatusResponse_OperationStatus_OperationState) string {
	switch st {
	case pb.GetStatusResponse_OperationStatus_OPERATION_STATE_RUNNING:
		return "running"
	case pb.GetStatusResponse_OperationStatus_OPERATION_STATE_TERMINATING:
		return "terminating"
	case pb.GetStatusResponse_OperationStatus_OPERATION_STATE_SUCCEEDED:
		return "succeeded"
	case pb.GetStatusResponse_OperationStatus_OPERATION_STATE_CANCELLED:
		return "cancelled"
	}
	return "failed"
}

// Plan is the query's extended explain text.
func (b uiBackend) Plan(_ context.Context, p ui.Principal, sessionID, userID, queryID string) (string, error) {
	sess, err := b.owned(p, sessionID, userID)
	if err != nil {
		return "", err
	}
	eng, err := streamingEngine(sess)
	if err != nil {
		return "", err
	}
	q, ok := eng.Streams().Get(queryID)
	if !ok {
		return "", sparkerr.IllegalArgument("Streaming query %s is not found", queryID)
	}
	return q.Explain(true), nil
}

// Interrupt sends Spark Connect's Interrupt of one operation, as the session's owner: the
// same RPC handler a client's interrupt reaches, so it is authorized as that is.
func (b uiBackend) Interrupt(ctx context.Context, p ui.Principal, sessionID, userID, operationID string) ([]string, error) {
	sess, err := b.owned(p, sessionID, userID) // never create a session from the UI
	if err != nil {
		return nil, err
	}
	req := &pb.InterruptRequest{
		SessionId:     sessionID,
		UserContext:   &pb.UserContext{UserId: userID},
		InterruptType: pb.InterruptRequest_INTERRUPT_TYPE_OPERATION_ID,
		Interrupt:     &pb.InterruptRequest_OperationId{OperationId: operationID},
	}
	resp, err := b.s.Interrupt(context.WithValue(ctx, principalKey{}, sess.owner), req)
	if err != nil {
		return nil, errors.New(status.Convert(err).Message())
	}
	return resp.GetInterruptedIds(), nil
}

// StopQuery stops a streaming query of the session, as StreamingQueryCommand's stop does.
func (b uiBackend) StopQuery(ctx context.Context, p ui.Principal, sessionID, userID, queryID string) error {
	sess, err := b.owned(p, sessionID, userID)
	if err != nil {
		return err
	}
	eng, err := streamingEngine(sess)
	if err != nil {
		return err
	}
	q, ok := eng.Streams().Get(queryID)
	if !ok {
		return sparkerr.IllegalArgument("Streaming query %s is not found", queryID)
	}
	return q.Stop(ctx)
}
