package connect

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// principal is who an RPC authenticated as: the SHA-256 of the bearer token it presented, or
// the zero value when the server requires no token. A session remembers the principal that
// created it and serves no other.
type principal [sha256.Size]byte

type principalKey struct{}

// principalOf returns the principal the auth interceptors put into ctx (zero when none).
func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// same reports whether p and q are the same principal, in constant time.
func (p principal) same(q principal) bool { return subtle.ConstantTimeCompare(p[:], q[:]) == 1 }

// authenticate enforces the bearer token when the server has any: the request must carry
// "authorization: Bearer <t>" with t one of the server's tokens. It returns ctx carrying the
// caller's principal.
func (s *Server) authenticate(ctx context.Context) (context.Context, error) {
	if len(s.opts.tokens) == 0 {
		return ctx, nil
	}
	got, err := bearerToken(ctx)
	if err != nil {
		return nil, err
	}
	p, ok := s.principalFor(got)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "Invalid authentication token")
	}
	return context.WithValue(ctx, principalKey{}, p), nil
}

// principalFor is the principal a bearer token stands for: the zero principal when the server
// requires no token, false when it does and tok is not one of its tokens.
func (s *Server) principalFor(tok string) (principal, bool) {
	if len(s.opts.tokens) == 0 {
		return principal{}, true
	}
	// Compare with every token so the time taken says nothing about which one matched.
	match := 0
	for _, t := range s.opts.tokens {
		match |= subtle.ConstantTimeCompare([]byte(tok), []byte(t))
	}
	if match != 1 {
		return principal{}, false
	}
	return principal(sha256.Sum256([]byte(tok))), true
}

// authInterceptors are the unary and stream interceptors that run auth on every RPC (the
// client port's token check, or the worker endpoint's).
func authInterceptors(auth func(context.Context) (context.Context, error)) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	unary := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := auth(ctx)
		if err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
	stream := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx, err := auth(ss.Context())
		if err != nil {
			return err
		}
		return handler(srv, &authedStream{ServerStream: ss, ctx: ctx})
	}
	return unary, stream
}

// bearerToken is the request's "authorization: Bearer <t>" token.
func bearerToken(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", status.Error(codes.Unauthenticated, "No authentication token provided")
	}
	got, ok := strings.CutPrefix(vals[0], "Bearer ")
	if !ok {
		return "", status.Error(codes.Unauthenticated, "Invalid authentication token")
	}
	return got, nil
}

// authedStream is a server stream whose context carries the caller's principal.
type authedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *authedStream) Context() context.Context { return s.ctx }
