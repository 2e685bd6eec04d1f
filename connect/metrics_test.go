package connect

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/metrics"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// TestMetricsCountRPCsErrorsAndSessions: with WithMetrics, a scrape shows the live sessions
// and operations, RPCs by method, failed RPCs by Spark error class and message bytes.
func TestMetricsCountRPCsErrorsAndSessions(t *testing.T) {
	reg := metrics.New("test", DefaultSparkVersion)
	ts := newTestServer(t, WithMetrics(reg))
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return nil, sparkerr.TableNotFound([]string{"nope"})
	}
	sid := newUUID()
	ctx := context.Background()
	if _, err := ts.client.AnalyzePlan(ctx, &pb.AnalyzePlanRequest{SessionId: sid, UserContext: userCtx(),
		Analyze: &pb.AnalyzePlanRequest_SparkVersion_{SparkVersion: &pb.AnalyzePlanRequest_SparkVersion{}}}); err != nil {
		t.Fatal(err)
	}
	stream, err := ts.client.ExecutePlan(ctx, executeRequest(sid, rangePlan(), false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, stream); err == nil {
		t.Fatal("ExecutePlan on a missing table succeeded")
	}
	// A session id that is not a UUID: the error class of the refusal.
	if _, err := ts.client.AnalyzePlan(ctx, &pb.AnalyzePlanRequest{SessionId: "x", UserContext: userCtx(),
		Analyze: &pb.AnalyzePlanRequest_SparkVersion_{SparkVersion: &pb.AnalyzePlanRequest_SparkVersion{}}}); err == nil {
		t.Fatal("a malformed session id was accepted")
	}
	w := httptest.NewRecorder()
	reg.Handler(nil).ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(w.Body)
	body := string(b)
	for _, line := range []string{
		"weir_sessions 1\n", "weir_operations 0\n",
		`weir_rpcs_total{method="AnalyzePlan"} 2`, `weir_rpcs_total{method="ExecutePlan"} 1`,
		`weir_errors_total{class="TABLE_OR_VIEW_NOT_FOUND",method="ExecutePlan"} 1`,
		`weir_errors_total{class="INVALID_HANDLE.FORMAT",method="AnalyzePlan"} 1`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("scrape lacks %q", line)
		}
	}
	for _, name := range []string{"weir_rpc_received_bytes_total ", "weir_rpc_sent_bytes_total "} {
		i := strings.Index(body, "\n"+name)
		if i < 0 || strings.HasPrefix(body[i+1+len(name):], "0\n") {
			t.Errorf("%s missing or zero", name)
		}
	}
	if t.Failed() {
		t.Log(body)
	}
}
