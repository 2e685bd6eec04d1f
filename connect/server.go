package connect

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
)

// maxMessageSize is the default of Spark's spark.connect.grpc.maxInboundMessageSize (see
// WithMaxInboundMessageSize) and the PySpark client's channel limits; responses are held to it.
const maxMessageSize = 128 << 20

// shutdownGrace is how long Serve waits for RPCs to finish once its context ends.
const shutdownGrace = 10 * time.Second

// Server is the Spark Connect service.
type Server struct {
	pb.UnsafeSparkConnectServiceServer

	opts     options
	sessions *sessionManager
	// artifactMemory bounds the bytes all sessions' artifacts hold in memory.
	artifactMemory *artifactMemory
	// workers is the loopback endpoint the server's Python workers connect to (Serve runs it).
	workers workerEndpoint

	convertRelation func(*pb.Relation) (plan.Relation, error)
	convertCommand  func(*pb.Command) (plan.Command, error)
	schemaToProto   func(sqltypes.Schema) *pb.DataType
	dataTypeToProto func(sqltypes.DataType) *pb.DataType
	parseStatement  func(ctx context.Context, text string, named map[string]plan.Expr, positional []plan.Expr) (plan.Command, error)
}

// NewServer builds a server from options.
func NewServer(opts ...Option) (*Server, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, errors.New("connect: TLS needs both a certificate and a key file")
	}
	if o.stateDir != "" {
		if err := os.MkdirAll(o.stateDir, 0o755); err != nil {
			return nil, err
		}
		// Batch overwrites a crash interrupted: restore or remove what they left.
		if err := connectors.Recover(context.Background(), o.stateDir); err != nil {
			o.logger.Warn("cleaning up interrupted overwrites", "error", err)
		}
	}
	// The one file-access policy of every session: the process's working and home directories,
	// the state dir and the data roots, resolved now.
	// The persistent catalog and the warehouse of managed tables live in the state dir.
	var catalogDir, warehouse string
	if o.stateDir != "" {
		catalogDir, warehouse = filepath.Join(o.stateDir, "catalog"), filepath.Join(o.stateDir, "warehouse")
		if err := os.MkdirAll(warehouse, 0o755); err != nil {
			return nil, err
		}
	}
	if err := engine.CheckServerConf(o.conf); err != nil {
		return nil, err
	}
	files, err := fileaccess.New(fileaccess.Config{Roots: o.dataRoots, StateDir: o.stateDir, Warehouse: warehouse})
	if err != nil {
		return nil, err
	}
	if o.newEngine == nil {
		tables, err := metastore.Open(catalogDir)
		if err != nil {
			return nil, err
		}
		// The checkpoint locations running queries hold, shared by every session of this server.
		locations := query.NewLocations()
		persisted, err := newPersistStore(files)
		if err != nil {
			return nil, err
		}
		// Global temporary views (global_temp.<name>) are the server's, as Spark's.
		global := engine.NewGlobalTempViews()
		o.newEngine = func(user string) EngineSession {
			return engine.NewSession(engine.WithFileAccess(files), engine.WithCheckpointLocations(locations),
				engine.WithPersistStore(persisted),
				engine.WithPython(o.python), engine.WithUser(user), engine.WithSparkVersion(o.sparkVersion),
				engine.WithMetastore(tables), engine.WithGlobalTempViews(global), engine.WithConf(o.conf...))
		}
	}
	s := &Server{
		opts:            o,
		convertRelation: protoconv.Relation,
		convertCommand:  protoconv.Command,
		schemaToProto:   protoconv.SchemaToProto,
		dataTypeToProto: protoconv.DataTypeToProto,
		parseStatement:  parser.ParseStatementContext,
	}
	s.artifactMemory = newArtifactMemory(o.artifactMemoryLimit)
	s.sessions = newSessionManager(&s.opts, s.artifactMemory)
	if o.metrics != nil {
		o.metrics.SetServerStats(s.sessions.serverStats)
	}
	return s, nil
}

// newPersistStore is the store of the server's persisted and checkpointed rows, spilling into
// the state directory's scratch area (emptied first: its files belonged to an earlier process;
// the state directory is one server's) or, without a state directory, the system's temporary
// directory.
func newPersistStore(files *fileaccess.Policy) (*engine.PersistStore, error) {
	scratch := files.ScratchDir()
	if scratch == "" {
		return engine.NewPersistStore(""), nil
	}
	dir := filepath.Join(scratch, "persisted")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	return engine.NewPersistStore(dir), nil
}

// grpcServer builds the gRPC server with the service's limits and interceptors.
func (s *Server) grpcServer() (*grpc.Server, error) {
	authUnary, authStream := authInterceptors(s.authenticate)
	unary := []grpc.UnaryServerInterceptor{s.recoverUnary, authUnary}
	stream := []grpc.StreamServerInterceptor{s.recoverStream, authStream}
	metricsUnary, metricsStream, metricsOpts := s.metricsServerOptions()
	if metricsUnary != nil {
		unary = append([]grpc.UnaryServerInterceptor{metricsUnary}, unary...)
		stream = append([]grpc.StreamServerInterceptor{metricsStream}, stream...)
	}
	sopts := []grpc.ServerOption{
		// A larger request fails with RESOURCE_EXHAUSTED before its body is read, as Spark's
		// (gRPC's) limit does.
		grpc.MaxRecvMsgSize(s.opts.maxInbound),
		grpc.MaxSendMsgSize(maxMessageSize),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
	}
	sopts = append(sopts, metricsOpts...)
	if s.opts.tlsCert != "" {
		creds, err := credentials.NewServerTLSFromFile(s.opts.tlsCert, s.opts.tlsKey)
		if err != nil {
			return nil, err
		}
		sopts = append(sopts, grpc.Creds(creds))
	}
	gs := grpc.NewServer(sopts...)
	pb.RegisterSparkConnectServiceServer(gs, s)
	return gs, nil
}

// Serve serves on lis until ctx ends, then cancels every session's operations and stops
// gracefully (forcibly after a grace period).
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	gs, err := s.grpcServer()
	if err != nil {
		return err
	}
	// The endpoint for Python workers stops after every session (so every query and worker).
	wctx, stopWorkers := context.WithCancel(context.Background())
	waitWorkers, err := s.workers.serve(wctx, s)
	if err != nil {
		stopWorkers()
		return err
	}
	defer func() {
		stopWorkers()
		waitWorkers()
	}()
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	ticker := time.NewTicker(s.opts.reapInterval)
	defer ticker.Stop()
	for {
		select {
		case err := <-served:
			s.sessions.closeAll()
			return err
		case <-ticker.C:
			s.sessions.reap()
		case <-ctx.Done():
			s.sessions.closeAll()
			stopped := make(chan struct{})
			go func() { gs.GracefulStop(); close(stopped) }()
			select {
			case <-stopped:
			case <-time.After(shutdownGrace):
				gs.Stop()
			}
			<-served
			return nil
		}
	}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// panicError turns a recovered panic into an internal error (and logs it with its stack).
func (s *Server) panicError(method string, r any) error {
	s.opts.logger.Error("panic in handler", "method", method, "panic", r, "stack", string(debug.Stack()))
	return toStatus(nil, sparkerr.Internal("The server failed while handling %s: %v", method, r))
}

func (s *Server) recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, s.panicError(info.FullMethod, r)
		}
	}()
	return handler(ctx, req)
}

func (s *Server) recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = s.panicError(info.FullMethod, r)
		}
	}()
	return handler(srv, ss)
}
