package connect

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sparkerr"
)

// newEngineServer serves real engine sessions (and real plan conversion) over bufconn.
func newEngineServer(t *testing.T, opts ...Option) pb.SparkConnectServiceClient {
	t.Helper()
	opts = append([]Option{WithEngine(func() EngineSession { return engine.NewSession() })}, opts...)
	srv, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return serveBufconn(t, srv)
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
	batch := &pb.Relation{RelType: &pb.Relation_Range{Range: &pb.Range{End: 3, Step: 1}}}
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

func rateMicroBatch(rowsPerBatch string) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{
		ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
			Format: strPtr("rate-micro-batch"), Options: map[string]string{"rowsPerBatch": rowsPerBatch, "numPartitions": "2"},
		}},
		IsStreaming: true,
	}}}
}

func startPlan(w *pb.WriteStreamOperationStart) *pb.Plan {
	return commandPlan(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: w}})
}

// TestStreamingQueryLifecycle runs a real rate-micro-batch → memory query through every
// StreamingQueryCommand and the manager, with a listener-bus stream open, and a failing query.
func TestStreamingQueryLifecycle(t *testing.T) {
	client := newEngineServer(t)
	sid := newUUID()

	// A listener-bus stream collects events while the queries run.
	busReq := executeRequest(sid, busCommand(true), true)
	bus, err := client.ExecutePlan(context.Background(), busReq)
	if err != nil {
		t.Fatal(err)
	}
	added, err := bus.Recv()
	if err != nil || !added.GetStreamingQueryListenerEventsResult().GetListenerBusListenerAdded() {
		t.Fatalf("listener bus: %v, %v", added, err)
	}
	busDone := make(chan []*pb.ExecutePlanResponse, 1)
	go func() {
		rest, err := collect(t, bus)
		if err != nil {
			t.Error(err)
		}
		busDone <- append([]*pb.ExecutePlanResponse{added}, rest...)
	}()

	// Streaming DataFrames analyze, but batch actions are refused as Spark does.
	resp, err := client.AnalyzePlan(context.Background(), &pb.AnalyzePlanRequest{SessionId: sid, UserContext: userCtx(),
		Analyze: &pb.AnalyzePlanRequest_IsStreaming_{IsStreaming: &pb.AnalyzePlanRequest_IsStreaming{
			Plan: &pb.Plan{OpType: &pb.Plan_Root{Root: rateMicroBatch("5")}}}}})
	if err != nil || !resp.GetIsStreaming().GetIsStreaming() {
		t.Fatalf("is_streaming: %v, %v", resp, err)
	}
	_, err = run(t, client, sid, &pb.Plan{OpType: &pb.Plan_Root{Root: rateMicroBatch("5")}})
	wantStatusError(t, err, sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_3102",
		"Queries with streaming sources must be executed with writeStream.start(), or from a streaming table or flow definition within a Spark Declarative Pipeline.;\nStreamingRelation rate-micro-batch [timestamp, value]")

	resps, err := run(t, client, sid, startPlan(&pb.WriteStreamOperationStart{
		Input: rateMicroBatch("5"), Format: "memory", QueryName: "lifecycle",
	}))
	if err != nil {
		t.Fatal(err)
	}
	started := resps[0].GetWriteStreamOperationStartResult()
	if len(resps) != 1 || started == nil || !isUUID(started.GetQueryId().GetId()) || !isUUID(started.GetQueryId().GetRunId()) ||
		started.GetName() != "lifecycle" || !strings.Contains(started.GetQueryStartedEventJson(), started.GetQueryId().GetRunId()) {
		t.Fatalf("start result %v", resps)
	}
	id, runID := started.GetQueryId().GetId(), started.GetQueryId().GetRunId()
	queryResult := func(c *pb.StreamingQueryCommand) *pb.StreamingQueryCommandResult {
		t.Helper()
		resps, err := run(t, client, sid, queryCommand(id, runID, c))
		if err != nil {
			t.Fatal(err)
		}
		r := resps[0].GetStreamingQueryCommandResult()
		if len(resps) != 1 || r == nil || r.GetQueryId().GetId() != id || r.GetQueryId().GetRunId() != runID {
			t.Fatalf("want one result echoing the query id, got %v", resps)
		}
		return r
	}

	if r := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}}); r.GetResultType() != nil {
		t.Fatalf("process_all_available result %v", r)
	}
	sqlStream, err := client.ExecutePlan(context.Background(), executeRequest(sid, &pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{
		RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT value FROM lifecycle ORDER BY value"}}}}}, true))
	if err != nil {
		t.Fatal(err)
	}
	sqlResps, err := collect(t, sqlStream)
	if err != nil {
		t.Fatal(err)
	}
	_, values := checkStream(t, sid, sqlResps)
	if len(values) < 5 {
		t.Fatalf("memory table rows %v", values)
	}
	for i, v := range values {
		if v != int64(i) {
			t.Fatalf("memory table values %v", values)
		}
	}
	st := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}}).GetStatus()
	if st == nil || !st.GetIsActive() || st.GetStatusMessage() == "" {
		t.Fatalf("status %v", st)
	}
	recent := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_RecentProgress{RecentProgress: true}}).GetRecentProgress()
	last := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_LastProgress{LastProgress: true}}).GetRecentProgress()
	if recent == nil || len(recent.GetRecentProgressJson()) == 0 || last == nil || len(last.GetRecentProgressJson()) != 1 {
		t.Fatalf("progress %v / %v", recent, last)
	}
	var progress map[string]any
	if err := json.Unmarshal([]byte(last.GetRecentProgressJson()[0]), &progress); err != nil || progress["id"] != id || progress["runId"] != runID {
		t.Fatalf("last progress %v, %v", progress, err)
	}
	if ex := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Explain{
		Explain: &pb.StreamingQueryCommand_ExplainCommand{}}}).GetExplain(); !strings.Contains(ex.GetResult(), "rate-micro-batch") {
		t.Fatalf("explain %v", ex)
	}
	if r := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}}); r.GetResultType() != nil {
		t.Fatalf("exception of a healthy query %v", r)
	}
	short := int64(20)
	if r := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{
		AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{TimeoutMs: &short}}}); r.GetAwaitTermination() == nil || r.GetAwaitTermination().GetTerminated() {
		t.Fatalf("await_termination of a running query %v", r)
	}
	otherRun := newUUID()
	_, err = run(t, client, sid, queryCommand(id, otherRun, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}}))
	wantStatusError(t, err, sparkerr.IllegalArgumentException, "", "Run id mismatch for query id "+id+". Run id in the request "+otherRun+
		" does not match one on the server "+runID+". The query might have restarted.")

	manager := func(c *pb.StreamingQueryManagerCommand) *pb.StreamingQueryManagerCommandResult {
		t.Helper()
		resps, err := run(t, client, sid, managerCommand(c))
		if err != nil {
			t.Fatal(err)
		}
		return resps[0].GetStreamingQueryManagerCommandResult()
	}
	active := manager(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries()
	if len(active) != 1 || active[0].GetId().GetId() != id || active[0].GetName() != "lifecycle" {
		t.Fatalf("active %v", active)
	}
	if got := manager(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_GetQuery{GetQuery: id}}).GetQuery(); got.GetId().GetRunId() != runID {
		t.Fatalf("get_query %v", got)
	}

	if r := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}}); r.GetResultType() != nil {
		t.Fatalf("stop result %v", r)
	}
	if st := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}}).GetStatus(); st.GetIsActive() {
		t.Fatalf("status after stop %v", st)
	}
	if r := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{
		AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{}}}); !r.GetAwaitTermination().GetTerminated() {
		t.Fatalf("await_termination after stop %v", r)
	}
	if got := manager(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_GetQuery{GetQuery: id}}); got.GetResultType() != nil {
		t.Fatalf("get_query of a stopped query %v", got)
	}

	// A failing query: await_termination raises StreamingQueryException; exception() reports it.
	boom := &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: rateMicroBatch("5"),
		Expressions: []*pb.Expression{{ExprType: &pb.Expression_ExpressionString_{
			ExpressionString: &pb.Expression_ExpressionString{Expression: "value / (value - value) AS boom"}}}}}}}
	resps, err = run(t, client, sid, startPlan(&pb.WriteStreamOperationStart{Input: boom, Format: "noop"}))
	if err != nil {
		t.Fatal(err)
	}
	id, runID = resps[0].GetWriteStreamOperationStartResult().GetQueryId().GetId(), resps[0].GetWriteStreamOperationStartResult().GetQueryId().GetRunId()
	_, err = run(t, client, sid, queryCommand(id, runID, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{
		AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{}}}))
	if st, info := errorInfo(t, err); info.Reason != sparkerr.StreamingQueryException || !strings.Contains(st.Message(), "DIVIDE_BY_ZERO") {
		t.Fatalf("await_termination of a failed query: %v %v", st, info)
	}
	exc := queryResult(&pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}}).GetException()
	if exc == nil || !strings.Contains(exc.GetExceptionMessage(), ": ") || !strings.Contains(exc.GetExceptionMessage(), "DIVIDE_BY_ZERO") || exc.GetErrorClass() == "" {
		t.Fatalf("exception %v", exc)
	}
	_, err = run(t, client, sid, managerCommand(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{
		AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{}}}))
	if err != nil {
		if _, info := errorInfo(t, err); info.Reason != sparkerr.StreamingQueryException {
			t.Fatalf("await_any_termination: %v", info)
		}
	}

	// Removing the listener ends the bus stream; it carried the queries' events.
	if _, err := run(t, client, sid, busCommand(false)); err != nil {
		t.Fatal(err)
	}
	var events []*pb.ExecutePlanResponse
	select {
	case events = <-busDone:
	case <-time.After(10 * time.Second):
		t.Fatal("listener bus stream did not end")
	}
	checkEnvelope(t, sid, busReq.GetOperationId(), events)
	kinds := map[pb.StreamingQueryEventType]int{}
	for _, r := range events[1 : len(events)-1] {
		for _, ev := range r.GetStreamingQueryListenerEventsResult().GetEvents() {
			kinds[ev.GetEventType()]++
			if !json.Valid([]byte(ev.GetEventJson())) {
				t.Fatalf("event JSON %q", ev.GetEventJson())
			}
		}
	}
	if kinds[pb.StreamingQueryEventType_QUERY_PROGRESS_EVENT] == 0 || kinds[pb.StreamingQueryEventType_QUERY_TERMINATED_EVENT] != 2 {
		t.Fatalf("listener events %v", kinds)
	}
}

