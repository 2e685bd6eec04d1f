// Command weir runs Weir's Spark Connect server.
//
//	weir [server] [--listen HOST:PORT] [--state-dir DIR] [--token T] [--tls-cert F --tls-key F]
//	     [--spark-version V] [--data-root DIR]... [--debug-listen HOST:PORT]
//
// Environment: WEIR_LISTEN, WEIR_STATE_DIR, WEIR_TOKEN, WEIR_DATA_ROOTS (":"-separated; flags
// override them). Logs go to stderr as text; stdout stays free for query output.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/weirhq/weir/connect"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "weir:", err)
		os.Exit(1)
	}
}

// config is the server's command-line configuration.
type config struct {
	listen       string
	stateDir     string
	token        string
	tlsCert      string
	tlsKey       string
	sparkVersion string
	dataRoots    []string
	debugListen  string
}

// dirList is a repeatable flag: each use adds a directory.
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, ":") }

func (d *dirList) Set(v string) error {
	if v == "" {
		return fmt.Errorf("empty directory")
	}
	*d = append(*d, v)
	return nil
}

// parseConfig reads flags over environment variables over defaults. "server" as the first
// argument is accepted (and means the same as none).
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	if len(args) > 0 && args[0] == "server" {
		args = args[1:]
	}
	envOr := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var c config
	fs := flag.NewFlagSet("weir", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", envOr("WEIR_LISTEN", "127.0.0.1:15002"), "address to serve Spark Connect on (HOST:PORT)")
	fs.StringVar(&c.stateDir, "state-dir", envOr("WEIR_STATE_DIR", "./weir-state"), "directory for server state")
	fs.StringVar(&c.token, "token", envOr("WEIR_TOKEN", ""), "bearer token clients must present (sc://host/;token=...)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate file (PEM)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS key file (PEM)")
	fs.StringVar(&c.sparkVersion, "spark-version", connect.DefaultSparkVersion, "Spark version reported to clients")
	var roots dirList
	fs.Var(&roots, "data-root", "directory clients may read and write files under (repeatable; default: anywhere)")
	fs.StringVar(&c.debugListen, "debug-listen", "", "serve Go's runtime profiles (/debug/pprof/) on HOST:PORT; off by default, keep it on loopback")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	c.dataRoots = roots
	if len(roots) == 0 {
		for _, r := range strings.Split(getenv("WEIR_DATA_ROOTS"), ":") {
			if r != "" {
				c.dataRoots = append(c.dataRoots, r)
			}
		}
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return c, nil
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	if os.Geteuid() == 0 && len(c.dataRoots) == 0 {
		logger.Warn("running as root without --data-root: clients may read and write any file of this machine " +
			"(only overwrites of /, system, state, working and home directories are refused); run as an " +
			"unprivileged user and pass --data-root DIR")
	}
	opts := []connect.Option{
		connect.WithLogger(logger),
		connect.WithStateDir(c.stateDir),
		connect.WithSparkVersion(c.sparkVersion),
		connect.WithDataRoots(c.dataRoots...),
	}
	if c.token != "" {
		opts = append(opts, connect.WithToken(c.token))
	}
	if c.tlsCert != "" || c.tlsKey != "" {
		opts = append(opts, connect.WithTLS(c.tlsCert, c.tlsKey))
	}
	srv, err := connect.NewServer(opts...)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	if c.debugListen != "" {
		dl, err := net.Listen("tcp", c.debugListen)
		if err != nil {
			lis.Close()
			return err
		}
		logger.Info("debug listener", "address", dl.Addr().String())
		stopDebug := serveDebug(context.WithoutCancel(ctx), dl, logger)
		defer stopDebug()
	}
	logger.Info("listening", "address", lis.Addr().String(), "spark_version", c.sparkVersion,
		"tls", c.tlsCert != "", "auth", c.token != "", "data_roots", strings.Join(c.dataRoots, ":"))
	if err := srv.Serve(ctx, lis); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
