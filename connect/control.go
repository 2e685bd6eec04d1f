package connect

import (
	"context"
	"github.com/weirhq/weir/sparkerr"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

// Interrupt cancels the session's running operations: all of them, those with a tag, or one
// by id. It answers with the ids it interrupted.
func (s *Server) Interrupt(ctx context.Context, req *pb.InterruptRequest) (*pb.InterruptResponse, error) {
	sess, err := s.sessions.getOrCreate(ctx, req)
	if err != nil {
		return nil, toStatus(nil, err)
	}
	var match func(*execution) bool
	switch req.GetInterruptType() {
	case pb.InterruptRequest_INTERRUPT_TYPE_ALL:
		match = func(*execution) bool { return true }
	case pb.InterruptRequest_INTERRUPT_TYPE_TAG:
		tag := req.GetOperationTag()
		if tag == "" {
			return nil, toStatus(sess, invalidPlan("Interrupt by tag needs an operation_tag."))
		}
		match = func(e *execution) bool { return e.hasTag(tag) }
	case pb.InterruptRequest_INTERRUPT_TYPE_OPERATION_ID:
		id := req.GetOperationId()
		if id == "" {
			return nil, toStatus(sess, invalidPlan("Interrupt by operation id needs an operation_id."))
		}
		match = func(e *execution) bool { return e.id == id }
	default:
		return nil, toStatus(sess, invalidPlan("Unknown interrupt type %v.", req.GetInterruptType()))
	}
	resp := &pb.InterruptResponse{SessionId: sess.id, ServerSideSessionId: sess.serverSideID, InterruptedIds: []string{}}
	for _, e := range sess.executionsWhere(func(e *execution) bool { return !e.isDone() && match(e) }) {
		e.cancel(operationCanceled())
		resp.InterruptedIds = append(resp.InterruptedIds, e.id)
	}
	return resp, nil
}

// ReleaseSession cancels the session's operations and drops the session.
func (s *Server) ReleaseSession(ctx context.Context, req *pb.ReleaseSessionRequest) (*pb.ReleaseSessionResponse, error) {
	if !isUUID(req.GetSessionId()) {
		return nil, toStatus(nil, handleFormat(req.GetSessionId()))
	}
	sess, err := s.sessions.release(ctx, req.GetSessionId(), req.GetUserContext().GetUserId(), req.GetAllowReconnect())
	if err != nil {
		return nil, toStatus(nil, err)
	}
	resp := &pb.ReleaseSessionResponse{SessionId: req.GetSessionId()}
	if sess != nil {
		resp.ServerSideSessionId = sess.serverSideID
	}
	return resp, nil
}

// FetchErrorDetails returns the full details of an error the session reported with an
// errorId; an unknown id yields an empty answer (the client keeps the short message).
func (s *Server) FetchErrorDetails(ctx context.Context, req *pb.FetchErrorDetailsRequest) (*pb.FetchErrorDetailsResponse, error) {
	sess, err := s.sessions.get(ctx, req)
	if err != nil {
		return nil, toStatus(nil, err)
	}
	resp := &pb.FetchErrorDetailsResponse{SessionId: sess.id, ServerSideSessionId: sess.serverSideID}
	if e, ok := sess.errors.take(req.GetErrorId()); ok {
		root := int32(0)
		resp.RootErrorIdx = &root
		resp.Errors = errorDetails(e)
	}
	return resp, nil
}

// GetStatus reports the state of the session's operations: those asked for, or all it knows
// when the request names none.
func (s *Server) GetStatus(ctx context.Context, req *pb.GetStatusRequest) (*pb.GetStatusResponse, error) {
	sess, err := s.sessions.get(ctx, req)
	if err != nil {
		return nil, toStatus(nil, err)
	}
	resp := &pb.GetStatusResponse{SessionId: sess.id, ServerSideSessionId: sess.serverSideID}
	if req.OperationStatus == nil {
		return resp, nil
	}
	ids := req.GetOperationStatus().GetOperationIds()
	if len(ids) == 0 {
		for _, e := range sess.executionsWhere(func(*execution) bool { return true }) {
			ids = append(ids, e.id)
		}
	}
	for _, id := range ids {
		state := pb.GetStatusResponse_OperationStatus_OPERATION_STATE_UNKNOWN
		if e := sess.execution(id); e != nil {
			state = e.state()
		}
		resp.OperationStatuses = append(resp.OperationStatuses, &pb.GetStatusResponse_OperationStatus{OperationId: id, State: state})
	}
	return resp, nil
}

// CloneSession (Spark 4.1+) would copy a session's state into a new session; Weir does not
// clone sessions and says so with a Spark-shaped error (the client then keeps its session).
func (s *Server) CloneSession(ctx context.Context, req *pb.CloneSessionRequest) (*pb.CloneSessionResponse, error) {
	return nil, toStatus(nil, sparkerr.Unsupported("CloneSession is not supported by Weir: create a new session instead"))
}
