package connect

import (
	"context"
	"path"

	"github.com/weirhq/weir/metrics"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// WithMetrics reports the server's sessions, operations, RPCs, errors and bytes, and every
// session's streaming query progress, to r (package metrics).
func WithMetrics(r *metrics.Registry) Option { return func(o *options) { o.metrics = r } }

// observeSessions adds the metrics' query listener to a new session's query manager.
func (o *options) observeSessions(sess *session) {
	if o.metrics == nil {
		return
	}
	if eng, ok := sess.engine.(StreamingEngine); ok {
		eng.Streams().AddListener(o.metrics.QueryListener())
	}
}

// serverStats counts the live sessions and the executions they hold, at a scrape.
func (m *sessionManager) serverStats() metrics.ServerStats {
	var st metrics.ServerStats
	for _, sess := range m.all() {
		st.Sessions++
		sess.mu.Lock()
		st.Operations += len(sess.executions)
		sess.mu.Unlock()
	}
	return st
}

// metricsServerOptions are the interceptors and stats handler that count RPCs, errors and
// message bytes (none without WithMetrics). They run outermost, so they see auth failures and
// recovered panics too.
func (s *Server) metricsServerOptions() (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor, []grpc.ServerOption) {
	r := s.opts.metrics
	if r == nil {
		return nil, nil, nil
	}
	unary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		method := path.Base(info.FullMethod)
		r.RPC(method)
		resp, err := handler(ctx, req)
		if err != nil {
			r.Error(method, errorClass(err))
		}
		return resp, err
	}
	stream := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		method := path.Base(info.FullMethod)
		r.RPC(method)
		err := handler(srv, ss)
		if err != nil {
			r.Error(method, errorClass(err))
		}
		return err
	}
	return unary, stream, []grpc.ServerOption{grpc.StatsHandler(byteCounter{r})}
}

// errorClass is the label a failed RPC is counted under: the Spark error class of its
// ErrorInfo, else the ErrorInfo's reason (the Java exception class), else the gRPC code.
func errorClass(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			if c := info.GetMetadata()["errorClass"]; c != "" {
				return c
			}
			if info.GetReason() != "" {
				return info.GetReason()
			}
		}
	}
	return st.Code().String()
}

// byteCounter is a gRPC stats handler counting request and response message bytes.
type byteCounter struct{ r *metrics.Registry }

func (byteCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (byteCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (byteCounter) HandleConn(context.Context, stats.ConnStats)                       {}

func (b byteCounter) HandleRPC(_ context.Context, s stats.RPCStats) {
	switch p := s.(type) {
	case *stats.InPayload:
		b.r.Received(p.WireLength)
	case *stats.OutPayload:
		b.r.Sent(p.WireLength)
	}
}
