// Command weir runs Weir's Spark Connect server.
//
//	weir [server] [--listen HOST:PORT] [--state-dir DIR] [--token T] [--tls-cert F --tls-key F]
//	     [--spark-version V]
//
// Environment: WEIR_LISTEN, WEIR_STATE_DIR, WEIR_TOKEN (flags override them). Logs go to
// stderr; stdout stays free for query output.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/weirhq/weir/connect"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "weir:", err)
		os.Exit(1)
	}
}

func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "server" {
		args = args[1:]
	}
	fs := flag.NewFlagSet("weir", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	listen := fs.String("listen", envOr("WEIR_LISTEN", "127.0.0.1:15002"), "address to serve Spark Connect on (HOST:PORT)")
	stateDir := fs.String("state-dir", envOr("WEIR_STATE_DIR", "./weir-state"), "directory for server state")
	token := fs.String("token", envOr("WEIR_TOKEN", ""), "bearer token clients must present (sc://host/;token=...)")
	tlsCert := fs.String("tls-cert", "", "TLS certificate file (PEM)")
	tlsKey := fs.String("tls-key", "", "TLS key file (PEM)")
	sparkVersion := fs.String("spark-version", connect.DefaultSparkVersion, "Spark version reported to clients")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	opts := []connect.Option{
		connect.WithLogger(logger),
		connect.WithStateDir(*stateDir),
		connect.WithSparkVersion(*sparkVersion),
	}
	if *token != "" {
		opts = append(opts, connect.WithToken(*token))
	}
	if *tlsCert != "" || *tlsKey != "" {
		opts = append(opts, connect.WithTLS(*tlsCert, *tlsKey))
	}
	srv, err := connect.NewServer(opts...)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("listening", "address", lis.Addr().String(), "spark_version", *sparkVersion,
		"tls", *tlsCert != "", "auth", *token != "")
	if err := srv.Serve(ctx, lis); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
