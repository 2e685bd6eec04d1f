package connect

import (
	"context"
	"net"
	"testing"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sparkerr"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
)

// newEngineServer serves real engine sessions (and real plan conversion) over bufconn.
func newEngineServer(t *testing.T, opts ...Option) pb.SparkConnectServiceClient {
	t.Helper()
	opts = append([]Option{WithEngine(func() EngineSession { return engine.NewSession() })}, opts...)
	srv, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis) }()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("Serve did not stop")
		}
	})
	return pb.NewSparkConnectServiceClient(conn)
}

func commandPlan(c *pb.Command) *pb.Plan { return &pb.Plan{OpType: &pb.Plan_Command{Command: c}} }

func queryCommand(id, runID string, c *pb.StreamingQueryCommand) *pb.Plan {
	c.QueryId = &pb.StreamingQueryInstanceId{Id: id, RunId: runID}
	return commandPlan(&pb.Command{CommandType: &pb.Command_StreamingQueryCommand{StreamingQueryCommand: c}})
}

func managerCommand(c *pb.StreamingQueryManagerCommand) *pb.Plan {
	return commandPlan(&pb.Command{CommandType: &pb.Command_StreamingQueryManagerCommand{StreamingQueryManagerCommand: c}})
}

func busCommand(add bool) *pb.Plan {
	c := &pb.StreamingQueryListenerBusCommand{Command: &pb.StreamingQueryListenerBusCommand_RemoveListenerBusListener{RemoveListenerBusListener: true}}
	if add {
		c.Command = &pb.StreamingQueryListenerBusCommand_AddListenerBusListener{AddListenerBusListener: true}
	}
	return commandPlan(&pb.Command{CommandType: &pb.Command_StreamingQueryListenerBusCommand{StreamingQueryListenerBusCommand: c}})
}

// run executes p (reattachable, as PySpark does) and returns its responses without the final
// ResultComplete, checking the stream's envelope: session ids, operation id, unique response
// ids, and ResultComplete last.
func run(t *testing.T, client pb.SparkConnectServiceClient, sid string, p *pb.Plan) ([]*pb.ExecutePlanResponse, error) {
	t.Helper()
	req := executeRequest(sid, p, true)
	stream, err := client.ExecutePlan(context.Background(), req)
	if err != nil {
		return nil, err
	}
	resps, err := collect(t, stream)
	if err != nil {
		return nil, err
	}
	checkEnvelope(t, sid, req.GetOperationId(), resps)
	return resps[:len(resps)-1], nil
}

func checkEnvelope(t *testing.T, sid, opID string, resps []*pb.ExecutePlanResponse) {
	t.Helper()
	if len(resps) == 0 || resps[len(resps)-1].GetResultComplete() == nil {
		t.Fatalf("stream does not end with ResultComplete: %v", resps)
	}
	seen := map[string]bool{}
	for _, r := range resps {
		if r.GetSessionId() != sid || r.GetServerSideSessionId() == "" || r.GetOperationId() != opID {
			t.Fatalf("response envelope %v", r)
		}
		if seen[r.GetResponseId()] {
			t.Fatalf("duplicate response id %s", r.GetResponseId())
		}
		seen[r.GetResponseId()] = true
	}
}

func wantStatusError(t *testing.T, err error, javaClass, class, message string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got no error", javaClass)
	}
	st, info := errorInfo(t, err)
	if info.Reason != javaClass || info.Metadata["errorClass"] != class || (message != "" && st.Message() != message) {
		t.Fatalf("want %s [%s] %q, got %s [%s] %q", javaClass, class, message, info.Reason, info.Metadata["errorClass"], st.Message())
	}
}

func TestStreamingQueryCommandUnknownQuery(t *testing.T) {
	client := newEngineServer(t)
	sid := newUUID()
	id, runID := newUUID(), newUUID()
	for _, c := range []*pb.StreamingQueryCommand{
		{Command: &pb.StreamingQueryCommand_Status{Status: true}},
		{Command: &pb.StreamingQueryCommand_Stop{Stop: true}},
		{Command: &pb.StreamingQueryCommand_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{}}},
	} {
		_, err := run(t, client, sid, queryCommand(id, runID, c))
		wantStatusError(t, err, sparkerr.IllegalArgumentException, "", "Streaming query "+id+" is not found")
	}
}

