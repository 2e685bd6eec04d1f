package connect

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// workerEndpoint is the loopback Spark Connect endpoint the server's own Python workers connect
// to as clients of the session they work for (a foreachBatch function reads its epoch's
// DataFrame and writes wherever it likes through it), as Spark's workers use
// SPARK_CONNECT_LOCAL_URL. It serves the same service as the client port, without TLS and on
// 127.0.0.1 only, and admits only bearer tokens the server issued to one worker each: a token
// authenticates as the owner of its session, so the worker can join that session (its
// session_id and user_id are in its URL) and no other owner's.
type workerEndpoint struct {
	mu     sync.Mutex
	addr   string // "localhost:PORT" while serving
	tokens map[principal]*session
}

// serve starts the endpoint on a fresh loopback port; it stops when ctx ends. The returned
// function waits for it to stop.
func (e *workerEndpoint) serve(ctx context.Context, s *Server) (wait func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("connect: listening for Python workers: %w", err)
	}
	unary, stream := authInterceptors(e.authenticate)
	gs := grpc.NewServer(
		grpc.MaxRecvMsgSize(s.opts.maxInbound),
		grpc.MaxSendMsgSize(maxMessageSize),
		grpc.ChainUnaryInterceptor(s.recoverUnary, unary),
		grpc.ChainStreamInterceptor(s.recoverStream, stream),
	)
	pb.RegisterSparkConnectServiceServer(gs, s)
	e.mu.Lock()
	e.addr = fmt.Sprintf("localhost:%d", ln.Addr().(*net.TCPAddr).Port)
	if e.tokens == nil {
		e.tokens = map[principal]*session{}
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = gs.Serve(ln)
	}()
	stop := context.AfterFunc(ctx, gs.Stop)
	return func() {
		<-done
		stop()
		e.mu.Lock()
		e.addr = ""
		e.mu.Unlock()
	}, nil
}

// workerTokenHeader carries a worker's token: PySpark's ChannelBuilder sends every URL parameter
// it does not know as request metadata, in 3.5 as in 4.x, whereas a token= parameter makes 3.5
// insist on TLS (4.x sends it in plaintext to localhost).
const workerTokenHeader = "x-weir-worker-token"

// authenticate admits a token issued by issue (in workerTokenHeader, or as a bearer token) and
// answers as its session's owner.
func (e *workerEndpoint) authenticate(ctx context.Context) (context.Context, error) {
	var tok string
	if md, _ := metadata.FromIncomingContext(ctx); len(md.Get(workerTokenHeader)) > 0 {
		tok = md.Get(workerTokenHeader)[0]
	} else {
		var err error
		if tok, err = bearerToken(ctx); err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	sess, ok := e.tokens[principal(sha256.Sum256([]byte(tok)))]
	e.mu.Unlock()
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "Invalid authentication token")
	}
	return context.WithValue(ctx, principalKey{}, sess.owner), nil
}

// issue makes a token for one worker of sess and returns the URL the worker connects with
// (SPARK_CONNECT_LOCAL_URL, without the session id the worker appends) and a function that
// revokes the token.
func (e *workerEndpoint) issue(sess *session) (url string, revoke func(), err error) {
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return "", nil, err
	}
	if strings.ContainsAny(sess.userID, ";=/") {
		return "", nil, sparkerr.Unsupported("Python workers cannot join a session whose user id %q contains ';', '=' or '/'", sess.userID)
	}
	tok := hex.EncodeToString(key[:])
	id := principal(sha256.Sum256([]byte(tok)))
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.addr == "" {
		return "", nil, sparkerr.Internal("the server's endpoint for Python workers is not running")
	}
	e.tokens[id] = sess
	// No token= and no use_ssl: every PySpark release connects in plaintext and sends the
	// unknown parameter as metadata.
	url = fmt.Sprintf("sc://%s/;user_id=%s;%s=%s", e.addr, sess.userID, workerTokenHeader, tok)
	return url, func() {
		e.mu.Lock()
		delete(e.tokens, id)
		e.mu.Unlock()
	}, nil
}
