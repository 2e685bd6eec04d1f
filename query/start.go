package query

import (
	"context"
	"errors"
	"github.com/weirhq/weir/sql/plan"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/state"
)

// errSourceOpen marks a planning failure caused by a source that could not be opened.
var errSourceOpen = errors.New("stream source failed to open")

// Start validates spec, builds its sink and flow graph, starts the job and the query's driver,
// and returns the running query. A source that fails to open (e.g. a refused socket) does not
// fail Start: as in Spark, the query starts and fails at once with a StreamingQueryException.
func (m *Manager) Start(ctx context.Context, spec Spec) (_ *Query, err error) {
	if spec.ForeachBatch != nil {
		defer func() {
			if err != nil {
				_ = spec.ForeachBatch.Close()
			}
		}()
	}
	legacyPath := false
	if m.env.Conf != nil {
		if v, ok := m.env.Conf(conf.LegacyPathOptionKey); ok {
			legacyPath = strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	if spec.Options, err = sinks.WithPath("start", spec.Path, spec.Options, legacyPath); err != nil {
		return nil, err
	}
	if err := validate(&spec); err != nil {
		return nil, err
	}
	format := strings.ToLower(spec.Format)
	if format == "" {
		format = "parquet"
		if m.env.Conf != nil {
			if v, ok := m.env.Conf(conf.SourcesDefaultKey); ok && v != "" {
				format = strings.ToLower(v)
			}
		}
	}
	// Without a location, memory, console and noop run without durable state (Spark uses a
	// temporary directory); durable sinks (files) refuse to start without one.
	location := m.checkpointLocation(spec)
	ectx, err := m.exprContext()
	if err != nil {
		return nil, err
	}
	if _, err := m.checkedConf(); err != nil {
		return nil, err // before the checkpoint is created
	}
	q := &Query{m: m, id: newUUID(), runID: newUUID(), name: spec.Name, spec: spec,
		startedAt: m.env.Clock.Now(), events: make(chan event, 16), quit: make(chan struct{}),
		done: make(chan struct{}), waiters: map[int]chan struct{}{}}
	q.batchMicros.Store(q.startedAt.UnixMilli() * 1000)
	ectx.Batch = &q.batchMicros
	q.partitions = m.partitions()
	if location != "" {
		if err := m.openCheckpoint(ctx, q, location); err != nil {
			return nil, err
		}
	}
	if err := m.register(q); err != nil {
		q.closeCheckpoint()
		return nil, err
	}
	if err := m.build(q, format, location, ectx); err != nil {
		m.unregister(q)
		q.closeStreams()
		q.closeCheckpoint()
		return nil, err
	}
	go q.run()
	return q, nil
}

func (m *Manager) exprContext() (*expr.Context, error) {
	if m.env.ExprContext == nil {
		return &expr.Context{Mem: m.env.Mem, ANSI: true}, nil
	}
	c, err := m.env.ExprContext()
	if err != nil {
		return nil, err
	}
	if c.Mem == nil {
		c.Mem = m.env.Mem
	}
	return c, nil
}

func (m *Manager) partitions() int {
	if m.env.Partitions > 0 {
		return m.env.Partitions
	}
	if m.env.Conf != nil {
		if v, ok := m.env.Conf(ShufflePartitionsConf); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n
			}
		}
	}
	return flow.DefaultParallelism()
}

