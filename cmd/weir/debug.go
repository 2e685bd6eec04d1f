package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveDebug serves Go's runtime profiles (/debug/pprof/: goroutines, heap, CPU) on lis until
// ctx ends. It is off unless --debug-listen is given; the load test (bench/load.py) reads the
// goroutine count from it. Anyone who reaches it can read the server's memory layout and
// stacks: keep it on loopback.
func serveDebug(ctx context.Context, lis net.Listener, logger *slog.Logger) (stop func()) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("debug listener stopped", "error", err)
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	}
}