func TestStreamingQueryManagerCommands(t *testing.T) {
	client := newEngineServer(t)
	sid := newUUID()
	managerResult := func(c *pb.StreamingQueryManagerCommand) *pb.StreamingQueryManagerCommandResult {
		t.Helper()
		resps, err := run(t, client, sid, managerCommand(c))
		if err != nil {
			t.Fatal(err)
		}
		if len(resps) != 1 || resps[0].GetStreamingQueryManagerCommandResult() == nil {
			t.Fatalf("want one manager result, got %v", resps)
		}
		return resps[0].GetStreamingQueryManagerCommandResult()
	}

	r := managerResult(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}})
	if r.GetActive() == nil || len(r.GetActive().GetActiveQueries()) != 0 {
		t.Fatalf("active: %v", r)
	}
	r = managerResult(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_GetQuery{GetQuery: newUUID()}})
	if r.GetResultType() != nil {
		t.Fatalf("get of an unknown query: %v", r)
	}
	r = managerResult(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_ResetTerminated{ResetTerminated: true}})
	if !r.GetResetTerminated() {
		t.Fatalf("reset_terminated: %v", r)
	}
	timeout := int64(50)
	r = managerResult(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{
		AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{TimeoutMs: &timeout},
	}})
	if r.GetAwaitAnyTermination() == nil || r.GetAwaitAnyTermination().GetTerminated() {
		t.Fatalf("await_any_termination with no queries: %v", r)
	}
	r = managerResult(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_ListListeners{ListListeners: true}})
	if r.GetListListeners() == nil || len(r.GetListListeners().GetListenerIds()) != 0 {
		t.Fatalf("list_listeners: %v", r)
	}
	r = managerResult(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_RemoveListener{
		RemoveListener: &pb.StreamingQueryManagerCommand_StreamingQueryListenerCommand{Id: newUUID()},
	}})
	if _, ok := r.GetResultType().(*pb.StreamingQueryManagerCommandResult_RemoveListener); !ok || r.GetRemoveListener() {
		t.Fatalf("remove_listener: %v", r)
	}

	_, err := run(t, client, sid, managerCommand(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AddListener{
		AddListener: &pb.StreamingQueryManagerCommand_StreamingQueryListenerCommand{Id: newUUID()},
	}}))
	wantStatusError(t, err, sparkerr.UnsupportedOperation, "UNSUPPORTED_FEATURE", "")
	zero := int64(0)
	_, err = run(t, client, sid, managerCommand(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{
		AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{TimeoutMs: &zero},
	}}))
	wantStatusError(t, err, sparkerr.IllegalArgumentException, "", "requirement failed: Timeout has to be positive")
	_, err = run(t, client, sid, managerCommand(&pb.StreamingQueryManagerCommand{}))
	wantStatusError(t, err, sparkerr.IllegalArgumentException, "", "Missing command in StreamingQueryManagerCommand")
}

func TestWriteStreamStartErrors(t *testing.T) {
	client := newEngineServer(t)
	sid := newUUID()
	start := func(input *pb.Relation, edit func(*pb.WriteStreamOperationStart)) error {
		w := &pb.WriteStreamOperationStart{Input: input, Format: "noop"}
		if edit != nil {
			edit(w)
		}
		_, err := run(t, client, sid, commandPlan(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: w}}))
		return err
	}
	batch := &pb.Relation{RelType: &pb.Relation_Range{Range: &pb.Range{End: 3}}}
	wantStatusError(t, start(batch, nil), sparkerr.AnalysisException, "WRITE_STREAM_NOT_ALLOWED",
		"[WRITE_STREAM_NOT_ALLOWED] `writeStream` can be called only on streaming Dataset/DataFrame.")
	wantStatusError(t, start(nil, nil), sparkerr.IllegalArgumentException, "",
		"Invalid plan: WriteStreamOperationStart is missing its input relation")
	unknown := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{
		ReadType:    &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{Format: strPtr("no-such-source")}},
		IsStreaming: true,
	}}}
	wantStatusError(t, start(unknown, nil), sparkerr.AnalysisException, "DATA_SOURCE_NOT_FOUND", "")
}


// TestListenerBusStream covers the Spark 4 listener bus: the add stream stays open, answers
// listener_bus_listener_added first, survives a cut client stream (reattach), and ends with
// ResultComplete when a separate remove arrives; a redundant add and a remove without a
// listener complete at once.
func TestListenerBusStream(t *testing.T) {
	client := newEngineServer(t)
	sid := newUUID()
	req := executeRequest(sid, busCommand(true), true)
	ctx, cut := context.WithCancel(context.Background())
	stream, err := client.ExecutePlan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	first, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	ev := first.GetStreamingQueryListenerEventsResult()
	if ev == nil || !ev.GetListenerBusListenerAdded() || len(ev.GetEvents()) != 0 {
		t.Fatalf("first response %v", first)
	}
	var all []*pb.ExecutePlanResponse
	all = append(all, first)

	// A second add while one is registered just completes.
	resps, err := run(t, client, sid, busCommand(true))
	if err != nil || len(resps) != 0 {
		t.Fatalf("redundant add: %v, %v", resps, err)
	}

	// The client's stream is cut; the operation lives on and is reattached.
	cut()
	if _, err := stream.Recv(); err == nil {
		t.Fatal("cut stream still delivers")
	}
	time.Sleep(50 * time.Millisecond)
	re, err := client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(), LastResponseId: strPtr(first.GetResponseId()),
	})
	if err != nil {
		t.Fatal(err)
	}
	removed := make(chan error, 1)
	go func() {
		_, err := run(t, client, sid, busCommand(false))
		removed <- err
	}()
	rest, err := collect(t, re)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	all = append(all, rest...)
	checkEnvelope(t, sid, req.GetOperationId(), all)
	for _, r := range all[:len(all)-1] {
		if r.GetStreamingQueryListenerEventsResult() == nil {
			t.Fatalf("a response other than events on the listener bus: %v", r)
		}
	}

	// Remove without a listener.
	if resps, err := run(t, client, sid, busCommand(false)); err != nil || len(resps) != 0 {
		t.Fatalf("remove without listener: %v, %v", resps, err)
	}
}
