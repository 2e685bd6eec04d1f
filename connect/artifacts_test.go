package connect

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
	"google.golang.org/protobuf/proto"
)

func chunk(data []byte) *pb.AddArtifactsRequest_ArtifactChunk {
	return &pb.AddArtifactsRequest_ArtifactChunk{Data: data, Crc: int64(crc32.ChecksumIEEE(data))}
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ipcOf encodes n ids as one IPC stream.
func ipcOf(t *testing.T, alloc memory.Allocator, from, n int64) []byte {
	t.Helper()
	rec := idBatch(alloc, from, n)
	defer rec.Release()
	data, err := encodeIPC(rec.Schema(), rec, alloc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestArtifactsAndCachedRelations(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	dir := t.TempDir()
	ts := newTestServer(t, WithAllocator(alloc), WithStateDir(dir))
	sid := newUUID()

	localBlob, _ := proto.Marshal(&pb.LocalRelation{Data: ipcOf(t, alloc, 0, 3)})
	chunkA, chunkB := ipcOf(t, alloc, 0, 2), ipcOf(t, alloc, 2, 5)
	schemaBlob := []byte(`{"type":"struct","fields":[{"name":"id","type":"long","nullable":false,"metadata":{}}]}`)
	bigFile := bytes.Repeat([]byte("0123456789"), 1000)

	stream, err := ts.client.AddArtifacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	send := func(p *pb.AddArtifactsRequest) {
		p.SessionId, p.UserContext = sid, userCtx()
		if err := stream.Send(p); err != nil {
			t.Fatal(err)
		}
	}
	badCRC := chunk([]byte("corrupt"))
	badCRC.Crc++
	send(&pb.AddArtifactsRequest{Payload: &pb.AddArtifactsRequest_Batch_{Batch: &pb.AddArtifactsRequest_Batch{Artifacts: []*pb.AddArtifactsRequest_SingleChunkArtifact{
		{Name: "cache/" + hashOf(localBlob), Data: chunk(localBlob)},
		{Name: "cache/" + hashOf(chunkA), Data: chunk(chunkA)},
		{Name: "cache/" + hashOf(chunkB), Data: chunk(chunkB)},
		{Name: "cache/" + hashOf(schemaBlob), Data: chunk(schemaBlob)},
		{Name: "pyfiles/bad.py", Data: badCRC},
	}}}})
	send(&pb.AddArtifactsRequest{Payload: &pb.AddArtifactsRequest_BeginChunk{BeginChunk: &pb.AddArtifactsRequest_BeginChunkedArtifact{
		Name: "files/big.txt", TotalBytes: int64(len(bigFile)), NumChunks: 3, InitialChunk: chunk(bigFile[:4000]),
	}}})
	send(&pb.AddArtifactsRequest{Payload: &pb.AddArtifactsRequest_Chunk{Chunk: chunk(bigFile[4000:8000])}})
	send(&pb.AddArtifactsRequest{Payload: &pb.AddArtifactsRequest_Chunk{Chunk: chunk(bigFile[8000:])}})
	resp, err := stream.CloseAndRecv()
	if err != nil {
		t.Fatal(err)
	}
	ok := map[string]bool{}
	for _, s := range resp.GetArtifacts() {
		ok[s.GetName()] = s.GetIsCrcSuccessful()
	}
	if len(ok) != 6 || ok["pyfiles/bad.py"] || !ok["files/big.txt"] || !ok["cache/"+hashOf(localBlob)] {
		t.Fatalf("summaries %v", resp.GetArtifacts())
	}
	sess, _ := ts.srv.sessions.get(context.Background(), &pb.ConfigRequest{SessionId: sid, UserContext: userCtx()})
	onDisk, err := os.ReadFile(filepath.Join(dir, "artifacts", sess.serverSideID, "files", "big.txt"))
	if err != nil || !bytes.Equal(onDisk, bigFile) {
		t.Fatalf("chunked artifact on disk: %v", err)
	}

	st, err := ts.client.ArtifactStatus(context.Background(), &pb.ArtifactStatusesRequest{
		SessionId: sid, UserContext: userCtx(), Names: []string{"cache/" + hashOf(localBlob), "cache/nope", "pyfiles/bad.py"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !st.GetStatuses()["cache/"+hashOf(localBlob)].GetExists() || st.GetStatuses()["cache/nope"].GetExists() || st.GetStatuses()["pyfiles/bad.py"].GetExists() {
		t.Fatalf("statuses %v", st.GetStatuses())
	}

	// Plans referring to cached relations reach conversion as LocalRelations.
	ts.fake.execute = func(ctx context.Context, rel plan.Relation) (*engine.Result, error) {
		return engine.NewResult(sqltypes.Schema{{Name: "id", Type: sqltypes.LongType}}, nil, nil), nil
	}
	schemaHash := hashOf(schemaBlob)
	p := &pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{
		Left: &pb.Relation{RelType: &pb.Relation_CachedLocalRelation{CachedLocalRelation: &pb.CachedLocalRelation{Hash: hashOf(localBlob)}}},
		Right: &pb.Relation{RelType: &pb.Relation_ChunkedCachedLocalRelation{ChunkedCachedLocalRelation: &pb.ChunkedCachedLocalRelation{
			DataHashes: []string{hashOf(chunkA), hashOf(chunkB)}, SchemaHash: &schemaHash,
		}}},
	}}}}}
	exec, err := ts.client.ExecutePlan(context.Background(), executeRequest(sid, p, false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, exec); err != nil {
		t.Fatal(err)
	}
	seen := ts.seenRelations()
	join := seen[len(seen)-1].GetJoin()
	if join == nil || join.GetLeft().GetLocalRelation() == nil || join.GetRight().GetLocalRelation() == nil {
		t.Fatalf("converted %v", seen[len(seen)-1])
	}
	rows := func(data []byte) int64 {
		r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(alloc))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		var n int64
		for r.Next() {
			n += r.RecordBatch().NumRows()
		}
		return n
	}
	if rows(join.GetLeft().GetLocalRelation().GetData()) != 3 || rows(join.GetRight().GetLocalRelation().GetData()) != 7 ||
		join.GetRight().GetLocalRelation().GetSchema() != string(schemaBlob) {
		t.Fatalf("resolved relations wrong: %v", join)
	}
	// The request's own plan is not modified.
	if p.GetRoot().GetJoin().GetLeft().GetCachedLocalRelation() == nil {
		t.Fatal("request plan modified")
	}

	// A missing cache entry is a clear error.
	missing := &pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{RelType: &pb.Relation_CachedLocalRelation{CachedLocalRelation: &pb.CachedLocalRelation{Hash: "feed"}}}}}
	exec, err = ts.client.ExecutePlan(context.Background(), executeRequest(sid, missing, false))
	if err == nil {
		_, err = collect(t, exec)
	}
	if _, info := errorInfo(t, err); info.Reason != invalidPlanInput {
		t.Fatalf("missing cache: %v", info)
	}

	// Artifact names cannot escape the session directory.
	stream, _ = ts.client.AddArtifacts(context.Background())
	send(&pb.AddArtifactsRequest{Payload: &pb.AddArtifactsRequest_Batch_{Batch: &pb.AddArtifactsRequest_Batch{Artifacts: []*pb.AddArtifactsRequest_SingleChunkArtifact{
		{Name: "files/../../evil", Data: chunk([]byte("x"))},
	}}}})
	if _, err := stream.CloseAndRecv(); err == nil {
		t.Fatal("path traversal accepted")
	}
}
