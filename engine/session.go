package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// Session is one Spark session's server-side state: configuration and temp views, the
// pipeline that runs plans, and the streaming queries it started.
type Session struct {
	conf        *Conf
	views       *catalog
	mem         memory.Allocator
	runner      flow.JobRunner
	sources     analyzer.SourceSchemas
	now         func() time.Time
	streamClock clock.Clock
	stdout      io.Writer
	streams     *query.Manager
	// files checks every path a client names (reads, writes, overwrites, checkpoints).
	files *fileaccess.Policy
	// locations are the checkpoint locations the server's running queries hold.
	locations *query.Locations
	// python runs the session's Python functions and keeps the registered ones.
	python pythonState
	// user is the client's user id (current_user()); sparkVersion the Spark version reported
	// to clients (version()).
	user, sparkVersion string
	// tables is the persistent catalog (tables.go), shared by the server's sessions.
	tables *metastore.Store
	// warehouse is the directory of managed tables (spark.sql.warehouse.dir).
	warehouse string
	// store holds persisted and checkpointed rows (persist_store.go; nil: the process's).
	store *PersistStore
	// global are the global temporary views (global_views.go), shared by the server's sessions.
	global *GlobalTempViews
}

// SessionOption configures a Session.
type SessionOption func(*Session)

// WithAllocator sets the Arrow allocator the session's jobs use.
func WithAllocator(mem memory.Allocator) SessionOption { return func(s *Session) { s.mem = mem } }

// WithRunner sets the JobRunner (default: a LocalRunner).
func WithRunner(r flow.JobRunner) SessionOption { return func(s *Session) { s.runner = r } }

// WithClock sets the time source for current_timestamp() and friends.
func WithClock(now func() time.Time) SessionOption { return func(s *Session) { s.now = now } }

// WithStreamClock sets the clock streaming queries run by (triggers, rate sources, progress
// timestamps); default the wall clock.
func WithStreamClock(c clock.Clock) SessionOption { return func(s *Session) { s.streamClock = c } }

// WithStdout sets where console sinks print (default os.Stdout, the server's stdout).
func WithStdout(w io.Writer) SessionOption { return func(s *Session) { s.stdout = w } }

// WithCheckpointLocations sets the checkpoint locations held by running queries, shared by
// the sessions of one server (default: the session's own).
func WithCheckpointLocations(l *query.Locations) SessionOption {
	return func(s *Session) { s.locations = l }
}

// WithFileAccess sets the file-access policy every client-named path goes through (default
// nil: the always-on rules with the process's working and home directories).
func WithFileAccess(p *fileaccess.Policy) SessionOption { return func(s *Session) { s.files = p } }

// WithUser sets the session's user id, which current_user() returns (Spark Connect's
// UserContext.user_id).
func WithUser(user string) SessionOption { return func(s *Session) { s.user = user } }

// WithSparkVersion sets the Spark version the server reports to clients; version() returns it
// with the server's revision (default DefaultSparkVersion).
func WithSparkVersion(v string) SessionOption { return func(s *Session) { s.sparkVersion = v } }

// WithConf sets configuration the session starts with (the server's --conf, checked once by
// CheckServerConf; a value it refuses is left out here too). Static keys are the server's to
// set, so they are taken.
func WithConf(kv ...[2]string) SessionOption {
	return func(s *Session) {
		for _, p := range kv {
			_ = s.conf.setInitial(p[0], p[1]) // refused values were reported at server start
		}
	}
}

// NewSession returns a session with default configuration.
func NewSession(opts ...SessionOption) *Session {
	s := &Session{conf: NewConf(), views: newCatalog(), mem: memory.DefaultAllocator, now: time.Now,
		stdout: os.Stdout, sparkVersion: DefaultSparkVersion}
	for _, o := range opts {
		o(s)
	}
	s.initTables()
	if s.global == nil {
		s.global = NewGlobalTempViews()
	}
	s.sources = sourceSchemas{files: s.files, settings: s.conf}
	if s.runner == nil {
		s.runner = flow.NewLocalRunner(flow.WithAllocator(s.mem))
	}
	if s.streamClock == nil {
		s.streamClock = clock.New()
	}
	s.streams = query.NewManager(query.Env{
		Mem:          s.mem,
		Clock:        s.streamClock,
		Runner:       s.runner,
		Stdout:       s.stdout,
		Tables:       s.views,
		ExprContext:  s.evalContext,
		Conf:         s.conf.Get,
		MemoryBudget: func() (int64, error) { return queryMemoryBudget(s.conf.Get) },
		Files:        s.files,
		Locations:    s.locations,
		Python:       s.pythonSpec,
	})
	return s
}

