// Command weir runs Weir's Spark Connect server.
//
//	weir [server] [--listen HOST:PORT] [--state-dir DIR] [--token T[,T...]]... [--insecure]
//	     [--tls-cert F --tls-key F] [--spark-version V] [--max-inbound-message-size SIZE]
//	     [--data-root DIR]... [--debug-listen HOST:PORT] [--metrics-listen HOST:PORT]
//	     [--ui-listen HOST:PORT] [--gc-heap-floor SIZE] [--log-format text|json]
//	weir --version
//
// Environment: WEIR_LISTEN, WEIR_STATE_DIR, WEIR_TOKEN (comma-separated), WEIR_DATA_ROOTS
// (":"-separated), WEIR_LOG_FORMAT; flags override them. Logs go to stderr, as slog's text
// (logfmt) or JSON lines; stdout stays free for query output.
//
// A non-loopback --listen address needs --token (or --insecure); each client may hold its own
// token, and a session serves only the token and user id that created it. --metrics-listen
// serves Prometheus metrics (package metrics) on /metrics under the same rule: a non-loopback
// address needs --token or --insecure, and with tokens a scrape must send one as a bearer
// token (over HTTPS when --tls-cert is given). --ui-listen serves the web UI (package ui)
// under the same rule; its API takes the same bearer tokens, and a token sees the sessions it
// created.
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
	"runtime"
	"strings"
	"syscall"

	"github.com/weirhq/weir/connect"
	"github.com/weirhq/weir/metrics"
	"github.com/weirhq/weir/ui"

	// Every connector registers its formats.
	_ "github.com/weirhq/weir/connectors/all"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
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
	tokens       tokenList
	insecure     bool
	tlsCert      string
	tlsKey       string
	sparkVersion string
	dataRoots    []string
	debugListen  string
	// metricsListen is --metrics-listen ("" = no metrics endpoint).
	metricsListen string
	// uiListen is --ui-listen ("" = no web UI).
	uiListen   string
	maxInbound int
	// heapFloor is the size of the garbage collector's heap floor (heap_floor.go; 0: none).
	heapFloor int64
	// logFormat is "text" or "json"; showVersion asks for the version line instead of serving.
	logFormat   string
	showVersion bool
	// python is the interpreter of the server's Python workers (PYSPARK_PYTHON).
	python string
	// conf are the --conf KEY=VALUE pairs: Spark configuration every session starts with.
	conf [][2]string
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
	flagTokens := false
	fs := flag.NewFlagSet("weir", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", envOr("WEIR_LISTEN", "127.0.0.1:15002"), "address to serve Spark Connect on (HOST:PORT)")
	fs.StringVar(&c.stateDir, "state-dir", envOr("WEIR_STATE_DIR", "./weir-state"), "directory for server state")
	if err := c.tokens.Set(getenv("WEIR_TOKEN")); err != nil {
		return config{}, err
	}
	fs.Func("token", "bearer token clients must present (sc://host/;token=...); repeatable, comma-separated", func(v string) error {
		if !flagTokens {
			c.tokens, flagTokens = nil, true // flags replace WEIR_TOKEN
		}
		return c.tokens.Set(v)
	})
	fs.BoolVar(&c.insecure, "insecure", false, "allow a non-loopback --listen address without --token")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate file (PEM)")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS key file (PEM)")
	fs.StringVar(&c.sparkVersion, "spark-version", connect.DefaultSparkVersion, "Spark version reported to clients")
	var roots dirList
	fs.Var(&roots, "data-root", "directory clients may read and write files under (repeatable; default: anywhere)")
	fs.StringVar(&c.debugListen, "debug-listen", "", "serve Go's runtime profiles (/debug/pprof/) on HOST:PORT; off by default, keep it on loopback")
	fs.StringVar(&c.metricsListen, "metrics-listen", envOr("WEIR_METRICS_LISTEN", ""), "serve Prometheus metrics on http(s)://HOST:PORT/metrics; off by default, same token rules as --listen")
	fs.StringVar(&c.uiListen, "ui-listen", envOr("WEIR_UI_LISTEN", ""), "serve the web UI (streaming charts, sessions, cancel) on http(s)://HOST:PORT/; off by default, same token rules as --listen")
	fs.StringVar(&c.python, "python", envOr("PYSPARK_PYTHON", "python3"), "Python interpreter (with PySpark) for the server's Python workers")
	fs.StringVar(&c.logFormat, "log-format", envOr("WEIR_LOG_FORMAT", "text"), "log line format on stderr: text (logfmt) or json")
	fs.BoolVar(&c.showVersion, "version", false, "print the version and exit")
	fs.Func("conf", "Spark configuration every session starts with, KEY=VALUE (repeatable; e.g. spark.sql.catalog.NAME.uri=http://...)", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("--conf takes KEY=VALUE, got %q", v)
		}
		c.conf = append(c.conf, [2]string{strings.TrimSpace(k), val})
		return nil
	})
	fs.Func("max-inbound-message-size", "largest request message, Spark's spark.connect.grpc.maxInboundMessageSize (e.g. 128m, the default)", func(v string) error {
		n, err := parseMessageSize(v)
		c.maxInbound = n
		return err
	})
	c.heapFloor = -1
	fs.Func("gc-heap-floor", "heap the garbage collector lets grow before collecting, at least (e.g. 256m; 0: Go's default; default min(256m, memory/16))", func(v string) error {
		n, err := parseHeapFloor(v)
		c.heapFloor = n
		return err
	})
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if c.heapFloor < 0 {
		c.heapFloor = defaultHeapFloor()
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
	if c.logFormat != "text" && c.logFormat != "json" {
		return config{}, fmt.Errorf("--log-format must be text or json, got %q", c.logFormat)
	}
	return c, nil
}

