package connect

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// checkStream verifies the invariants every ExecutePlan stream keeps and returns the
// arrow batches' decoded row counts.
func checkStream(t *testing.T, sid string, resps []*pb.ExecutePlanResponse) (rows []int64, ids []int64) {
	t.Helper()
	if len(resps) == 0 {
		t.Fatal("no responses")
	}
	seen := map[string]bool{}
	op := resps[0].GetOperationId()
	var offset int64
	for i, r := range resps {
		if r.GetSessionId() != sid || r.GetServerSideSessionId() == "" || r.GetOperationId() != op || !isUUID(op) {
			t.Fatalf("response %d has bad ids: %v", i, r)
		}
		if seen[r.GetResponseId()] || !isUUID(r.GetResponseId()) {
			t.Fatalf("response %d: response id %q repeated or malformed", i, r.GetResponseId())
		}
		seen[r.GetResponseId()] = true
		if b := r.GetArrowBatch(); b != nil {
			if b.StartOffset == nil || b.GetStartOffset() != offset {
				t.Fatalf("batch %d starts at %v, want %d", i, b.StartOffset, offset)
			}
			rdr, err := ipc.NewReader(bytes.NewReader(b.GetData()))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var got int64
			for rdr.Next() {
				n++
				rec := rdr.RecordBatch()
				got += rec.NumRows()
				col := rec.Column(0).(*array.Int64)
				for j := 0; j < col.Len(); j++ {
					ids = append(ids, col.Value(j))
				}
			}
			if rdr.Err() != nil || n != 1 || got != b.GetRowCount() {
				t.Fatalf("batch %d: %d record batches, %d rows, row_count %d, err %v", i, n, got, b.GetRowCount(), rdr.Err())
			}
			rdr.Release()
			offset += got
			rows = append(rows, got)
		}
	}
	if resps[len(resps)-1].GetResultComplete() == nil {
		t.Fatalf("stream does not end with ResultComplete: %v", resps[len(resps)-1])
	}
	return rows, ids
}

func TestExecuteChunksByRecordsPerBatch(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return batchesResult(alloc, 25000, 3, 0, 7), nil
	}
	sid := newUUID()
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), false))
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	if resps[0].GetSchema() == nil || resps[0].GetSchema().GetStruct() == nil {
		t.Fatalf("first response is not the schema: %v", resps[0])
	}
	rows, ids := checkStream(t, sid, resps)
	want := []int64{10000, 10000, 5000, 3, 7}
	if len(rows) != len(want) {
		t.Fatalf("rows per batch %v, want %v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Fatalf("rows per batch %v, want %v", rows, want)
		}
	}
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("row %d is %d", i, id)
		}
	}
}

func TestExecuteChunksBySize(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	schema := sqltypes.Schema{{Name: "s", Type: sqltypes.StringType, Nullable: true}}
	const n = 12000
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		sent := false
		return engine.NewResult(schema, func(ctx context.Context) (arrow.RecordBatch, error) {
			if sent {
				return nil, errEOF
			}
			sent = true
			b := array.NewStringBuilder(alloc)
			defer b.Release()
			v := strings.Repeat("x", 1000)
			for i := 0; i < n; i++ {
				b.Append(v)
			}
			col := b.NewArray()
			defer col.Release()
			return array.NewRecordBatch(sqltypes.ToArrowSchema(schema, "UTC"), []arrow.Array{col}, n), nil
		}, nil), nil
	}
	sid := newUUID()
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), true))
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	batches := 0
	var offset int64
	for _, r := range resps {
		if b := r.GetArrowBatch(); b != nil {
			batches++
			if len(b.GetData()) > 4<<20+64<<10 {
				t.Fatalf("batch of %d bytes exceeds ~4 MiB", len(b.GetData()))
			}
			if b.GetStartOffset() != offset {
				t.Fatalf("start offset %d, want %d", b.GetStartOffset(), offset)
			}
			offset += b.GetRowCount()
			total += b.GetRowCount()
		}
	}
	if total != n || batches < 3 {
		t.Fatalf("%d rows in %d batches; want %d rows in >= 3 batches", total, batches, n)
	}
}

