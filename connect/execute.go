package connect

import (
	"context"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

// ExecutePlan starts an operation and streams its responses. With
// ReattachOptions.reattachable the operation survives a cut stream (ReattachExecute
// continues it); otherwise a client cancel cancels it.
func (s *Server) ExecutePlan(req *pb.ExecutePlanRequest, stream grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
	sess, err := s.sessions.getOrCreate(stream.Context(), req)
	if err != nil {
		return toStatus(nil, err)
	}
	opID := req.GetOperationId()
	if opID == "" {
		opID = newUUID()
	} else if !isUUID(opID) {
		return toStatus(sess, handleFormat(opID))
	}
	reattachable := false
	for _, o := range req.GetRequestOptions() {
		if o.GetReattachOptions().GetReattachable() {
			reattachable = true
		}
	}
	e := newExecution(sess, opID, req.GetTags(), reattachable, s.opts.replayBytes)
	if err := sess.addExecution(e); err != nil {
		return toStatus(sess, err)
	}
	s.opts.logger.Debug("execute", "session_id", sess.id, "operation_id", opID, "reattachable", reattachable)
	plan := req.GetPlan()
	e.start(func(ctx context.Context, emit func(*pb.ExecutePlanResponse) error) error {
		return s.runPlanWithProgress(ctx, sess, plan, e.tracker, emit)
	})
	return s.consume(sess, e, stream, 0)
}

// ReattachExecute continues a reattachable operation after the client's last response.
func (s *Server) ReattachExecute(req *pb.ReattachExecuteRequest, stream grpc.ServerStreamingServer[pb.ExecutePlanResponse]) error {
	sess, err := s.sessions.get(stream.Context(), req)
	if err != nil {
		return toStatus(nil, err)
	}
	e := sess.execution(req.GetOperationId())
	if e == nil {
		return toStatus(sess, operationNotFound(req.GetOperationId()))
	}
	if !e.reattachable {
		return toStatus(sess, operationNotReattachable(e.id))
	}
	from, err := e.resumeIndex(req.GetLastResponseId())
	if err != nil {
		return toStatus(sess, err)
	}
	return s.consume(sess, e, stream, from)
}

// consume sends e's responses from index from until the execution ends, another stream takes
// over, or the client goes away.
func (s *Server) consume(sess *session, e *execution, stream grpc.ServerStreamingServer[pb.ExecutePlanResponse], from int) error {
	gen := e.attach()
	defer e.detach(gen)
	ctx := stream.Context()
	clientGone := func() error {
		if !e.reattachable {
			e.cancel(operationCanceled())
			sess.removeExecution(e)
		}
		return status.FromContextError(ctx.Err()).Err()
	}
	for idx := from; ; {
		st := e.next(idx, gen)
		switch {
		case st.resp != nil:
			if err := stream.Send(st.resp); err != nil {
				if ctx.Err() != nil {
					return clientGone()
				}
				return err
			}
			if !e.reattachable {
				e.releaseThrough(idx)
			}
			idx++
		case st.finished:
			if !e.reattachable {
				sess.removeExecution(e)
			}
			return toStatus(sess, st.err)
		default:
			select {
			case <-st.wait:
			case <-ctx.Done():
				return clientGone()
			}
		}
	}
}

// ReleaseExecute frees an operation's buffered responses: up to a response, or all of them
// (which also ends the operation).
func (s *Server) ReleaseExecute(ctx context.Context, req *pb.ReleaseExecuteRequest) (*pb.ReleaseExecuteResponse, error) {
	sess, err := s.sessions.get(ctx, req)
	if err != nil {
		return nil, toStatus(nil, err)
	}
	resp := &pb.ReleaseExecuteResponse{
		SessionId:           sess.id,
		ServerSideSessionId: sess.serverSideID,
		OperationId:         &req.OperationId,
	}
	e := sess.execution(req.GetOperationId())
	if e == nil {
		return resp, nil
	}
	switch r := req.GetRelease().(type) {
	case *pb.ReleaseExecuteRequest_ReleaseAll_:
		e.cancel(operationCanceled())
		sess.removeExecution(e)
	case *pb.ReleaseExecuteRequest_ReleaseUntil_:
		e.releaseUntil(r.ReleaseUntil.GetResponseId())
	default:
		return nil, toStatus(sess, invalidPlan("ReleaseExecuteRequest has neither release_all nor release_until."))
	}
	return resp, nil
}
