package connect

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
)

// TestUIBackendSessionsAndInterrupt: the UI sees only the sessions its token created, and its
// cancel is Interrupt as that session's owner.
func TestUIBackendSessionsAndInterrupt(t *testing.T) {
	ts := newTestServer(t, WithToken("token-a", "token-b"))
	b := ts.srv.UIBackend()
	pa, ok := b.Authorize("token-a")
	if !ok {
		t.Fatal("token-a refused")
	}
	pb2, ok := b.Authorize("token-b")
	if !ok || pb2 == pa {
		t.Fatal("token-b refused or the same principal as token-a")
	}
	for _, bad := range []string{"", "token-c"} {
		if _, ok := b.Authorize(bad); ok {
			t.Errorf("token %q accepted", bad)
		}
	}
	feed := make(chan int64)
	ts.fake.execute = func(ctx context.Context, _ plan.Relation) (*engine.Result, error) {
		return blockingResult(ts.srv.opts.alloc, feed, make(chan struct{})), nil
	}
	sid := newUUID()
	exec := executeRequest(sid, rangePlan(), true, "etl")
	stream, err := ts.client.ExecutePlan(bearerCtx("token-a"), exec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil { // the schema: the operation runs
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := collect(t, stream); errc <- err }()

	sessions := b.Sessions(pa)
	if len(sessions) != 1 || sessions[0].ID != sid || sessions[0].UserID != testUser || len(sessions[0].Operations) != 1 {
		t.Fatalf("token-a's sessions: %+v", sessions)
	}
	op := sessions[0].Operations[0]
	if op.ID != exec.GetOperationId() || op.State != "running" || !slices.Equal(op.Tags, []string{"etl"}) || op.StartedMs == 0 {
		t.Errorf("operation: %+v", op)
	}
	if s := b.Sessions(pb2); len(s) != 0 {
		t.Errorf("token-b sees %+v", s)
	}
	// Neither another token nor another user id may interrupt it; nor may the UI make a session.
	ctx := context.Background()
	if _, err := b.Interrupt(ctx, pb2, sid, testUser, op.ID); err == nil || !strings.Contains(err.Error(), "SESSION_NOT_FOUND") {
		t.Errorf("token-b's interrupt: %v", err)
	}
	if _, err := b.Interrupt(ctx, pa, sid, "mallory", op.ID); err == nil {
		t.Error("interrupt under another user id succeeded")
	}
	other := newUUID()
	if _, err := b.Interrupt(ctx, pa, other, testUser, op.ID); err == nil {
		t.Error("interrupt in an unknown session succeeded")
	}
	if len(b.Sessions(pa)) != 1 {
		t.Error("the UI created a session")
	}
	if st := b.Sessions(pa)[0].Operations[0].State; st != "running" {
		t.Fatalf("operation %s after refused interrupts", st)
	}
	ids, err := b.Interrupt(ctx, pa, sid, testUser, op.ID)
	if err != nil || !slices.Equal(ids, []string{op.ID}) {
		t.Fatalf("interrupt: %v %v", ids, err)
	}
	if _, info := errorInfo(t, <-errc); info.Metadata["errorClass"] != "OPERATION_CANCELED" {
		t.Fatalf("interrupted stream: %v", info)
	}
	if st := b.Sessions(pa)[0].Operations[0].State; st != "cancelled" {
		t.Errorf("operation %s after the interrupt, want cancelled", st)
	}
	if _, err := b.Plan(ctx, pa, sid, testUser, "q"); err == nil {
		t.Error("Plan on an engine without streaming succeeded")
	}
}