func TestExecuteEmptyResultCarriesSchema(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	schema := sqltypes.Schema{
		{Name: "a", Type: sqltypes.IntegerType, Nullable: true},
		{Name: "ts", Type: sqltypes.TimestampType, Nullable: true},
	}
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return engine.NewResult(schema, nil, nil), nil
	}
	if _, err := configOp(t, ts, "", nil); err == nil {
		t.Fatal("config without a session id succeeded")
	}
	sid := newUUID()
	tz := "America/New_York"
	if _, err := configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{
		Pairs: []*pb.KeyValue{{Key: "spark.sql.session.timeZone", Value: &tz}},
	}}}); err != nil {
		t.Fatal(err)
	}
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), false))
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	var batches []*pb.ExecutePlanResponse_ArrowBatch
	for _, r := range resps {
		if b := r.GetArrowBatch(); b != nil {
			batches = append(batches, b)
		}
	}
	if len(batches) != 1 || batches[0].GetRowCount() != 0 || batches[0].GetStartOffset() != 0 {
		t.Fatalf("want one empty batch, got %v", batches)
	}
	rdr, err := ipc.NewReader(bytes.NewReader(batches[0].GetData()))
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	got := rdr.Schema()
	if got.NumFields() != 2 || got.Field(0).Name != "a" || got.Field(1).Type.(*arrow.TimestampType).TimeZone != tz {
		t.Fatalf("schema %v", got)
	}
}

// blockingResult yields one batch of 1 row per value received on feed, ending when feed
// closes; done is closed when the result is closed (the execution ended).
func blockingResult(alloc memory.Allocator, feed <-chan int64, done chan<- struct{}) *engine.Result {
	return engine.NewResult(longSchema, func(ctx context.Context) (arrow.RecordBatch, error) {
		select {
		case v, ok := <-feed:
			if !ok {
				return nil, errEOF
			}
			return idBatch(alloc, v, 1), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, func() { close(done) })
}

func TestReattachAfterCutStream(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	feed := make(chan int64)
	done := make(chan struct{})
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return blockingResult(alloc, feed, done), nil
	}
	sid := newUUID()
	req := executeRequest(sid, rangePlan(), true)
	ctx, cut := context.WithCancel(context.Background())
	stream, err := ts.client.ExecutePlan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var got []*pb.ExecutePlanResponse
	// The schema, then two batches.
	for i := 0; i < 3; i++ {
		if i > 0 {
			feed <- int64(i - 1)
		}
		r, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	cut()
	// Rows produced while no client is attached are buffered, not lost.
	feed <- 2
	feed <- 3
	close(feed)
	<-done

	re, err := ts.client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(), LastResponseId: strPtr(got[len(got)-1].GetResponseId()),
	})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := collect(t, re)
	if err != nil {
		t.Fatal(err)
	}
	all := append(got, rest...)
	_, ids := checkStream(t, sid, all)
	if len(ids) != 4 {
		t.Fatalf("ids %v", ids)
	}
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("ids %v", ids)
		}
	}

	// Reattaching from the start replays everything still buffered.
	re, err = ts.client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(),
	})
	if err != nil {
		t.Fatal(err)
	}
	replay, err := collect(t, re)
	if err != nil || len(replay) != len(all) {
		t.Fatalf("replay: %d responses, err %v; want %d", len(replay), err, len(all))
	}

	// Release everything: the operation is gone and a reattach says so the way the client
	// recognises.
	if _, err := ts.client.ReleaseExecute(context.Background(), &pb.ReleaseExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(),
		Release: &pb.ReleaseExecuteRequest_ReleaseAll_{ReleaseAll: &pb.ReleaseExecuteRequest_ReleaseAll{}},
	}); err != nil {
		t.Fatal(err)
	}
	re, err = ts.client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(),
	})
	if err == nil {
		_, err = re.Recv()
	}
	if st, _ := status.FromError(err); !strings.Contains(st.Message(), "INVALID_HANDLE.OPERATION_NOT_FOUND") {
		t.Fatalf("reattach after release: %v", err)
	}
}

