package connect

import (
	"context"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"google.golang.org/grpc/codes"
)

func configOp(t *testing.T, ts *testServer, sessionID string, op *pb.ConfigRequest_Operation) (*pb.ConfigResponse, error) {
	t.Helper()
	return ts.client.Config(context.Background(), &pb.ConfigRequest{SessionId: sessionID, UserContext: userCtx(), Operation: op})
}

func pairs(resp *pb.ConfigResponse) map[string]*string {
	m := map[string]*string{}
	for _, kv := range resp.GetPairs() {
		m[kv.GetKey()] = kv.Value
	}
	return m
}

func TestConfigRoundTrip(t *testing.T) {
	ts := newTestServer(t)
	sid := newUUID()
	kv := func(k string, v *string) *pb.KeyValue { return &pb.KeyValue{Key: k, Value: v} }

	resp, err := configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{
		Pairs: []*pb.KeyValue{kv("spark.sql.shuffle.partitions", strPtr("7")), kv("weir.test.key", strPtr("v"))},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetSessionId() != sid || !isUUID(resp.GetServerSideSessionId()) {
		t.Fatalf("bad ids in %v", resp)
	}

	resp, err = configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Get{Get: &pb.ConfigRequest_Get{
		Keys: []string{"spark.sql.shuffle.partitions", "weir.test.key", "spark.sql.session.localRelationCacheThreshold"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	got := pairs(resp)
	if *got["spark.sql.shuffle.partitions"] != "7" || *got["weir.test.key"] != "v" || *got["spark.sql.session.localRelationCacheThreshold"] != "67108864" {
		t.Fatalf("get: %v", resp.GetPairs())
	}

	resp, err = configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetWithDefault{GetWithDefault: &pb.ConfigRequest_GetWithDefault{
		Pairs: []*pb.KeyValue{kv("weir.missing", strPtr("dflt")), kv("weir.test.key", strPtr("ignored")), kv("weir.missing2", nil)},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	got = pairs(resp)
	if *got["weir.missing"] != "dflt" || *got["weir.test.key"] != "v" || got["weir.missing2"] != nil {
		t.Fatalf("getWithDefault: %v", resp.GetPairs())
	}

	resp, err = configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetOption{GetOption: &pb.ConfigRequest_GetOption{
		Keys: []string{"weir.missing", "weir.test.key"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	got = pairs(resp)
	if got["weir.missing"] != nil || *got["weir.test.key"] != "v" || len(resp.GetPairs()) != 2 {
		t.Fatalf("getOption: %v", resp.GetPairs())
	}

	prefix := "weir."
	resp, err = configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetAll{GetAll: &pb.ConfigRequest_GetAll{Prefix: &prefix}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetPairs()) != 1 || resp.GetPairs()[0].GetKey() != "weir.test.key" {
		t.Fatalf("getAll(weir.): %v", resp.GetPairs())
	}

	if _, err := configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Unset{Unset: &pb.ConfigRequest_Unset{Keys: []string{"weir.test.key"}}}}); err != nil {
		t.Fatal(err)
	}
	resp, err = configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_IsModifiable{IsModifiable: &pb.ConfigRequest_IsModifiable{
		Keys: []string{"spark.sql.shuffle.partitions", "spark.master"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	got = pairs(resp)
	if *got["spark.sql.shuffle.partitions"] != "true" || *got["spark.master"] != "false" {
		t.Fatalf("isModifiable: %v", resp.GetPairs())
	}

	// Getting an unknown key fails like Spark: SparkNoSuchElementException [SQL_CONF_NOT_FOUND].
	_, err = configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Get{Get: &pb.ConfigRequest_Get{Keys: []string{"weir.test.key"}}}})
	st, info := errorInfo(t, err)
	if st.Code() != codes.Internal || info.Metadata["errorClass"] != "SQL_CONF_NOT_FOUND" ||
		jsonList(t, info.Metadata["classes"])[0] != "org.apache.spark.SparkNoSuchElementException" {
		t.Fatalf("unknown key: %v %v", st, info)
	}

	// Static configs cannot be set.
	_, err = configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{
		Pairs: []*pb.KeyValue{kv("spark.master", strPtr("yarn"))},
	}}})
	if _, info := errorInfo(t, err); info.Metadata["errorClass"] != "CANNOT_MODIFY_CONFIG" {
		t.Fatalf("static set: %v", info)
	}
	// …unless silently (the builder's options).
	silent := true
	if _, err := configOp(t, ts, sid, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{
		Pairs: []*pb.KeyValue{kv("spark.master", strPtr("yarn"))}, Silent: &silent,
	}}}); err != nil {
		t.Fatalf("silent set: %v", err)
	}

	// A request without an operation is a clear error, not a crash.
	_, err = configOp(t, ts, sid, nil)
	if _, info := errorInfo(t, err); info.Reason != invalidPlanInput {
		t.Fatalf("empty op: %v", info)
	}
}
