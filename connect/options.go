package connect

import (
	"context"
	"log/slog"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/metrics"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	"github.com/weirhq/weir/ui"
)

// EngineSession is what the service needs from one engine session; *engine.Session satisfies
// it. Tests substitute fakes through WithEngine.
type EngineSession interface {
	Conf() *engine.Conf
	Analyze(ctx context.Context, rel plan.Relation) (logical.Node, error)
	Execute(ctx context.Context, rel plan.Relation) (*engine.Result, error)
	RunCommand(ctx context.Context, cmd plan.Command) (*engine.Result, error)
	Explain(ctx context.Context, rel plan.Relation, mode string) (string, error)
}

var _ EngineSession = (*engine.Session)(nil)

// Option configures a Server.
type Option func(*options)

type options struct {
	tokens           []string
	tlsCert, tlsKey  string
	sparkVersion     string
	sessionTimeout   time.Duration
	detachedTimeout  time.Duration
	reapInterval     time.Duration
	stateDir         string
	dataRoots        []string
	logger           *slog.Logger
	newEngine        func(user string) EngineSession
	replayBytes      int
	maxBatchBytes    int
	maxErrorsPerSess int
	alloc            memory.Allocator
	maxInbound       int
	// artifactMemoryLimit bounds the bytes all sessions' artifacts hold in memory (≤ 0: none).
	artifactMemoryLimit int64
	// python is the interpreter the server's Python workers run (package pyworker); kept for
	// foreachBatch and Python UDFs, which are still refused.
	python string
	// metrics, when set, receives the server's and its queries' metrics (WithMetrics).
	metrics *metrics.Registry
	// uiHistory, when set, records every session's query progress for the web UI (WithUI).
	uiHistory *ui.History
	// conf is the server's Spark configuration (--conf), every session's to start with.
	conf [][2]string
}

// DefaultSparkVersion is the Spark version the server reports unless WithSparkVersion says
// otherwise.
const DefaultSparkVersion = engine.DefaultSparkVersion

func defaultOptions() options {
	return options{
		sparkVersion:     DefaultSparkVersion,
		sessionTimeout:   60 * time.Minute,
		detachedTimeout:  5 * time.Minute,
		reapInterval:     30 * time.Second,
		logger:           slog.New(slog.DiscardHandler),
		replayBytes:      64 << 20,
		maxBatchBytes:    4 << 20,
		maxErrorsPerSess: 64,
		alloc:            memory.DefaultAllocator,
		maxInbound:       maxMessageSize,
		// As much as one query may hold by default: a quarter of what the process may use.
		artifactMemoryLimit: engine.DefaultQueryMemoryBudget(),
		python:              "python3",
	}
}

// WithToken requires every RPC to carry "authorization: Bearer <t>" with t one of the tokens
// given (over all WithToken options; empty tokens are ignored). Different clients can hold
// different tokens; a session serves only the token that created it.
func WithToken(tokens ...string) Option {
	return func(o *options) {
		for _, t := range tokens {
			if t != "" {
				o.tokens = append(o.tokens, t)
			}
		}
	}
}

// WithTLS serves TLS with the certificate and key in these PEM files.
func WithTLS(certFile, keyFile string) Option {
	return func(o *options) { o.tlsCert, o.tlsKey = certFile, keyFile }
}

// WithSparkVersion sets the version AnalyzePlan.spark_version reports.
func WithSparkVersion(v string) Option { return func(o *options) { o.sparkVersion = v } }

// WithSessionTimeout sets how long an idle session lives (default 60 minutes).
func WithSessionTimeout(d time.Duration) Option { return func(o *options) { o.sessionTimeout = d } }

// WithDetachedTimeout sets how long a reattachable execution may stay without a client stream
// before it is cancelled and released (default 5 minutes).
func WithDetachedTimeout(d time.Duration) Option {
	return func(o *options) { o.detachedTimeout = d }
}

// WithStateDir sets the directory where the server keeps session artifacts (files, jars,
// pyfiles). Without it artifacts stay in memory.
func WithStateDir(dir string) Option { return func(o *options) { o.stateDir = dir } }

// WithDataRoots limits the files clients may read and write (file sources and sinks,
// checkpoint locations, overwrites) to these directories and everything under them; repeated
// options add up. Without any, clients may name any path, still under the always-on rules
// (never overwrite the filesystem root, a top-level directory, the state, working or home
// directory; never touch the state directory; see package fileaccess).
func WithDataRoots(dirs ...string) Option {
	return func(o *options) { o.dataRoots = append(o.dataRoots, dirs...) }
}

// WithLogger sets the server's logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithEngine sets the constructor of per-session engine sessions (default engine.NewSession
// with the server's file-access policy: state dir, working and home directories, data roots).
func WithEngine(newSession func() EngineSession) Option {
	return func(o *options) { o.newEngine = func(string) EngineSession { return newSession() } }
}

// WithReplayBuffer sets the bytes of responses an execution buffers for reattachment
// (default 64 MiB).
func WithReplayBuffer(bytes int) Option { return func(o *options) { o.replayBytes = bytes } }

// WithMaxArrowBatchBytes sets the target size of one arrow_batch response (default 4 MiB,
// Spark's spark.connect.grpc.arrow.maxBatchSize).
func WithMaxArrowBatchBytes(bytes int) Option {
	return func(o *options) { o.maxBatchBytes = bytes }
}

// WithMaxInboundMessageSize sets the largest request message the server reads, Spark's
// spark.connect.grpc.maxInboundMessageSize (default 128 MiB); a larger one fails with gRPC's
// RESOURCE_EXHAUSTED "received message larger than max" before it is read. Sizes below 1 are
// ignored.
func WithMaxInboundMessageSize(bytes int) Option {
	return func(o *options) {
		if bytes > 0 {
			o.maxInbound = bytes
		}
	}
}

// WithAllocator sets the Arrow allocator used to encode and decode IPC data.
func WithAllocator(a memory.Allocator) Option { return func(o *options) { o.alloc = a } }

// withReapInterval sets how often expired sessions and abandoned executions are swept.
func withReapInterval(d time.Duration) Option { return func(o *options) { o.reapInterval = d } }

// WithArtifactMemoryLimit bounds the bytes that all sessions' artifacts (uploads being received
// and cached local relations) hold in memory (≤ 0: unbounded; default a quarter of the memory
// the process may use).
func WithArtifactMemoryLimit(n int64) Option { return func(o *options) { o.artifactMemoryLimit = n } }

// WithConf sets Spark configuration every session starts with (`--conf KEY=VALUE`, as
// spark-submit's), in order: engine.WithConf checks each as spark.conf.set would.
func WithConf(kv ...[2]string) Option { return func(o *options) { o.conf = append(o.conf, kv...) } }

// WithPython sets the Python interpreter (with PySpark) the server's Python workers run
// (`--python`, PYSPARK_PYTHON; default "python3"); every engine session gets it
// (engine.WithPython) for the workers of its Python functions.
func WithPython(path string) Option {
	return func(o *options) {
		if path != "" {
			o.python = path
		}
	}
}