func TestReleaseUntilFreesBuffer(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return batchesResult(alloc, 1, 1, 1), nil
	}
	sid := newUUID()
	req := executeRequest(sid, rangePlan(), true)
	stream, err := ts.client.ExecutePlan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	if len(resps) != 5 { // schema, 3 batches, complete
		t.Fatalf("%d responses", len(resps))
	}
	sess, err := ts.srv.sessions.get(context.Background(), &pb.ConfigRequest{SessionId: sid, UserContext: userCtx()})
	if err != nil {
		t.Fatal(err)
	}
	e := sess.execution(req.GetOperationId())
	if e == nil {
		t.Fatal("execution forgotten before release")
	}
	if _, err := ts.client.ReleaseExecute(context.Background(), &pb.ReleaseExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(),
		Release: &pb.ReleaseExecuteRequest_ReleaseUntil_{ReleaseUntil: &pb.ReleaseExecuteRequest_ReleaseUntil{ResponseId: resps[2].GetResponseId()}},
	}); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	base, buffered := e.base, len(e.buf)
	e.mu.Unlock()
	if base != 3 || buffered != 2 {
		t.Fatalf("after release_until #2: base %d, %d buffered", base, buffered)
	}
	// Reattaching after a released response fails cleanly; after the last kept one works.
	re, err := ts.client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(), LastResponseId: strPtr(resps[0].GetResponseId()),
	})
	if err == nil {
		_, err = collect(t, re)
	}
	if st, _ := status.FromError(err); !strings.Contains(st.Message(), "INVALID_CURSOR.POSITION_NOT_AVAILABLE") {
		t.Fatalf("reattach before the buffer: %v", err)
	}
	re, err = ts.client.ReattachExecute(context.Background(), &pb.ReattachExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: req.GetOperationId(), LastResponseId: strPtr(resps[2].GetResponseId()),
	})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := collect(t, re)
	if err != nil || len(rest) != 2 || rest[0].GetResponseId() != resps[3].GetResponseId() {
		t.Fatalf("rest %v err %v", rest, err)
	}
}

func TestReplayBufferBackpressure(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	// A tiny buffer: the producer must wait for the client and drop what was sent.
	ts := newTestServer(t, WithAllocator(alloc), WithReplayBuffer(2000))
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		sizes := make([]int64, 200)
		for i := range sizes {
			sizes[i] = 10
		}
		return batchesResult(alloc, sizes...), nil
	}
	sid := newUUID()
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), true))
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	_, ids := checkStream(t, sid, resps)
	if len(ids) != 2000 {
		t.Fatalf("%d rows", len(ids))
	}
}

