package connect

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
)

func TestOtherCommandsRunThroughTheEngine(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	var ran []plan.Command
	closed := false
	ts.fake.runCommand = func(ctx context.Context, cmd plan.Command) (*engine.Result, error) {
		ran = append(ran, cmd)
		r := batchesResult(alloc, 4)
		return engine.NewResult(r.Schema, r.Next, func() { closed = true }), nil
	}
	sid := newUUID()
	view := &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_CreateDataframeView{
		CreateDataframeView: &pb.CreateDataFrameViewCommand{Name: "v", Input: rangePlan().GetRoot(), Replace: true},
	}}}}
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, view, true))
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	if err != nil {
		t.Fatal(err)
	}
	checkStream(t, sid, resps)
	if len(resps) != 1 || len(ran) != 1 || !closed {
		t.Fatalf("responses %v, ran %v, closed %v", resps, ran, closed)
	}

	// Compressed plans are refused with the class that makes the client stop compressing.
	compressed := &pb.Plan{OpType: &pb.Plan_CompressedOperation_{CompressedOperation: &pb.Plan_CompressedOperation{Data: []byte{1}}}}
	stream, err = ts.client.ExecutePlan(context.Background(), executeRequest(sid, compressed, false))
	if err == nil {
		_, err = collect(t, stream)
	}
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "CONNECT_INVALID_PLAN.CANNOT_PARSE" {
		t.Fatalf("compressed: %v", info)
	}

	// Releasing an unknown operation is harmless, as in Spark.
	op := newUUID()
	rel, err := ts.client.ReleaseExecute(context.Background(), &pb.ReleaseExecuteRequest{
		SessionId: sid, UserContext: userCtx(), OperationId: op,
		Release: &pb.ReleaseExecuteRequest_ReleaseAll_{ReleaseAll: &pb.ReleaseExecuteRequest_ReleaseAll{}},
	})
	if err != nil || rel.GetOperationId() != op || rel.GetSessionId() != sid {
		t.Fatalf("release unknown: %v %v", rel, err)
	}

	// An operation id cannot be reused while the operation is known.
	req := executeRequest(sid, rangePlan(), true)
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return batchesResult(alloc, 1), nil
	}
	stream, _ = ts.client.ExecutePlan(context.Background(), req)
	if _, err := collect(t, stream); err != nil {
		t.Fatal(err)
	}
	stream, err = ts.client.ExecutePlan(context.Background(), req)
	if err == nil {
		_, err = collect(t, stream)
	}
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "INVALID_HANDLE.OPERATION_ALREADY_EXISTS" {
		t.Fatalf("reused op id: %v", info)
	}
}
