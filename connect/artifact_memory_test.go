package connect

import (
	"bytes"
	"context"
	"strings"
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

// upload sends one chunked artifact of data in chunks of size n (declaring declared bytes)
// and returns the stream's error.
func upload(t *testing.T, ts *testServer, sid, name string, data []byte, n int, declared int64) error {
	t.Helper()
	stream, err := ts.client.AddArtifacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	chunks := (len(data) + n - 1) / n
	for i := 0; i < chunks; i++ {
		part := data[i*n : min(len(data), (i+1)*n)]
		req := &pb.AddArtifactsRequest{SessionId: sid, UserContext: userCtx()}
		if i == 0 {
			req.Payload = &pb.AddArtifactsRequest_BeginChunk{BeginChunk: &pb.AddArtifactsRequest_BeginChunkedArtifact{
				Name: name, TotalBytes: declared, NumChunks: int64(chunks), InitialChunk: chunk(part)}}
		} else {
			req.Payload = &pb.AddArtifactsRequest_Chunk{Chunk: chunk(part)}
		}
		if err := stream.Send(req); err != nil {
			break // the server ended the stream: its error comes with CloseAndRecv
		}
	}
	_, err = stream.CloseAndRecv()
	return err
}

func TestArtifactMemoryIsBoundedAcrossSessions(t *testing.T) {
	ts := newTestServer(t, WithArtifactMemoryLimit(1000))
	a, b := newUUID(), newUUID()
	data := bytes.Repeat([]byte("x"), 600)
	if err := upload(t, ts, a, "cache/a", data, 100, 600); err != nil {
		t.Fatal(err)
	}
	if got := ts.srv.artifactMemory.used(); got != 600 {
		t.Fatalf("held after a cached upload: %d", got)
	}
	// Another session's upload would pass the server's limit: refused, nothing more held.
	err := upload(t, ts, b, "cache/b", data, 100, 600)
	if err == nil || !strings.Contains(err.Error(), "UNABLE_TO_ACQUIRE_MEMORY") {
		t.Fatalf("upload past the limit: %v", err)
	}
	if got := ts.srv.artifactMemory.used(); got != 600 {
		t.Fatalf("held after a refused upload: %d", got)
	}
	// Replacing an artifact counts it once; a file artifact (written to disk) is released.
	if err := upload(t, ts, a, "cache/a", data[:300], 100, 300); err != nil {
		t.Fatal(err)
	}
	if got := ts.srv.artifactMemory.used(); got != 300 {
		t.Fatalf("held after replacing: %d", got)
	}
	// Releasing the session gives its artifacts' memory back; the other session can upload.
	if _, err := ts.client.ReleaseSession(context.Background(), &pb.ReleaseSessionRequest{SessionId: a, UserContext: userCtx()}); err != nil {
		t.Fatal(err)
	}
	if got := ts.srv.artifactMemory.used(); got != 0 {
		t.Fatalf("held after release: %d", got)
	}
	if err := upload(t, ts, b, "cache/b", data, 100, 600); err != nil {
		t.Fatal(err)
	}
}

func TestChunkedArtifactMustKeepItsDeclaredShape(t *testing.T) {
	ts := newTestServer(t, WithArtifactMemoryLimit(1<<20))
	sid := newUUID()
	data := bytes.Repeat([]byte("y"), 500)
	if err := upload(t, ts, sid, "cache/c", data, 100, 200); err == nil || !strings.Contains(err.Error(), "more than the 200 bytes declared") {
		t.Fatalf("more bytes than declared: %v", err)
	}
	if got := ts.srv.artifactMemory.used(); got != 0 {
		t.Fatalf("a refused upload still holds %d bytes", got)
	}
	// A client declaring a huge size does not get it reserved up front.
	if err := upload(t, ts, sid, "cache/d", data, 100, 1<<40); err != nil {
		t.Fatal(err)
	}
	if got := ts.srv.artifactMemory.used(); got != 500 {
		t.Fatalf("held: %d", got)
	}
}
