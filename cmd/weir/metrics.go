package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// serveMetrics serves h (the metrics registry's handler, which checks the bearer token) on
// /metrics of lis until the returned stop is called; with certFile it serves HTTPS with the
// Spark Connect port's certificate, so a scrape's token never travels in the clear when
// clients' do not.
func serveMetrics(ctx context.Context, lis net.Listener, h http.Handler, certFile, keyFile string, logger *slog.Logger) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	return serveHTTP(ctx, lis, mux, certFile, keyFile, logger.With("listener", "metrics"))
}

// serveHTTP serves h on lis (HTTPS with certFile) until the returned stop is called.
func serveHTTP(ctx context.Context, lis net.Listener, h http.Handler, certFile, keyFile string, logger *slog.Logger) (stop func()) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if certFile != "" {
			err = srv.ServeTLS(lis, certFile, keyFile)
		} else {
			err = srv.Serve(lis)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("HTTP listener stopped", "error", err)
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	}
}