// build makes q's sink, graph and job.
func (m *Manager) build(q *Query, format, location string, ectx *expr.Context) error {
	spec := q.spec
	policy, err := q.watermarkPolicy()
	if err != nil {
		return err
	}
	poll, err := sourcePollInterval(m.env.Conf)
	if err != nil {
		return err
	}
	tz := "UTC"
	if ectx.Location != nil {
		tz = ectx.Location.String()
	}
	conf, err := m.checkedConf()
	if err != nil {
		return err
	}
	senv := sinks.Env{QueryName: spec.Name, QueryID: q.id, Mode: spec.OutputMode, Schema: spec.Plan.Schema(),
		TimeZone: tz, Stdout: m.env.Stdout, Tables: m.env.Tables, PartitionBy: spec.PartitionBy,
		Continuous: spec.Trigger.Kind == plan.TriggerContinuous, Files: m.env.Files}
	var sink sinks.Sink
	if spec.ForeachBatch != nil {
		sink = sinks.NewForeachBatch(senv, spec.ForeachBatch)
	} else if spec.Foreach != nil {
		sink = sinks.NewForeach(senv, spec.Foreach)
	} else if sink, err = connectors.NewSink(format, senv, sinkOptions(spec, location)); err != nil {
		return err
	}
	q.sink = sink
	q.stateOps = stateOperators(spec.Plan, q.partitions)
	q.state = newStateMetricsLog()
	var limit int64
	if m.env.MemoryBudget != nil {
		if limit, err = m.env.MemoryBudget(); err != nil {
			return err
		}
	}
	budget := flow.NewMemoryBudget(m.env.Mem, limit)
	maxLine, err := sources.MaxLineBytesFromConf(m.env.Conf)
	if err != nil {
		return err
	}
	ectx.Mem = budget
	ectx.MaxValueBytes = expr.ValueBytesOfBudget(budget.Limit())
	q.ctx, q.cancel = context.WithCancel(context.Background())
	continuous := spec.Trigger.Kind == plan.TriggerContinuous
	openStream := func(scan *logical.SourceScan) (flow.Source, int, error) {
		if !scan.Streaming {
			return nil, 0, sparkerr.Unsupported("reading %s as a static source inside a streaming query is not "+
				"supported by Weir", scan.Format)
		}
		senv := sources.StreamEnv{Mem: budget, Clock: m.env.Clock, DefaultPartitions: q.partitions, TimeZone: tz,
			Files: m.env.Files, MaxLineBytes: maxLine}
		if q.cp != nil {
			senv.Metadata = sourceMetadata{store: q.cp.store, index: len(q.streams)}
		}
		src, err := connectors.OpenStream(q.ctx, scan.Format, senv, scan.Options, scan.UserSchema)
		if err != nil {
			if _, ok := sparkerr.As(err); ok && isAnalysisError(err) {
				return nil, 0, err
			}
			q.openErr = err
			return nil, 0, errSourceOpen
		}
		q.streams = append(q.streams, src)
		if mb, ok := src.(sources.MicroBatchOnly); ok && continuous && mb.MicroBatchOnly() {
			return nil, 0, sparkerr.Newf(sparkerr.UnsupportedOperation, "", "",
				"Data source %s does not support continuous processing.", scan.Format)
		}
		feed := sources.NewEpochSource(src, continuous, sources.WithClock(m.env.Clock), sources.WithPollInterval(poll))
		q.feeds = append(q.feeds, feed)
		return feed, src.Partitions(), nil
	}
	g, err := planner.Build(spec.Plan, planner.Options{Mem: budget, Partitions: q.partitions, Expr: ectx,
		Streaming: true, Sources: openStream, OutputMode: spec.OutputMode, Observers: &q.observers, Conf: conf,
		Python: m.pythonSpec()})
	if errors.Is(err, errSourceOpen) {
		// Spark starts the query; its first batch fails. Sources opened before stay owned by q.
		return nil
	}
	if err != nil {
		q.cancel()
		return err
	}
	q.seedEventTime()
	g.Output = sinkNode(g.Output, sink)
	q.sinkPar = g.Output.Parallelism
	cpc := flow.Checkpointing{OnStateMetrics: q.state.record}
	if q.cp != nil {
		cpc.Backend = stateBackend{store: q.cp.store, ids: stateIDs(g), written: q.cp.written}
		if r := q.resume; r != nil && r.restore {
			cpc.Restore, cpc.HasRestore = r.restoreAt, true
		}
	}
	job, err := m.env.Runner.Start(q.ctx, g, flow.JobOptions{Checkpointing: cpc, WatermarkPolicy: policy, MemoryBudget: budget})
	if err != nil {
		q.cancel()
		return err
	}
	q.job = job
	return nil
}