// Conf returns the session's configuration.
func (s *Session) Conf() *Conf { return s.conf }

func (s *Session) exprOptions() expr.Options {
	return expr.Options{ANSI: s.conf.Bool(conf.ANSIKey, true), TimeZone: s.timeZone(), User: s.sessionUser(),
		Version: s.sparkVersion + " " + serverRevision(), Database: s.views.currentDatabase(),
		EnforceReservedKeywords: s.conf.Bool(conf.EnforceReservedKeywordsKey, false), ReadFile: s.readQueryFile,
		TimeType: s.conf.Bool(conf.TimeTypeKey, false), PythonWorkerLogs: s.pythonWorkerLogsOption()}
}

// maxQueryFileBytes bounds a file a query reads whole while it is compiled (from_protobuf's
// descriptor set).
const maxQueryFileBytes = 64 << 20

// readQueryFile reads a file a query names through the session's file-access policy.
func (s *Session) readQueryFile(path string) ([]byte, error) {
	resolved, err := s.files.CheckRead(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(resolved)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxQueryFileBytes+1))
	if err == nil && len(b) > maxQueryFileBytes {
		err = fmt.Errorf("%s is larger than %d bytes", path, maxQueryFileBytes)
	}
	return b, err
}

// shufflePartitions is spark.sql.shuffle.partitions: the partitions of a batch query's
// exchanges.
func (s *Session) shufflePartitions() int {
	return int(s.conf.Int(query.ShufflePartitionsConf, int64(flow.DefaultParallelism())))
}

func (s *Session) timeZone() string { return s.conf.GetOr(conf.TimeZoneKey, "UTC") }

func (s *Session) analyzer() *analyzer.Analyzer {
	return &analyzer.Analyzer{
		Catalog:                     sessionCatalog{catalog: s.views, s: s},
		Sources:                     s.sources,
		Options:                     s.exprOptions(),
		CaseSensitive:               s.conf.Bool(conf.CaseSensitiveKey, false),
		PythonFunctions:             s.pythonFunction,
		PythonTableFunctions:        s.pythonTableFunction,
		AnalyzePythonUDTF:           s.udtfAnalyzer(),
		AllowMultipleTableArguments: s.conf.Bool("spark.sql.tvf.allowMultipleTableArguments.enabled", false),
		NoImplicitCartesian:         !s.conf.Bool("spark.sql.crossJoin.enabled", true),
		Collect:                     s.collectRows,
		PivotMaxValues:              int(s.conf.Int("spark.sql.pivotMaxValues", 10000)),
		TransposeMaxValues:          int(s.conf.Int("spark.sql.transposeMaxValues", 500)),
	}
}

// Analyze resolves rel into a logical plan (for schema, explain, isStreaming).
func (s *Session) Analyze(ctx context.Context, rel plan.Relation) (logical.Node, error) {
	if show, ok := rel.(*plan.ShowString); ok {
		if _, err := s.analyzer().Resolve(ctx, show.Input); err != nil {
			return nil, err
		}
		return showStringSchemaNode(show), nil
	}
	if c, ok := rel.(*plan.CatalogCall); ok {
		schema, err := catalogCallSchema(c)
		if err != nil {
			return nil, err
		}
		return &logical.LocalData{Out: schema}, nil
	}
	return s.analyzer().Resolve(ctx, rel)
}

// Execute runs rel and returns its rows: the one pipeline every query takes.
func (s *Session) Execute(ctx context.Context, rel plan.Relation) (*Result, error) {
	if show, ok := rel.(*plan.ShowString); ok {
		input, err := s.analyzer().Resolve(ctx, show.Input)
		if err != nil {
			return nil, err
		}
		if logical.IsStreaming(input) {
			return nil, streamingActionError(input)
		}
		return s.showString(ctx, show)
	}
	if c, ok := rel.(*plan.CatalogCall); ok {
		return s.catalogCall(ctx, c)
	}
	node, err := s.Analyze(ctx, rel)
	if err != nil {
		return nil, err
	}
	if logical.IsStreaming(node) {
		return nil, streamingActionError(node)
	}
	return s.run(ctx, node)
}