func TestNonReattachableCancelStopsExecution(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	feed := make(chan int64)
	done := make(chan struct{})
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return blockingResult(alloc, feed, done), nil
	}
	sid := newUUID()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := ts.client.ExecutePlan(ctx, executeRequest(sid, rangePlan(), false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil { // schema
		t.Fatal(err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("execution not cancelled after the client went away")
	}
}

func TestInterruptByTagAndID(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return blockingResult(alloc, make(chan int64), make(chan struct{})), nil
	}
	sid := newUUID()
	start := func(tags ...string) (string, <-chan error) {
		req := executeRequest(sid, rangePlan(), true, tags...)
		stream, err := ts.client.ExecutePlan(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil { // schema: the execution is running
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { _, err := collect(t, stream); errc <- err }()
		return req.GetOperationId(), errc
	}
	opA, errA := start("etl", "x")
	opB, errB := start("adhoc")
	opC, errC := start()

	resp, err := ts.client.Interrupt(context.Background(), &pb.InterruptRequest{
		SessionId: sid, UserContext: userCtx(), InterruptType: pb.InterruptRequest_INTERRUPT_TYPE_TAG,
		Interrupt: &pb.InterruptRequest_OperationTag{OperationTag: "etl"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetInterruptedIds()) != 1 || resp.GetInterruptedIds()[0] != opA {
		t.Fatalf("interrupt by tag: %v", resp.GetInterruptedIds())
	}
	if _, info := errorInfo(t, <-errA); info.Metadata["errorClass"] != "OPERATION_CANCELED" {
		t.Fatalf("interrupted stream: %v", info)
	}

	resp, err = ts.client.Interrupt(context.Background(), &pb.InterruptRequest{
		SessionId: sid, UserContext: userCtx(), InterruptType: pb.InterruptRequest_INTERRUPT_TYPE_OPERATION_ID,
		Interrupt: &pb.InterruptRequest_OperationId{OperationId: opB},
	})
	if err != nil || len(resp.GetInterruptedIds()) != 1 || resp.GetInterruptedIds()[0] != opB {
		t.Fatalf("interrupt by id: %v %v", resp, err)
	}
	<-errB

	resp, err = ts.client.Interrupt(context.Background(), &pb.InterruptRequest{
		SessionId: sid, UserContext: userCtx(), InterruptType: pb.InterruptRequest_INTERRUPT_TYPE_ALL,
	})
	if err != nil || len(resp.GetInterruptedIds()) != 1 || resp.GetInterruptedIds()[0] != opC {
		t.Fatalf("interrupt all: %v %v", resp, err)
	}
	if st, _ := status.FromError(<-errC); st.Code() != codes.Internal {
		t.Fatalf("interrupted stream status %v", st)
	}

	unknown := newUUID()
	stResp, err := ts.client.GetStatus(context.Background(), &pb.GetStatusRequest{
		SessionId: sid, UserContext: userCtx(),
		OperationStatus: &pb.GetStatusRequest_OperationStatusRequest{OperationIds: []string{opA, unknown}},
	})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]pb.GetStatusResponse_OperationStatus_OperationState{}
	for _, s := range stResp.GetOperationStatuses() {
		states[s.GetOperationId()] = s.GetState()
	}
	if states[opA] != pb.GetStatusResponse_OperationStatus_OPERATION_STATE_CANCELLED ||
		states[unknown] != pb.GetStatusResponse_OperationStatus_OPERATION_STATE_UNKNOWN {
		t.Fatalf("statuses %v", states)
	}
}

func TestAbandonedExecutionIsReaped(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc), WithDetachedTimeout(time.Millisecond))
	done := make(chan struct{})
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return blockingResult(alloc, make(chan int64), done), nil
	}
	sid := newUUID()
	req := executeRequest(sid, rangePlan(), true)
	ctx, cut := context.WithCancel(context.Background())
	stream, err := ts.client.ExecutePlan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	cut()
	deadline := time.Now().Add(5 * time.Second)
	for {
		time.Sleep(5 * time.Millisecond)
		ts.srv.sessions.reap()
		sess, _ := ts.srv.sessions.get(context.Background(), &pb.ConfigRequest{SessionId: sid, UserContext: userCtx()})
		if sess.execution(req.GetOperationId()) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("abandoned execution not reaped")
		}
	}
	<-done
}

