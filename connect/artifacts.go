package connect

import (
	"context"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"sync"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sparkerr"
	"google.golang.org/grpc"
)

// cachePrefix names artifacts that hold cached local relations ("cache/<sha256>").
const cachePrefix = "cache/"

// artifactStore holds a session's artifacts. Cached relations stay in memory; other artifacts
// (files, jars, pyfiles, archives) go under dir when it is set, else memory.
type artifactStore struct {
	dir   string
	quota *artifactMemory // counts the bytes in mem (shared by all sessions)

	mu    sync.Mutex
	mem   map[string][]byte
	files map[string]bool
}

func newArtifactStore(dir string, quota *artifactMemory) *artifactStore {
	return &artifactStore{dir: dir, quota: quota, mem: map[string][]byte{}, files: map[string]bool{}}
}

// validArtifactName rejects names that could escape the session's directory.
func validArtifactName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return sparkerr.IllegalArgument("Invalid artifact name %q.", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return sparkerr.IllegalArgument("Invalid artifact name %q.", name)
		}
	}
	return nil
}

// put stores an artifact. data's bytes are already reserved in s.quota (received); put keeps
// the reservation of what stays in memory and releases the rest.
func (s *artifactStore) put(name string, data []byte) error {
	if err := validArtifactName(name); err != nil {
		s.quota.release(int64(len(data)))
		return err
	}
	if s.dir != "" && !strings.HasPrefix(name, cachePrefix) {
		defer s.quota.release(int64(len(data)))
	}
	if s.dir != "" && !strings.HasPrefix(name, cachePrefix) {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return sparkerr.Internal("cannot store artifact %s: %v", name, err).Wrap(err)
		}
		// Resolved under the session's directory: a name that leads out of it (through a
		// link) is refused like one with "..".
		path, err := fileaccess.ResolveWithin(s.dir, name)
		if err != nil {
			return sparkerr.IllegalArgument("Invalid artifact name %q.", name)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return sparkerr.Internal("cannot store artifact %s: %v", name, err).Wrap(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return sparkerr.Internal("cannot store artifact %s: %v", name, err).Wrap(err)
		}
		s.mu.Lock()
		s.files[name] = true
		s.mu.Unlock()
		return nil
	}
	s.mu.Lock()
	old, replaced := s.mem[name]
	s.mem[name] = data
	s.mu.Unlock()
	if replaced {
		s.quota.release(int64(len(old)))
	}
	return nil
}

func (s *artifactStore) exists(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, inMem := s.mem[name]
	return inMem || s.files[name]
}

// cached returns the bytes of the cached-relation artifact "cache/<hash>".
func (s *artifactStore) cached(hash string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.mem[cachePrefix+hash]
	return b, ok
}

