package connect

import (
	"context"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func bearerCtx(token string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token)
}

// TestSessionBoundToTokenAndUser checks that every RPC naming a session refuses a caller
// whose user id or token differs from the session creator's, and that the refused calls
// leave the session to its owner.
func TestSessionBoundToTokenAndUser(t *testing.T) {
	ts := newTestServer(t, WithToken("token-a"), WithToken("token-b"))
	sid := newUUID()
	owner := bearerCtx("token-a")
	if _, err := getAllCtx(owner, ts, sid, "alice", nil); err != nil {
		t.Fatal(err)
	}
	// A running reattachable operation of the owner, for the operation-level RPCs.
	feed := make(chan int64)
	done := make(chan struct{})
	ts.fake.execute = func(ctx context.Context, _ plan.Relation) (*engine.Result, error) {
		return blockingResult(ts.srv.opts.alloc, feed, done), nil
	}
	exec := executeRequest(sid, rangePlan(), true)
	exec.UserContext = &pb.UserContext{UserId: "alice"}
	opID := exec.GetOperationId()
	stream, err := ts.client.ExecutePlan(owner, exec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil { // the schema
		t.Fatal(err)
	}

	callers := []struct {
		name string
		ctx  context.Context
		user string
	}{
		{"other token, same user", bearerCtx("token-b"), "alice"},
		{"same token, other user", owner, "mallory"},
	}
	for _, c := range callers {
		uc := &pb.UserContext{UserId: c.user}
		rpcs := map[string]func() error{
			"Config": func() error { _, err := getAllCtx(c.ctx, ts, sid, c.user, nil); return err },
			"AnalyzePlan": func() error {
				_, err := ts.client.AnalyzePlan(c.ctx, &pb.AnalyzePlanRequest{SessionId: sid, UserContext: uc,
					Analyze: &pb.AnalyzePlanRequest_SparkVersion_{SparkVersion: &pb.AnalyzePlanRequest_SparkVersion{}}})
				return err
			},
			"ExecutePlan": func() error {
				req := executeRequest(sid, rangePlan(), false)
				req.UserContext = uc
				s, err := ts.client.ExecutePlan(c.ctx, req)
				if err != nil {
					return err
				}
				_, err = s.Recv()
				return err
			},
			"ReattachExecute": func() error {
				s, err := ts.client.ReattachExecute(c.ctx, &pb.ReattachExecuteRequest{SessionId: sid, UserContext: uc, OperationId: opID})
				if err != nil {
					return err
				}
				_, err = s.Recv()
				return err
			},
			"ReleaseExecute": func() error {
				_, err := ts.client.ReleaseExecute(c.ctx, &pb.ReleaseExecuteRequest{SessionId: sid, UserContext: uc, OperationId: opID,
					Release: &pb.ReleaseExecuteRequest_ReleaseAll_{ReleaseAll: &pb.ReleaseExecuteRequest_ReleaseAll{}}})
				return err
			},
			"Interrupt": func() error {
				_, err := ts.client.Interrupt(c.ctx, &pb.InterruptRequest{SessionId: sid, UserContext: uc,
					InterruptType: pb.InterruptRequest_INTERRUPT_TYPE_ALL})
				return err
			},
			"GetStatus": func() error {
				_, err := ts.client.GetStatus(c.ctx, &pb.GetStatusRequest{SessionId: sid, UserContext: uc,
					OperationStatus: &pb.GetStatusRequest_OperationStatusRequest{}})
				return err
			},
			"FetchErrorDetails": func() error {
				_, err := ts.client.FetchErrorDetails(c.ctx, &pb.FetchErrorDetailsRequest{SessionId: sid, UserContext: uc, ErrorId: newUUID()})
				return err
			},
			"ArtifactStatus": func() error {
				_, err := ts.client.ArtifactStatus(c.ctx, &pb.ArtifactStatusesRequest{SessionId: sid, UserContext: uc, Names: []string{"jars/a.jar"}})
				return err
			},
			"AddArtifacts": func() error {
				s, err := ts.client.AddArtifacts(c.ctx)
				if err != nil {
					return err
				}
				data := []byte("x")
				if err := s.Send(&pb.AddArtifactsRequest{SessionId: sid, UserContext: uc, Payload: &pb.AddArtifactsRequest_Batch_{
					Batch: &pb.AddArtifactsRequest_Batch{Artifacts: []*pb.AddArtifactsRequest_SingleChunkArtifact{{Name: "files/x", Data: chunk(data)}}}}}); err != nil {
					return err
				}
				_, err = s.CloseAndRecv()
				return err
			},
			"ReleaseSession": func() error {
				_, err := ts.client.ReleaseSession(c.ctx, &pb.ReleaseSessionRequest{SessionId: sid, UserContext: uc})
				return err
			},
		}
		for name, call := range rpcs {
			err := call()
			st, info := errorInfo(t, err)
			if st.Code() != codes.PermissionDenied || info.Metadata["errorClass"] != "INSUFFICIENT_PERMISSIONS" {
				t.Errorf("%s, %s: want INSUFFICIENT_PERMISSIONS, got %v", c.name, name, err)
			}
		}
	}

	// The owner's session and operation are untouched: still running, still listed.
	got, err := ts.client.GetStatus(owner, &pb.GetStatusRequest{SessionId: sid, UserContext: &pb.UserContext{UserId: "alice"},
		OperationStatus: &pb.GetStatusRequest_OperationStatusRequest{OperationIds: []string{opID}}})
	if err != nil {
		t.Fatal(err)
	}
	if s := got.GetOperationStatuses(); len(s) != 1 || s[0].GetState() != pb.GetStatusResponse_OperationStatus_OPERATION_STATE_RUNNING {
		t.Fatalf("owner's operation after refused calls: %v", s)
	}
	if _, err := ts.client.ArtifactStatus(owner, &pb.ArtifactStatusesRequest{SessionId: sid, UserContext: &pb.UserContext{UserId: "alice"}}); err != nil {
		t.Fatalf("owner after refused calls: %v", err)
	}
	close(feed)
	if _, err := collect(t, stream); err != nil {
		t.Fatal(err)
	}

	// token-b's own session works with token-b.
	other := newUUID()
	if _, err := getAllCtx(bearerCtx("token-b"), ts, other, "alice", nil); err != nil {
		t.Fatalf("second token: %v", err)
	}
	if _, err := getAllCtx(owner, ts, other, "alice", nil); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("token-a on token-b's session: %v", err)
	}
}
