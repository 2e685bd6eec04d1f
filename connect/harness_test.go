package connect

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// fakeEngine is an EngineSession whose behaviour each test supplies.
type fakeEngine struct {
	conf       *engine.Conf
	execute    func(ctx context.Context, rel plan.Relation) (*engine.Result, error)
	runCommand func(ctx context.Context, cmd plan.Command) (*engine.Result, error)
	analyze    func(ctx context.Context, rel plan.Relation) (logical.Node, error)
}

func (f *fakeEngine) Conf() *engine.Conf { return f.conf }

func (f *fakeEngine) Analyze(ctx context.Context, rel plan.Relation) (logical.Node, error) {
	if f.analyze == nil {
		return nil, errors.New("fake: no analyze")
	}
	return f.analyze(ctx, rel)
}

func (f *fakeEngine) Execute(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
	if f.execute == nil {
		return nil, errors.New("fake: no execute")
	}
	return f.execute(ctx, rel)
}

func (f *fakeEngine) RunCommand(ctx context.Context, cmd plan.Command) (*engine.Result, error) {
	if f.runCommand == nil {
		return nil, errors.New("fake: no runCommand")
	}
	return f.runCommand(ctx, cmd)
}

func (f *fakeEngine) Explain(ctx context.Context, rel plan.Relation, mode string) (string, error) {
	return "== Physical Plan ==\nFake (" + mode + ")\n", nil
}

// testServer is an in-process server on a bufconn listener and a client for it.
type testServer struct {
	srv    *Server
	client pb.SparkConnectServiceClient
	fake   *fakeEngine
	// relations records what relation protos reached plan conversion.
	mu        sync.Mutex
	relations []*pb.Relation
}

func (ts *testServer) seenRelations() []*pb.Relation {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]*pb.Relation(nil), ts.relations...)
}

func newTestServer(t *testing.T, opts ...Option) *testServer {
	t.Helper()
	ts := &testServer{fake: &fakeEngine{conf: engine.NewConf()}}
	opts = append([]Option{WithEngine(func() EngineSession { return ts.fake })}, opts...)
	srv, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	// Plan conversion is protoconv's job (tested there); here any relation becomes a Range so
	// the service's own behaviour is what is under test.
	srv.convertRelation = func(r *pb.Relation) (plan.Relation, error) {
		ts.mu.Lock()
		ts.relations = append(ts.relations, r)
		ts.mu.Unlock()
		return &plan.Range{Start: 0, End: 1, Step: 1}, nil
	}
	srv.convertCommand = func(c *pb.Command) (plan.Command, error) {
		return plan.ShowTables{}, nil
	}
	ts.srv = srv
	ts.client = serveBufconn(t, srv)
	return ts
}

const testUser = "alice"

// errEOF ends a fake result.
var errEOF = io.EOF

func userCtx() *pb.UserContext { return &pb.UserContext{UserId: testUser} }

// longSchema is a single bigint column "id".
var longSchema = sqltypes.Schema{{Name: "id", Type: sqltypes.LongType, Nullable: false}}

// idBatch builds a batch of ids [from, from+n).
func idBatch(alloc memory.Allocator, from, n int64) arrow.RecordBatch {
	b := array.NewInt64Builder(alloc)
	defer b.Release()
	for i := from; i < from+n; i++ {
		b.Append(i)
	}
	col := b.NewArray()
	defer col.Release()
	return array.NewRecordBatch(sqltypes.ToArrowSchema(longSchema, "UTC"), []arrow.Array{col}, n)
}

// batchesResult returns a Result producing batches of the given sizes of consecutive ids.
func batchesResult(alloc memory.Allocator, sizes ...int64) *engine.Result {
	i, next := 0, int64(0)
	return engine.NewResult(longSchema, func(ctx context.Context) (arrow.RecordBatch, error) {
		if i == len(sizes) {
			return nil, io.EOF
		}
		rec := idBatch(alloc, next, sizes[i])
		next += sizes[i]
		i++
		return rec, nil
	}, nil)
}

func rangePlan() *pb.Plan {
	return &pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{RelType: &pb.Relation_Range{Range: &pb.Range{End: 10, Step: 1}}}}}
}

func executeRequest(sessionID string, p *pb.Plan, reattachable bool, tags ...string) *pb.ExecutePlanRequest {
	req := &pb.ExecutePlanRequest{SessionId: sessionID, UserContext: userCtx(), Plan: p, Tags: tags}
	if reattachable {
		op := newUUID()
		req.OperationId = &op
		req.RequestOptions = []*pb.ExecutePlanRequest_RequestOption{{
			RequestOption: &pb.ExecutePlanRequest_RequestOption_ReattachOptions{ReattachOptions: &pb.ReattachOptions{Reattachable: true}},
		}}
	}
	return req
}

// collect reads a response stream to its end.
func collect(t *testing.T, stream grpc.ServerStreamingClient[pb.ExecutePlanResponse]) ([]*pb.ExecutePlanResponse, error) {
	t.Helper()
	var out []*pb.ExecutePlanResponse
	for {
		r, err := stream.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

// errorInfo decodes the ErrorInfo of a status error.
func errorInfo(t *testing.T, err error) (*status.Status, *errdetails.ErrorInfo) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("not a status error: %v", err)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return st, info
		}
	}
	t.Fatalf("status %v has no ErrorInfo", st)
	return nil, nil
}

func jsonList(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("bad JSON list %q: %v", s, err)
	}
	return out
}

// serveBufconn serves srv over an in-memory listener until the test ends and returns a client.
func serveBufconn(t *testing.T, srv *Server) pb.SparkConnectServiceClient {
	t.Helper()
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