// checkedConf is the session conf the query's operators read, spill directory checked (see
// CheckedConf).
func (m *Manager) checkedConf() (func(string) (string, bool), error) {
	return CheckedConf(m.env.Conf, m.env.Files)
}

// CheckedConf is a session conf for a query's operators, batch or streaming, with the spill
// directory (state.SpillDirConf, where state spills and stale spill stores are swept) checked
// for writing by the file-access policy files and resolved: a client can name no other
// directory for the server to create and sweep stores in.
func CheckedConf(conf func(string) (string, bool), files *fileaccess.Policy) (func(string) (string, bool), error) {
	if conf == nil {
		return nil, nil
	}
	dir, ok := conf(state.SpillDirConf)
	if !ok || strings.TrimSpace(dir) == "" {
		return conf, nil
	}
	resolved, err := files.CheckWrite(strings.TrimSpace(dir))
	if err != nil {
		return nil, err
	}
	return func(key string) (string, bool) {
		if key == state.SpillDirConf {
			return resolved, true
		}
		return conf(key)
	}, nil
}

// sinkOptions are the options the sink gets: the user's, plus the resolved checkpoint location
// and start(path)'s path when the options lack them.
func sinkOptions(spec Spec, location string) map[string]string {
	out := make(map[string]string, len(spec.Options)+2)
	has := map[string]bool{}
	for k, v := range spec.Options {
		out[k] = v
		has[strings.ToLower(k)] = true
	}
	if location != "" && !has["checkpointlocation"] {
		out["checkpointLocation"] = location
	}
	if spec.Path != "" && !has["path"] {
		out["path"] = spec.Path
	}
	return out
}

// openCheckpoint checks q's checkpoint location with the file-access policy (nothing is
// created at a refused location), claims the resolved location (stopping an earlier run of
// this session that holds it), opens its store, takes the query id and state partitioning from
// it and plans the recovery.
func (m *Manager) openCheckpoint(ctx context.Context, q *Query, location string) error {
	dir, err := m.env.Files.CheckWrite(location)
	if err != nil {
		return err
	}
	// The store's directory inside the location must not be a link leading elsewhere.
	if _, err := m.env.Files.CheckWrite(filepath.Join(dir, pebbleDir)); err != nil {
		return err
	}
	for {
		old, err := m.env.Locations.claim(dir, q)
		if err != nil {
			return err
		}
		if old == nil {
			break
		}
		if err := old.Stop(ctx); err != nil {
			return err
		}
	}
	q.location = dir
	want := checkpointMeta{ID: q.id, Partitions: q.partitions, Stateful: statefulOperators(q.spec.Plan),
		Sources: sourceFormats(q.spec.Plan)}
	cp, err := openCheckpoint(dir, want)
	if err != nil {
		m.env.Locations.release(dir, q)
		return err
	}
	q.cp = cp
	q.id = cp.meta.ID
	if cp.meta.Partitions > 0 {
		q.partitions = cp.meta.Partitions
	}
	log, err := readRecovery(cp.store)
	if err != nil {
		q.closeCheckpoint()
		return err
	}
	plan := planRecovery(log)
	q.resume = &plan
	return nil
}

// closeCheckpoint closes q's checkpoint store and gives up its location.
func (q *Query) closeCheckpoint() {
	if q.cp != nil {
		_ = q.cp.close()
		q.cp = nil
	}
	if q.location != "" {
		q.m.env.Locations.release(q.location, q)
	}
}

