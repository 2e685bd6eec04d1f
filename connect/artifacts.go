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
	dir string

	mu    sync.Mutex
	mem   map[string][]byte
	files map[string]bool
}

func newArtifactStore(dir string) *artifactStore {
	return &artifactStore{dir: dir, mem: map[string][]byte{}, files: map[string]bool{}}
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

func (s *artifactStore) put(name string, data []byte) error {
	if err := validArtifactName(name); err != nil {
		return err
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
	s.mem[name] = data
	s.mu.Unlock()
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
	s.mem = map[string][]byte{}
	s.files = map[string]bool{}
	s.mu.Unlock()
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

func crcMatches(c *pb.AddArtifactsRequest_ArtifactChunk) bool {
	return int64(crc32.ChecksumIEEE(c.GetData())) == c.GetCrc()
}

// pendingArtifact is a chunked artifact being received.
type pendingArtifact struct {
	name      string
	numChunks int64
	received  int64
	crcOK     bool
	data      []byte
}

// AddArtifacts receives artifacts (single-chunk batches and chunked ones) into the session.
// An artifact whose CRC does not match is reported and not stored.
func (s *Server) AddArtifacts(stream grpc.ClientStreamingServer[pb.AddArtifactsRequest, pb.AddArtifactsResponse]) error {
	var (
		sess      *session
		summaries []*pb.AddArtifactsResponse_ArtifactSummary
		pending   *pendingArtifact
	)
	finishPending := func() error {
		if pending == nil {
			return nil
		}
		p := pending
		pending = nil
		if p.received != p.numChunks {
			return sparkerr.IllegalArgument("Artifact %s: expected %d chunks, received %d.", p.name, p.numChunks, p.received)
		}
		if p.crcOK {
			if err := sess.artifacts.put(p.name, p.data); err != nil {
				return err
			}
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
			pending = &pendingArtifact{name: b.GetName(), numChunks: b.GetNumChunks(), received: 1,
				crcOK: crcMatches(b.GetInitialChunk())}
			if b.GetTotalBytes() > 0 && b.GetTotalBytes() <= 1<<30 {
				pending.data = make([]byte, 0, b.GetTotalBytes())
			}
			pending.data = append(pending.data, b.GetInitialChunk().GetData()...)
		case *pb.AddArtifactsRequest_Chunk:
			if pending == nil {
				return toStatus(sess, sparkerr.IllegalArgument("Received an artifact chunk without a preceding begin_chunk."))
			}
			pending.received++
			pending.crcOK = pending.crcOK && crcMatches(p.Chunk)
			pending.data = append(pending.data, p.Chunk.GetData()...)
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