func TestSQLCommand(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	ts.srv.parseStatement = func(_ context.Context, text string, named map[string]plan.Expr, positional []plan.Expr) (plan.Command, error) {
		if strings.HasPrefix(text, "SELECT") {
			return plan.Query{Input: &plan.Range{}}, nil
		}
		return plan.ShowTables{}, nil
	}
	analyzed := 0
	ts.fake.analyze = func(ctx context.Context, rel plan.Relation) (logical.Node, error) {
		analyzed++
		return &logical.Range{Start: 0, End: 1, Step: 1}, nil
	}
	var ran []plan.Command
	ts.fake.runCommand = func(ctx context.Context, cmd plan.Command) (*engine.Result, error) {
		ran = append(ran, cmd)
		return batchesResult(alloc, 2), nil
	}
	sid := newUUID()
	sqlCmd := func(text string) *pb.Plan {
		return &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_SqlCommand{SqlCommand: &pb.SqlCommand{
			Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: text}}},
		}}}}}
	}
	// A query comes back as the relation to run lazily; nothing runs.
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, sqlCmd("SELECT 1"), true))
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	checkStream(t, sid, resps)
	if q := resps[0].GetSqlCommandResult().GetRelation().GetSql().GetQuery(); q != "SELECT 1" || len(ran) != 0 || analyzed != 1 {
		t.Fatalf("query result %v, ran %v", resps[0], ran)
	}
	// Analysis errors surface at spark.sql() time, as in Spark.
	ts.fake.analyze = func(ctx context.Context, rel plan.Relation) (logical.Node, error) {
		return nil, sparkerr.TableNotFound([]string{"nope"})
	}
	stream, err = ts.client.ExecutePlan(context.Background(), executeRequest(sid, sqlCmd("SELECT * FROM nope"), false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = collect(t, stream)
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "TABLE_OR_VIEW_NOT_FOUND" {
		t.Fatalf("eager analysis: %v", info)
	}
	ts.fake.analyze = func(ctx context.Context, rel plan.Relation) (logical.Node, error) {
		return &logical.Range{Start: 0, End: 1, Step: 1}, nil
	}

	// A command runs now and comes back as a LocalRelation of its rows.
	stream, err = ts.client.ExecutePlan(context.Background(), executeRequest(sid, sqlCmd("SHOW TABLES"), false))
	if err != nil {
		t.Fatal(err)
	}
	resps, err = collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	data := resps[0].GetSqlCommandResult().GetRelation().GetLocalRelation().GetData()
	rdr, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
	}
	rdr.Release()
	if rows != 2 || len(ran) != 1 {
		t.Fatalf("command: %d rows, ran %v", rows, ran)
	}
	// Parameter values reach the parser, converted like any relation's arguments.
	var gotNamed map[string]plan.Expr
	ts.srv.parseStatement = func(_ context.Context, text string, named map[string]plan.Expr, positional []plan.Expr) (plan.Command, error) {
		gotNamed = named
		return plan.Query{Input: &plan.Range{}}, nil
	}
	ts.srv.convertRelation = func(r *pb.Relation) (plan.Relation, error) {
		args := map[string]plan.Expr{}
		for k := range r.GetSql().GetNamedArguments() {
			args[k] = plan.Literal{Value: int32(41), Type: sqltypes.IntegerType}
		}
		return &plan.SQLQuery{Query: r.GetSql().GetQuery(), Args: args}, nil
	}
	withArgs := sqlCmd("SELECT :x + 1")
	withArgs.GetCommand().GetSqlCommand().GetInput().GetSql().NamedArguments = map[string]*pb.Expression{"x": {}}
	stream, err = ts.client.ExecutePlan(context.Background(), executeRequest(sid, withArgs, false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, stream); err != nil {
		t.Fatal(err)
	}
	if lit, ok := gotNamed["x"].(plan.Literal); !ok || lit.Value != int32(41) {
		t.Fatalf("named args reached the parser as %v", gotNamed)
	}

	// Streaming commands are refused cleanly by engine sessions that do not run streams.
	stream, err = ts.client.ExecutePlan(context.Background(), executeRequest(sid, &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{
		CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{}},
	}}}, false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = collect(t, stream)
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "UNSUPPORTED_FEATURE" || info.Reason != "java.lang.UnsupportedOperationException" {
		t.Fatalf("streaming command: %v", info)
	}
}
