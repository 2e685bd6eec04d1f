package connect

import (
	"context"
	"strings"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func getAll(ts *testServer, sid, user string, observed *string, opts ...grpc.CallOption) (*pb.ConfigResponse, error) {
	return getAllCtx(context.Background(), ts, sid, user, observed, opts...)
}

func getAllCtx(ctx context.Context, ts *testServer, sid, user string, observed *string, opts ...grpc.CallOption) (*pb.ConfigResponse, error) {
	return ts.client.Config(ctx, &pb.ConfigRequest{
		SessionId: sid, UserContext: &pb.UserContext{UserId: user}, ClientObservedServerSideSessionId: observed,
		Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetAll{GetAll: &pb.ConfigRequest_GetAll{}}},
	}, opts...)
}

func TestSessions(t *testing.T) {
	ts := newTestServer(t)
	sid := newUUID()
	first, err := getAll(ts, sid, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	serverID := first.GetServerSideSessionId()
	again, err := getAll(ts, sid, "alice", &serverID)
	if err != nil || again.GetServerSideSessionId() != serverID {
		t.Fatalf("server side session id not stable: %v %v", again, err)
	}

	// Another user cannot use alice's session.
	_, err = getAll(ts, sid, "mallory", nil)
	if st, _ := status.FromError(err); st.Code() != codes.PermissionDenied {
		t.Fatalf("other user: %v", err)
	}

	// A client that saw another server-side session learns the session changed.
	stale := newUUID()
	_, err = getAll(ts, sid, "alice", &stale)
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "INVALID_HANDLE.SESSION_CHANGED" {
		t.Fatalf("stale observed id: %v", info)
	}
	_, err = getAll(ts, newUUID(), "alice", &stale)
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "INVALID_HANDLE.SESSION_CHANGED" {
		t.Fatalf("unknown session with observed id: %v", info)
	}

	// Session ids must be UUIDs.
	_, err = getAll(ts, "not-a-uuid", "alice", nil)
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "INVALID_HANDLE.FORMAT" {
		t.Fatalf("bad id: %v", info)
	}

	// Reattach in an unknown session: SESSION_NOT_FOUND (the client re-executes).
	re, err := ts.client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{SessionId: newUUID(), UserContext: userCtx(), OperationId: newUUID()})
	if err == nil {
		_, err = re.Recv()
	}
	if st, _ := status.FromError(err); !strings.Contains(st.Message(), "INVALID_HANDLE.SESSION_NOT_FOUND") {
		t.Fatalf("reattach unknown session: %v", err)
	}
	// Reattach to an unknown operation: OPERATION_NOT_FOUND.
	re, err = ts.client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{SessionId: sid, UserContext: &pb.UserContext{UserId: "alice"}, OperationId: newUUID()})
	if err == nil {
		_, err = re.Recv()
	}
	if st, _ := status.FromError(err); !strings.Contains(st.Message(), "INVALID_HANDLE.OPERATION_NOT_FOUND") {
		t.Fatalf("reattach unknown op: %v", err)
	}

	// Releasing the session drops it and its id cannot come back.
	rel, err := ts.client.ReleaseSession(context.Background(), &pb.ReleaseSessionRequest{SessionId: sid, UserContext: &pb.UserContext{UserId: "alice"}})
	if err != nil || rel.GetServerSideSessionId() != serverID {
		t.Fatalf("release: %v %v", rel, err)
	}
	_, err = getAll(ts, sid, "alice", nil)
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "INVALID_HANDLE.SESSION_CLOSED" {
		t.Fatalf("after release: %v", info)
	}
}

func TestSessionExpiry(t *testing.T) {
	ts := newTestServer(t, WithSessionTimeout(0))
	sid := newUUID()
	if _, err := getAll(ts, sid, "alice", nil); err != nil {
		t.Fatal(err)
	}
	ts.srv.sessions.reap()
	_, err := getAll(ts, sid, "alice", nil)
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "INVALID_HANDLE.SESSION_CLOSED" {
		t.Fatalf("expired session: %v", info)
	}
}

func TestAuthToken(t *testing.T) {
	ts := newTestServer(t, WithToken("s3cret"))
	sid := newUUID()
	_, err := getAll(ts, sid, "alice", nil)
	if st, _ := status.FromError(err); st.Code() != codes.Unauthenticated || st.Message() != "No authentication token provided" {
		t.Fatalf("no token: %v", err)
	}
	bad := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer nope")
	_, err = getAllCtx(bad, ts, sid, "alice", nil)
	if st, _ := status.FromError(err); st.Code() != codes.Unauthenticated || st.Message() != "Invalid authentication token" {
		t.Fatalf("bad token: %v", err)
	}
	good := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer s3cret")
	if _, err := getAllCtx(good, ts, sid, "alice", nil); err != nil {
		t.Fatalf("good token: %v", err)
	}
	// Streams are guarded too.
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), false))
	if err == nil {
		_, err = stream.Recv()
	}
	if st, _ := status.FromError(err); st.Code() != codes.Unauthenticated {
		t.Fatalf("stream without token: %v", err)
	}
}
