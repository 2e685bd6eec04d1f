package connect

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestMaxInboundMessageSize(t *testing.T) {
	ts := newTestServer(t, WithMaxInboundMessageSize(4<<10))
	sid := newUUID()
	set := func(value string) error {
		_, err := configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{
			Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: "k", Value: strPtr(value)}}}}})
		return err
	}
	if err := set("small"); err != nil {
		t.Fatal(err)
	}
	err := set(strings.Repeat("x", 8<<10))
	if st, _ := status.FromError(err); st.Code() != codes.ResourceExhausted ||
		!strings.Contains(st.Message(), "received message larger than max") || !strings.Contains(st.Message(), "vs. 4096") {
		t.Fatalf("oversized Config: %v", err)
	}
	// Streams are held to the limit too.
	big := &pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: strings.Repeat("x", 8<<10)}}}}}
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, big, false))
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("oversized ExecutePlan: %v", err)
	}
	if err := set("still works"); err != nil {
		t.Fatalf("after an oversized request: %v", err)
	}
}

// endlessResult yields 64-row batches until it is closed, counting the batches pulled.
func endlessResult(alloc memory.Allocator, pulled *atomic.Int64, closed chan<- struct{}) *engine.Result {
	return engine.NewResult(longSchema, func(ctx context.Context) (arrow.RecordBatch, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := pulled.Add(1)
		return idBatch(alloc, n*64, 64), nil
	}, func() { close(closed) })
}

func TestMaxResultSizeStopsTheJob(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	if err := ts.fake.conf.Set("spark.driver.maxResultSize", "2k"); err != nil {
		t.Fatal(err)
	}
	var pulled atomic.Int64
	closed := make(chan struct{})
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return endlessResult(alloc, &pulled, closed), nil
	}
	sid := newUUID()
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), false))
	if err != nil {
		t.Fatal(err)
	}
	resps, err := collect(t, stream)
	st, info := errorInfo(t, err)
	want := regexp.MustCompile(`^Job aborted due to stage failure: Total size of serialized results of (\d+) tasks \((\d+\.\d) (B|KiB)\) is bigger than spark\.driver\.maxResultSize \(2\.0 KiB\)$`)
	if !want.MatchString(st.Message()) || jsonList(t, info.Metadata["classes"])[0] != "org.apache.spark.SparkException" {
		t.Fatalf("error %q %v", st.Message(), info.Metadata)
	}
	<-closed // the job was stopped, not drained
	batches := 0
	for _, r := range resps {
		if r.GetArrowBatch() != nil {
			batches++
		}
	}
	if n := pulled.Load(); batches == 0 || n > int64(batches)+2 {
		t.Fatalf("%d batches sent, %d pulled from the job", batches, n)
	}
	if m := want.FindStringSubmatch(st.Message()); m[1] != strconv.Itoa(batches+1) {
		t.Fatalf("tasks %s, want the %d sent plus the one refused", m[1], batches)
	}

	// 0 is no limit.
	if err := ts.fake.conf.Set("spark.driver.maxResultSize", "0"); err != nil {
		t.Fatal(err)
	}
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return batchesResult(alloc, 5000, 5000), nil
	}
	stream, err = ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, stream); err != nil {
		t.Fatalf("unlimited: %v", err)
	}
}

func TestMaxResultSizeOfCommandResults(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := newTestServer(t, WithAllocator(alloc))
	ts.srv.parseStatement = func(context.Context, string, map[string]plan.Expr, []plan.Expr) (plan.Command, error) {
		return plan.ShowTables{}, nil
	}
	var pulled atomic.Int64
	closed := make(chan struct{})
	ts.fake.runCommand = func(ctx context.Context, cmd plan.Command) (*engine.Result, error) {
		return endlessResult(alloc, &pulled, closed), nil
	}
	if err := ts.fake.conf.Set("spark.driver.maxResultSize", "4k"); err != nil {
		t.Fatal(err)
	}
	p := &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_SqlCommand{SqlCommand: &pb.SqlCommand{
		Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SHOW TABLES"}}}}}}}}
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(newUUID(), p, false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = collect(t, stream)
	if st, _ := errorInfo(t, err); !strings.Contains(st.Message(), "is bigger than spark.driver.maxResultSize (4.0 KiB)") {
		t.Fatalf("command result: %v", err)
	}
	<-closed
}

func TestBytesToString(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0.0 B", 2047: "2047.0 B", 2048: "2.0 KiB", 1 << 30: "1024.0 MiB", 1<<31 + 1<<29: "2.5 GiB",
		3 << 40: "3.0 TiB",
	} {
		if got := bytesToString(n); got != want {
			t.Errorf("bytesToString(%d) = %q, want %q", n, got, want)
		}
	}
}