// isAnalysisError: option and format errors are the user's, raised at start as in Spark
// (DataStreamReader validates them before any query runs).
func isAnalysisError(err error) bool {
	e, ok := sparkerr.As(err)
	return ok && (e.JavaClass == sparkerr.AnalysisException || e.JavaClass == sparkerr.IllegalArgumentException)
}

// sinkNode puts the sink's operators on top of up.
func sinkNode(up *flow.Node, sink sinks.Sink) *flow.Node {
	par := max(1, sink.Parallelism(up.Parallelism))
	in := flow.Input{From: up, Exchange: flow.Forward}
	switch {
	case par == up.Parallelism:
	case par == 1:
		in.Exchange = flow.Gather
	default:
		in = flow.Input{From: up, Exchange: flow.Partition, Partitioner: operators.RoundRobinPartitioner()}
	}
	return &flow.Node{Name: "Sink " + sink.Description(), Parallelism: par, Schema: up.Schema,
		NewOperator: sink.NewOperator, Inputs: []flow.Input{in}}
}

// closeStreams closes sources opened for a query that did not start.
func (q *Query) closeStreams() {
	if q.cancel != nil {
		q.cancel()
	}
	for _, s := range q.streams {
		_ = s.Close()
	}
}

// stateOperators lists the plan's stateful streaming operators as progress reports them.
func stateOperators(root logical.Node, partitions int) []stateOperator {
	var out []stateOperator
	var walk func(logical.Node)
	walk = func(n logical.Node) {
		for _, c := range n.Children() {
			walk(c)
		}
		switch n := n.(type) {
		case *logical.Aggregate:
			if logical.IsStreaming(n) {
				p := partitions
				if len(n.Groups) == 0 {
					p = 1
				}
				out = append(out, stateOperator{name: "stateStoreSave", partitions: p})
			}
		case *logical.Distinct:
			if logical.IsStreaming(n) {
				name := "dedupe"
				if n.WithinWatermark {
					name = "dedupeWithinWatermark"
				}
				out = append(out, stateOperator{name: name, partitions: partitions})
			}
		case *logical.Join:
			if logical.IsStreaming(n.Left) && logical.IsStreaming(n.Right) {
				out = append(out, stateOperator{name: "symmetricHashJoin", partitions: partitions})
			}
		}
	}
	walk(root)
	return out
}

// SourcePollIntervalConf is how often continuous processing asks a source for new rows
// (milliseconds; see the package doc).
const SourcePollIntervalConf = "spark.weir.streaming.continuous.sourcePollIntervalMs"

// defaultSourcePollInterval is SourcePollIntervalConf's default: sources.DefaultPollInterval
// (5 ms). When each poll was a Kafka ListOffsets request, 1 ms doubled the CPU of an idle
// continuous Kafka query (about 14% → 29% of a core) without a visible gain at 10 K
// records/s; Kafka is now planned as its readers fetch (sources.LocalLatest).
const defaultSourcePollInterval = sources.DefaultPollInterval

// sourcePollInterval reads SourcePollIntervalConf: a positive Spark time string
// (conf.ParseTime) whose bare number means milliseconds ("5", "20ms").
func sourcePollInterval(get func(string) (string, bool)) (time.Duration, error) {
	if get == nil {
		return defaultSourcePollInterval, nil
	}
	v, ok := get(SourcePollIntervalConf)
	if !ok || strings.TrimSpace(v) == "" {
		return defaultSourcePollInterval, nil
	}
	d, err := conf.ParseTime(v, time.Millisecond)
	if err != nil || d <= 0 {
		return 0, sparkerr.IllegalArgument("%s must be a positive time (a bare number counts milliseconds), got %q", SourcePollIntervalConf, v)
	}
	return d, nil
}

// pythonSpec is what a new query's Python functions run with (nil without Python).
func (m *Manager) pythonSpec() *operators.PythonSpec {
	if m.env.Python == nil {
		return nil
	}
	return m.env.Python()
}
