package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// serveDebug serves Go's runtime profiles (/debug/pprof/: goroutines, heap, CPU) on lis until
// stop is called (serveHTTP, plain HTTP). It is off unless --debug-listen is given; the load test
// (bench/load.py) reads the goroutine count from it. Anyone who reaches it can read the server's
// memory layout and stacks: keep it on loopback.
func serveDebug(ctx context.Context, lis net.Listener, logger *slog.Logger) (stop func()) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return serveHTTP(ctx, lis, mux, "", "", logger)
}
