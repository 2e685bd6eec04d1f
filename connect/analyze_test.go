package connect

import (
	"context"
	"strings"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

func TestAnalyze(t *testing.T) {
	ts := newTestServer(t, WithSparkVersion("4.0.1"))
	sid := newUUID()
	ts.fake.analyze = func(ctx context.Context, rel plan.Relation) (logical.Node, error) {
		return &logical.Range{Start: 0, End: 10, Step: 1, Partitions: 1}, nil
	}
	analyze := func(a *pb.AnalyzePlanRequest) *pb.AnalyzePlanResponse {
		t.Helper()
		a.SessionId, a.UserContext = sid, userCtx()
		resp, err := ts.client.AnalyzePlan(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetSessionId() != sid || resp.GetServerSideSessionId() == "" {
			t.Fatalf("ids: %v", resp)
		}
		return resp
	}
	resp := analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_SparkVersion_{SparkVersion: &pb.AnalyzePlanRequest_SparkVersion{}}})
	if resp.GetSparkVersion().GetVersion() != "4.0.1" {
		t.Fatalf("version %v", resp)
	}
	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_Schema_{Schema: &pb.AnalyzePlanRequest_Schema{Plan: rangePlan()}}})
	if f := resp.GetSchema().GetSchema().GetStruct().GetFields(); len(f) != 1 || f[0].GetName() != "id" || f[0].GetDataType().GetLong() == nil {
		t.Fatalf("schema %v", resp)
	}
	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_TreeString_{TreeString: &pb.AnalyzePlanRequest_TreeString{Plan: rangePlan()}}})
	if resp.GetTreeString().GetTreeString() != "root\n |-- id: long (nullable = false)\n" {
		t.Fatalf("tree string %q", resp.GetTreeString().GetTreeString())
	}
	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_Explain_{Explain: &pb.AnalyzePlanRequest_Explain{
		Plan: rangePlan(), ExplainMode: pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_FORMATTED,
	}}})
	if !strings.Contains(resp.GetExplain().GetExplainString(), "formatted") {
		t.Fatalf("explain %v", resp)
	}
	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_IsStreaming_{IsStreaming: &pb.AnalyzePlanRequest_IsStreaming{Plan: rangePlan()}}})
	if resp.GetIsStreaming().GetIsStreaming() {
		t.Fatal("range is not streaming")
	}
	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_IsLocal_{IsLocal: &pb.AnalyzePlanRequest_IsLocal{Plan: rangePlan()}}})
	if resp.GetIsLocal().GetIsLocal() {
		t.Fatal("range is not local")
	}
	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_SameSemantics_{SameSemantics: &pb.AnalyzePlanRequest_SameSemantics{
		TargetPlan: rangePlan(), OtherPlan: rangePlan(),
	}}})
	if !resp.GetSameSemantics().GetResult() {
		t.Fatal("same plans differ")
	}
	h1 := analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_SemanticHash_{SemanticHash: &pb.AnalyzePlanRequest_SemanticHash{Plan: rangePlan()}}})
	h2 := analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_SemanticHash_{SemanticHash: &pb.AnalyzePlanRequest_SemanticHash{Plan: rangePlan()}}})
	if h1.GetSemanticHash().GetResult() != h2.GetSemanticHash().GetResult() {
		t.Fatal("semantic hash unstable")
	}
	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_InputFiles_{InputFiles: &pb.AnalyzePlanRequest_InputFiles{Plan: rangePlan()}}})
	if len(resp.GetInputFiles().GetFiles()) != 0 {
		t.Fatal("input files")
	}

	// Persist bookkeeping.
	rel := rangePlan().GetRoot()
	level := func() *pb.StorageLevel {
		return analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_GetStorageLevel_{GetStorageLevel: &pb.AnalyzePlanRequest_GetStorageLevel{Relation: rel}}}).GetGetStorageLevel().GetStorageLevel()
	}
	if l := level(); l.GetUseMemory() || l.GetReplication() != 1 {
		t.Fatalf("unpersisted level %v", l)
	}
	analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_Persist_{Persist: &pb.AnalyzePlanRequest_Persist{Relation: rel}}})
	if l := level(); !l.GetUseMemory() || !l.GetUseDisk() || !l.GetDeserialized() {
		t.Fatalf("persisted level %v", l)
	}
	analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_Unpersist_{Unpersist: &pb.AnalyzePlanRequest_Unpersist{Relation: rel}}})
	if l := level(); l.GetUseMemory() {
		t.Fatalf("unpersisted level %v", l)
	}

	resp = analyze(&pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_JsonToDdl{JsonToDdl: &pb.AnalyzePlanRequest_JsonToDDL{
		JsonString: `{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b c","type":"string","nullable":false,"metadata":{}}]}`,
	}}})
	if got := resp.GetJsonToDdl().GetDdlString(); got != "a INT,`b c` STRING NOT NULL" {
		t.Fatalf("json to ddl %q", got)
	}
}

func TestTreeStringLevel(t *testing.T) {
	tree := "root\n |-- a: struct (nullable = true)\n |    |-- b: integer (nullable = true)\n |-- c: long (nullable = true)\n"
	if got := treeStringToLevel(tree, 1); got != "root\n |-- a: struct (nullable = true)\n |-- c: long (nullable = true)\n" {
		t.Fatalf("level 1: %q", got)
	}
	if got := treeStringToLevel(tree, 0); got != tree {
		t.Fatalf("level 0: %q", got)
	}
}
