package connect

import (
	"context"
	"errors"
	"strings"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func analyzeSchema(ts *testServer, sid string) (*pb.AnalyzePlanResponse, error) {
	return ts.client.AnalyzePlan(context.Background(), &pb.AnalyzePlanRequest{
		SessionId: sid, UserContext: userCtx(),
		Analyze: &pb.AnalyzePlanRequest_Schema_{Schema: &pb.AnalyzePlanRequest_Schema{Plan: rangePlan()}},
	})
}

func TestErrorMappingAndDetails(t *testing.T) {
	ts := newTestServer(t)
	sid := newUUID()
	var fail error
	ts.fake.analyze = func(ctx context.Context, rel plan.Relation) (logical.Node, error) { return nil, fail }

	fail = sparkerr.TableNotFound([]string{"db", "t"})
	_, err := analyzeSchema(ts, sid)
	st, info := errorInfo(t, err)
	if st.Code() != codes.Internal || !strings.HasPrefix(st.Message(), "[TABLE_OR_VIEW_NOT_FOUND] The table or view `db`.`t` cannot be found") {
		t.Fatalf("status %v", st)
	}
	if info.Reason != sparkerr.AnalysisException || info.Domain != "org.apache.spark" ||
		info.Metadata["errorClass"] != "TABLE_OR_VIEW_NOT_FOUND" || info.Metadata["sqlState"] != "42P01" ||
		info.Metadata["messageParameters"] != `{"relationName":"`+"`db`.`t`"+`"}` ||
		jsonList(t, info.Metadata["classes"])[0] != sparkerr.AnalysisException || !isUUID(info.Metadata["errorId"]) {
		t.Fatalf("ErrorInfo %v", info)
	}
	details, err := ts.client.FetchErrorDetails(context.Background(), &pb.FetchErrorDetailsRequest{
		SessionId: sid, UserContext: userCtx(), ErrorId: info.Metadata["errorId"],
	})
	if err != nil {
		t.Fatal(err)
	}
	root := details.GetErrors()[details.GetRootErrorIdx()]
	if root.GetSparkThrowable().GetErrorClass() != "TABLE_OR_VIEW_NOT_FOUND" || root.GetSparkThrowable().GetSqlState() != "42P01" ||
		root.GetSparkThrowable().GetMessageParameters()["relationName"] != "`db`.`t`" ||
		root.GetErrorTypeHierarchy()[0] != sparkerr.AnalysisException || !strings.Contains(root.GetMessage(), "cannot be found") {
		t.Fatalf("details %v", details)
	}
	// An error is fetched once.
	details, err = ts.client.FetchErrorDetails(context.Background(), &pb.FetchErrorDetailsRequest{
		SessionId: sid, UserContext: userCtx(), ErrorId: info.Metadata["errorId"],
	})
	if err != nil || details.RootErrorIdx != nil {
		t.Fatalf("second fetch %v %v", details, err)
	}

	// Parse errors carry ParseException then AnalysisException.
	fail = sparkerr.Parse("'FROM'", "")
	_, err = analyzeSchema(ts, sid)
	_, info = errorInfo(t, err)
	if c := jsonList(t, info.Metadata["classes"]); len(c) != 2 || c[0] != sparkerr.ParseException || c[1] != sparkerr.AnalysisException {
		t.Fatalf("parse classes %v", c)
	}

	// Causes show up in the details.
	fail = sparkerr.Analysis("X", "42000", "outer").Wrap(sparkerr.IllegalArgument("inner"))
	_, err = analyzeSchema(ts, sid)
	_, info = errorInfo(t, err)
	details, _ = ts.client.FetchErrorDetails(context.Background(), &pb.FetchErrorDetailsRequest{SessionId: sid, UserContext: userCtx(), ErrorId: info.Metadata["errorId"]})
	if len(details.GetErrors()) != 2 || details.GetErrors()[0].GetCauseIdx() != 1 || details.GetErrors()[1].GetErrorTypeHierarchy()[0] != sparkerr.IllegalArgumentException {
		t.Fatalf("cause chain %v", details)
	}

	// Anything that is not a sparkerr becomes an internal SparkException.
	fail = errors.New("boom")
	_, err = analyzeSchema(ts, sid)
	st, info = errorInfo(t, err)
	if info.Reason != sparkerr.SparkException || info.Metadata["errorClass"] != "INTERNAL_ERROR" || !strings.Contains(st.Message(), "boom") {
		t.Fatalf("plain error: %v %v", st, info)
	}

	// Long messages are abbreviated like Spark's.
	fail = sparkerr.IllegalArgument("%s", strings.Repeat("é", 3000))
	_, err = analyzeSchema(ts, sid)
	st, _ = errorInfo(t, err)
	if len(st.Message()) > maxErrorMessage || !strings.HasSuffix(st.Message(), "...") {
		t.Fatalf("message of %d bytes", len(st.Message()))
	}
}

func TestPanicRecoveryAndMalformedRequests(t *testing.T) {
	ts := newTestServer(t)
	sid := newUUID()
	ts.fake.analyze = func(ctx context.Context, rel plan.Relation) (logical.Node, error) { panic("analyzer exploded") }
	_, err := analyzeSchema(ts, sid)
	st, info := errorInfo(t, err)
	if st.Code() != codes.Internal || info.Metadata["errorClass"] != "INTERNAL_ERROR" || !strings.Contains(st.Message(), "analyzer exploded") {
		t.Fatalf("panic: %v", st)
	}
	// A panicking execution fails its stream, not the server.
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) { panic("executor exploded") }
	stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, rangePlan(), true))
	if err == nil {
		_, err = collect(t, stream)
	}
	if st, _ := status.FromError(err); !strings.Contains(st.Message(), "executor exploded") {
		t.Fatalf("execution panic: %v", err)
	}
	// Unset oneofs and missing plans are clear errors.
	ts.fake.analyze = nil
	cases := []*pb.AnalyzePlanRequest{
		{SessionId: sid, UserContext: userCtx()},
		{SessionId: sid, UserContext: userCtx(), Analyze: &pb.AnalyzePlanRequest_Schema_{Schema: &pb.AnalyzePlanRequest_Schema{}}},
		{SessionId: sid, UserContext: userCtx(), Analyze: &pb.AnalyzePlanRequest_Schema_{Schema: &pb.AnalyzePlanRequest_Schema{Plan: &pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{}}}}}},
	}
	for i, req := range cases {
		_, err := ts.client.AnalyzePlan(context.Background(), req)
		if _, info := errorInfo(t, err); info.Reason != invalidPlanInput {
			t.Errorf("case %d: %v", i, info)
		}
	}
	for i, p := range []*pb.Plan{nil, {}, {OpType: &pb.Plan_Command{Command: &pb.Command{}}}} {
		stream, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, p, false))
		if err == nil {
			_, err = collect(t, stream)
		}
		if _, info := errorInfo(t, err); info.Reason != invalidPlanInput {
			t.Errorf("plan %d: %v", i, info)
		}
	}
	// Still serving.
	if _, err := configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetAll{GetAll: &pb.ConfigRequest_GetAll{}}}); err != nil {
		t.Fatal(err)
	}
}
