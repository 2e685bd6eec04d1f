package connect

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// TestWorkerEndpointAdmitsOnlyIssuedTokens checks the loopback endpoint for Python workers: a
// token issued for a session joins that session as its owner (even when the client port requires
// its own token), and nothing else gets in — no token, a client token, a revoked token — while an
// issued token is no credential on the client port.
func TestWorkerEndpointAdmitsOnlyIssuedTokens(t *testing.T) {
	ts := newTestServer(t, WithToken("client-token"))
	sid := newUUID()
	if _, err := getAllCtx(bearerCtx("client-token"), ts, sid, "alice", nil); err != nil {
		t.Fatal(err)
	}
	sess, err := ts.srv.sessions.lookup(principal(sha256.Sum256([]byte("client-token"))), sid, "alice", "", false)
	if err != nil {
		t.Fatal(err)
	}
	url, revoke, err := ts.srv.workers.issue(sess)
	if err != nil {
		t.Fatal(err)
	}
	// sc://localhost:PORT/;user_id=alice;x-weir-worker-token=T (no token=: 3.5 would insist on TLS)
	rest, ok := strings.CutPrefix(url, "sc://")
	if !ok {
		t.Fatalf("url %q", url)
	}
	addr, params, _ := strings.Cut(rest, "/;")
	if !strings.HasPrefix(addr, "localhost:") || !strings.Contains(params, "user_id=alice;") {
		t.Fatalf("url %q: want localhost and the session's user", url)
	}
	_, token, _ := strings.Cut(params, workerTokenHeader+"=")
	if token == "" || strings.Contains(params, ";token=") {
		t.Fatalf("url %q: want the token in %s only", url, workerTokenHeader)
	}
	headerCtx := func(tok string) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), workerTokenHeader, tok)
	}

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	worker := pb.NewSparkConnectServiceClient(conn)
	call := func(ctx context.Context) error {
		_, err := worker.Config(ctx, &pb.ConfigRequest{SessionId: sid, UserContext: &pb.UserContext{UserId: "alice"},
			Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetAll{GetAll: &pb.ConfigRequest_GetAll{}}}})
		return err
	}
	if err := call(headerCtx(token)); err != nil {
		t.Fatalf("an issued token is refused: %v", err)
	}
	if err := call(bearerCtx(token)); err != nil {
		t.Fatalf("an issued token sent as a bearer token is refused: %v", err)
	}
	for name, ctx := range map[string]context.Context{
		"no token":      context.Background(),
		"client token":  bearerCtx("client-token"),
		"other token":   bearerCtx(strings.Repeat("0", len(token))),
		"other header":  headerCtx(strings.Repeat("0", len(token))),
		"client header": headerCtx("client-token"),
		"not bearer":    metadata.AppendToOutgoingContext(context.Background(), "authorization", token),
	} {
		if err := call(ctx); status.Code(err) != codes.Unauthenticated {
			t.Errorf("%s: err %v, want Unauthenticated", name, err)
		}
	}
	if _, err := getAllCtx(bearerCtx(token), ts, sid, "alice", nil); status.Code(err) != codes.Unauthenticated {
		t.Errorf("a worker token on the client port: err %v, want Unauthenticated", err)
	}
	revoke()
	if err := call(bearerCtx(token)); status.Code(err) != codes.Unauthenticated {
		t.Errorf("a revoked token: err %v, want Unauthenticated", err)
	}
	if err := call(headerCtx(token)); status.Code(err) != codes.Unauthenticated {
		t.Errorf("a revoked token in %s: err %v, want Unauthenticated", workerTokenHeader, err)
	}
}