// drop forgets every artifact (session end).
func (s *artifactStore) drop() {
	s.mu.Lock()
	var held int64
	for _, b := range s.mem {
		held += int64(len(b))
	}
	s.mem = map[string][]byte{}
	s.files = map[string]bool{}
	s.mu.Unlock()
	s.quota.release(held)
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

func crcMatches(c *pb.AddArtifactsRequest_ArtifactChunk) bool {
	return int64(crc32.ChecksumIEEE(c.GetData())) == c.GetCrc()
}

// pendingArtifact is a chunked artifact being received; its bytes so far are reserved in the
// server's artifact memory.
type pendingArtifact struct {
	name       string
	numChunks  int64
	totalBytes int64 // as the client declared it (0: not declared)
	received   int64
	crcOK      bool
	data       []byte
}

// maxArtifactPrealloc caps the buffer reserved up front for a chunked artifact from its declared
// size: the rest grows as chunks arrive (and as the artifact memory admits them).
const maxArtifactPrealloc = 64 << 20

// AddArtifacts receives artifacts (single-chunk batches and chunked ones) into the session.
// An artifact whose CRC does not match is reported and not stored. What an upload holds in
// memory is counted in the server's artifact memory as it arrives (artifactMemory).
func (s *Server) AddArtifacts(stream grpc.ClientStreamingServer[pb.AddArtifactsRequest, pb.AddArtifactsResponse]) error {
	var (
		sess      *session
		summaries []*pb.AddArtifactsResponse_ArtifactSummary
		pending   *pendingArtifact
	)
	defer func() {
		if pending != nil { // an upload cut short or refused
			s.artifactMemory.release(int64(len(pending.data)))
		}
	}()
	// receive counts a chunk of the pending artifact.
	receive := func(c *pb.AddArtifactsRequest_ArtifactChunk) error {
		n := int64(len(c.GetData()))
		if pending.totalBytes > 0 && int64(len(pending.data))+n > pending.totalBytes {
			return sparkerr.IllegalArgument("Artifact %s: more than the %d bytes declared.", pending.name, pending.totalBytes)
		}
		if err := s.artifactMemory.reserve(n); err != nil {
			return err
		}
		pending.crcOK = pending.crcOK && crcMatches(c)
		pending.data = append(pending.data, c.GetData()...)
		return nil
	}
	finishPending := func() error {
		if pending == nil {
			return nil
		}
		p := pending
		pending = nil
		if p.received != p.numChunks {
			s.artifactMemory.release(int64(len(p.data)))
			return sparkerr.IllegalArgument("Artifact %s: expected %d chunks, received %d.", p.name, p.numChunks, p.received)
		}
		if p.crcOK {
			if err := sess.artifacts.put(p.name, p.data); err != nil {
				return err
			}
		} else {
			s.artifactMemory.release(int64(len(p.data)))
		}
		summaries = append(summaries, &pb.AddArtifactsResponse_ArtifactSummary{Name: p.name, IsCrcSuccessful: p.crcOK})
		return nil
	}
	for {
		req, err := stream.Recv()
		if err != nil {
			if isEOF(err) {
				break
			}
			return err
		}
		if sess == nil {
			sess, err = s.sessions.getOrCreate(stream.Context(), req)
			if err != nil {
				return toStatus(nil, err)
			}
		}
		switch p := req.GetPayload().(type) {
		case *pb.AddArtifactsRequest_Batch_:
			if err := finishPending(); err != nil {
				return toStatus(sess, err)
			}
			for _, a := range p.Batch.GetArtifacts() {
				ok := crcMatches(a.GetData())
				if ok {
					if err := s.artifactMemory.reserve(int64(len(a.GetData().GetData()))); err != nil {
						return toStatus(sess, err)
					}
					if err := sess.artifacts.put(a.GetName(), a.GetData().GetData()); err != nil {
						return toStatus(sess, err)
					}
				}
				summaries = append(summaries, &pb.AddArtifactsResponse_ArtifactSummary{Name: a.GetName(), IsCrcSuccessful: ok})
			}
		case *pb.AddArtifactsRequest_BeginChunk:
			if err := finishPending(); err != nil {
				return toStatus(sess, err)
			}
			b := p.BeginChunk
			if err := validArtifactName(b.GetName()); err != nil {
				return toStatus(sess, err)
			}
			if b.GetNumChunks() < 1 || b.GetTotalBytes() < 0 {
				return toStatus(sess, sparkerr.IllegalArgument("Artifact %s: invalid chunk count %d or size %d.",
					b.GetName(), b.GetNumChunks(), b.GetTotalBytes()))
			}
			pending = &pendingArtifact{name: b.GetName(), numChunks: b.GetNumChunks(), totalBytes: b.GetTotalBytes(),
				received: 1, crcOK: true}
			if t := b.GetTotalBytes(); t > 0 {
				pending.data = make([]byte, 0, min(t, maxArtifactPrealloc))
			}
			if err := receive(b.GetInitialChunk()); err != nil {
				return toStatus(sess, err)
			}
		case *pb.AddArtifactsRequest_Chunk:
			if pending == nil {
				return toStatus(sess, sparkerr.IllegalArgument("Received an artifact chunk without a preceding begin_chunk."))
			}
			if pending.received++; pending.received > pending.numChunks {
				return toStatus(sess, sparkerr.IllegalArgument("Artifact %s: more than the %d chunks declared.",
					pending.name, pending.numChunks))
			}
			if err := receive(p.Chunk); err != nil {
				return toStatus(sess, err)
			}
		default:
			return toStatus(sess, invalidPlan("AddArtifactsRequest has no payload."))
		}
		if pending != nil && pending.received == pending.numChunks {
			if err := finishPending(); err != nil {
				return toStatus(sess, err)
			}
		}
	}
	if sess == nil {
		return toStatus(nil, invalidPlan("AddArtifacts stream carried no request."))
	}
	if err := finishPending(); err != nil {
		return toStatus(sess, err)
	}
	return stream.SendAndClose(&pb.AddArtifactsResponse{
		SessionId:           sess.id,
		ServerSideSessionId: sess.serverSideID,
		Artifacts:           summaries,
	})
}

// ArtifactStatus reports which of the named artifacts the session holds.
func (s *Server) ArtifactStatus(ctx context.Context, req *pb.ArtifactStatusesRequest) (*pb.ArtifactStatusesResponse, error) {
	sess, err := s.sessions.getOrCreate(ctx, req)
	if err != nil {
		return nil, toStatus(nil, err)
	}
	statuses := make(map[string]*pb.ArtifactStatusesResponse_ArtifactStatus, len(req.GetNames()))
	for _, name := range req.GetNames() {
		statuses[name] = &pb.ArtifactStatusesResponse_ArtifactStatus{Exists: sess.artifacts.exists(name)}
	}
	return &pb.ArtifactStatusesResponse{
		SessionId:           sess.id,
		ServerSideSessionId: sess.serverSideID,
		Statuses:            statuses,
	}, nil
}