// TestAwaitTerminationEndsWhenClientCancels: a wait without timeout ends with the client's
// cancellation and leaves the query and the session usable.
func TestAwaitTerminationEndsWhenClientCancels(t *testing.T) {
	client := newEngineServer(t)
	sid := newUUID()
	resps, err := run(t, client, sid, startPlan(&pb.WriteStreamOperationStart{Input: rateMicroBatch("5"), Format: "noop"}))
	if err != nil {
		t.Fatal(err)
	}
	qid := resps[0].GetWriteStreamOperationStartResult().GetQueryId()
	for _, c := range []*pb.Plan{
		queryCommand(qid.GetId(), qid.GetRunId(), &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{
			AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{}}}),
		managerCommand(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_AwaitAnyTermination{
			AwaitAnyTermination: &pb.StreamingQueryManagerCommand_AwaitAnyTerminationCommand{}}}),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		stream, err := client.ExecutePlan(ctx, executeRequest(sid, c, false))
		if err == nil {
			_, err = collect(t, stream)
		}
		cancel()
		if err == nil {
			t.Fatal("a wait on a running query returned")
		}
		st, err := run(t, client, sid, queryCommand(qid.GetId(), qid.GetRunId(), &pb.StreamingQueryCommand{
			Command: &pb.StreamingQueryCommand_Status{Status: true}}))
		if err != nil || !st[0].GetStreamingQueryCommandResult().GetStatus().GetIsActive() {
			t.Fatalf("status after a cancelled wait: %v, %v", st, err)
		}
	}
	if _, err := run(t, client, sid, queryCommand(qid.GetId(), qid.GetRunId(), &pb.StreamingQueryCommand{
		Command: &pb.StreamingQueryCommand_Stop{Stop: true}})); err != nil {
		t.Fatal(err)
	}
}

// TestReleaseSessionStopsQueries: ReleaseSession stops the session's running queries.
func TestReleaseSessionStopsQueries(t *testing.T) {
	var sessions []*engine.Session
	var mu sync.Mutex
	client := newEngineServer(t, WithEngine(func() EngineSession {
		s := engine.NewSession()
		mu.Lock()
		sessions = append(sessions, s)
		mu.Unlock()
		return s
	}))
	sid := newUUID()
	if _, err := run(t, client, sid, startPlan(&pb.WriteStreamOperationStart{Input: rateMicroBatch("5"), Format: "noop"})); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	eng := sessions[0]
	mu.Unlock()
	if len(eng.Streams().Active()) != 1 {
		t.Fatal("query not running")
	}
	if _, err := client.ReleaseSession(context.Background(), &pb.ReleaseSessionRequest{SessionId: sid, UserContext: userCtx()}); err != nil {
		t.Fatal(err)
	}
	if n := len(eng.Streams().Active()); n != 0 {
		t.Fatalf("%d queries still active after ReleaseSession", n)
	}
}