// newLogger is the server's logger on w in the configured format.
func newLogger(c config, w io.Writer) *slog.Logger {
	if c.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// run serves until ctx ends (with --version, prints the version on stdout and returns).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	if c.showVersion {
		_, err := fmt.Fprintln(stdout, versionString(c.sparkVersion))
		return err
	}
	logger := newLogger(c, stderr)
	if err := checkExposure(c, logger); err != nil {
		return err
	}
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
		connect.WithMaxInboundMessageSize(c.maxInbound),
		connect.WithPython(c.python),
		connect.WithConf(c.conf...),
	}
	var reg *metrics.Registry
	if c.metricsListen != "" {
		reg = metrics.New(buildVersion(), c.sparkVersion)
		opts = append(opts, connect.WithMetrics(reg))
	}
	var history *ui.History
	if c.uiListen != "" {
		history = ui.NewHistory()
		opts = append(opts, connect.WithUI(history))
	}
	if len(c.tokens) > 0 {
		opts = append(opts, connect.WithToken(c.tokens...))
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
	ballast := heapBallast(c.heapFloor)
	defer runtime.KeepAlive(ballast)
	if reg != nil {
		ml, err := net.Listen("tcp", c.metricsListen)
		if err != nil {
			lis.Close()
			return err
		}
		logger.Info("metrics listener", "address", ml.Addr().String(), "tls", c.tlsCert != "", "auth", len(c.tokens) > 0)
		stopMetrics := serveMetrics(context.WithoutCancel(ctx), ml, reg.Handler(c.tokens), c.tlsCert, c.tlsKey, logger)
		defer stopMetrics()
	}
	if history != nil {
		ul, err := net.Listen("tcp", c.uiListen)
		if err != nil {
			lis.Close()
			return err
		}
		logger.Info("ui listener", "address", ul.Addr().String(), "tls", c.tlsCert != "", "auth", len(c.tokens) > 0)
		h := ui.Handler(ui.Config{Backend: srv.UIBackend(), History: history, LoopbackOnly: isLoopback(c.uiListen)})
		stopUI := serveHTTP(context.WithoutCancel(ctx), ul, h, c.tlsCert, c.tlsKey, logger.With("listener", "ui"))
		defer stopUI()
	}
	logger.Info("listening", "address", lis.Addr().String(), "spark_version", c.sparkVersion,
		"tls", c.tlsCert != "", "auth", len(c.tokens) > 0, "data_roots", strings.Join(c.dataRoots, ":"))
	if err := srv.Serve(ctx, lis); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