// evalContext is the evaluation context of one statement.
func (s *Session) evalContext() (*expr.Context, error) {
	loc, err := expr.LoadZone(s.timeZone())
	if err != nil {
		return nil, sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_CONF_VALUE.TIME_ZONE", "22022",
			"The value '%s' in the config \"spark.sql.session.timeZone\" is invalid. Cannot resolve the given timezone.", s.timeZone())
	}
	return &expr.Context{Mem: s.mem, Location: loc, ANSI: s.exprOptions().ANSI, Now: s.now().UnixMicro()}, nil
}

// start plans node and starts its job under a fresh memory budget (the budget is the
// allocator of the evaluation context and of every task); top, when set, adds nodes on top of
// the planned graph (a sink); obs, when set, receives the plan's observers (df.observe).
func (s *Session) start(ctx context.Context, node logical.Node, top func(g *flow.Graph), obs *planner.Observers) (flow.Job, error) {
	ectx, err := s.evalContext()
	if err != nil {
		return nil, err
	}
	budget, err := s.newMemoryBudget()
	if err != nil {
		return nil, err
	}
	ectx.Mem = budget
	ectx.MaxValueBytes = expr.ValueBytesOfBudget(budget.Limit())
	if node, err = s.optimize(ctx, node, ectx); err != nil {
		return nil, err
	}
	conf, err := query.CheckedConf(s.conf.Get, s.files)
	if err != nil {
		return nil, err
	}
	pins, err := s.pinPersisted(ctx, node, nil)
	if err != nil {
		return nil, err
	}
	g, err := planner.Build(node, planner.Options{Mem: budget, Partitions: s.shufflePartitions(), Expr: ectx, Sources: s.batchSource,
		Conf: conf, Python: s.pythonSpec(), Observers: obs, Persisted: pins.lookup})
	if err != nil {
		return nil, err
	}
	if top != nil {
		top(g)
	}
	// An operation that tracks progress (ExecutePlan's ExecutionProgress) carries its tracker in ctx.
	return s.runner.Start(ctx, g, flow.JobOptions{MemoryBudget: budget, Tracker: flow.TrackerFrom(ctx)})
}

// run plans and starts node, and streams its user columns.
func (s *Session) run(ctx context.Context, node logical.Node) (*Result, error) {
	obs := &planner.Observers{}
	job, err := s.start(ctx, node, nil, obs)
	if err != nil {
		return nil, err
	}
	next := func(ctx context.Context) (arrow.RecordBatch, error) {
		for {
			rec, err := job.Next(ctx)
			if err != nil {
				return nil, err
			}
			if _, isMarker, _ := flow.MarkerOf(rec); isMarker {
				rec.Release()
				continue
			}
			user := flow.UserColumns(rec)
			rec.Release()
			return user, nil
		}
	}
	res := NewResult(node.Schema(), next, job.Close)
	res.observed = obs.Metrics
	return res, nil
}

// collectRows runs node and returns at most limit of its rows as Go values (the analyzer's
// Collect: crosstab and pivot without values read their data while being analyzed, as Spark).
func (s *Session) collectRows(ctx context.Context, node logical.Node, limit int) ([][]any, error) {
	res, err := s.run(ctx, node)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	schema := node.Schema()
	var rows [][]any
	for len(rows) < limit {
		rec, err := res.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for i := 0; i < int(rec.NumRows()) && len(rows) < limit; i++ {
			row := make([]any, len(schema))
			for c, f := range schema {
				row[c] = expr.ValueAt(rec.Column(c), i, f.Type)
			}
			rows = append(rows, row)
		}
		rec.Release()
	}
	return rows, nil
}

// collect drains a result into memory (for show and command paths).
func collect(ctx context.Context, r *Result) ([]arrow.RecordBatch, error) {
	defer r.Close()
	var recs []arrow.RecordBatch
	for {
		rec, err := r.Next(ctx)
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			return nil, err
		}
		recs = append(recs, rec)
	}
}
