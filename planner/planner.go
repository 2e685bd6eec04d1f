package planner

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Options configure Build.
type Options struct {
	// Mem is the allocator the evaluation context falls back to.
	Mem memory.Allocator
	// Partitions is the default parallelism of exchanges (flow.DefaultParallelism() when ≤ 0).
	Partitions int
	// Expr is the evaluation context (time zone, ANSI mode, statement time).
	Expr *expr.Context
	// Streaming makes aggregates emit their changed groups at every barrier (as retraction of
	// the old row and insert of the new one) instead of once at end of data.
	Streaming bool
	// Sources resolves a source scan to a flow source and its partition count; without it a
	// SourceScan cannot be planned.
	Sources func(scan *logical.SourceScan) (flow.Source, int, error)
	// OutputMode is the streaming query's output mode: an aggregate on a watermarked event time
	// emits closed groups once in append mode and evicts them in append and update modes.
	OutputMode flow.OutputMode
	// Observers, when set, receives the plan's event-time stats, late-row counters and
	// observed metrics (df.observe).
	Observers *Observers
	// Conf reads session configuration; the streaming state's memory budget comes from it
	// (state.BudgetFromConf; nil: unlimited), and the bound on any node's partitions
	// (MaxPartitionsConf; nil: DefaultMaxPartitions).
	Conf func(key string) (string, bool)
	// Python runs Python functions (the session's worker pool and runner conf); nil when the
	// server has no Python, and plans with Python functions fail.
	Python *operators.PythonSpec
	// Persisted returns the rows of a persisted DataFrame the engine pinned for this query; an
	// InMemoryTableScan without pinned rows runs the DataFrame's plan.
	Persisted func(*logical.InMemoryRelation) ([]arrow.RecordBatch, bool)
}

// Build plans root. The graph's output node has parallelism 1 and yields rows in the plan's
// order.
func Build(root logical.Node, opts Options) (*flow.Graph, error) {
	if opts.Partitions <= 0 {
		opts.Partitions = flow.DefaultParallelism()
	}
	ctx := expr.Context{}
	if opts.Expr != nil {
		ctx = *opts.Expr
	}
	if ctx.Mem == nil {
		ctx.Mem = opts.Mem
	}
	max, err := maxPartitions(opts.Conf)
	if err != nil {
		return nil, err
	}
	b := &builder{opts: opts, ctx: &ctx, tz: timeZone(ctx.Location)}
	out, err := b.plan(root)
	if err != nil {
		return nil, err
	}
	g := &flow.Graph{Output: b.single(out)}
	if err := checkPartitions(g, max); err != nil {
		return nil, err
	}
	b.reservePythonWorkers()
	return g, nil
}

// timeZone is the zone name Arrow timestamp columns carry (as expr.Context uses it).
func timeZone(loc *time.Location) string {
	if loc == nil || loc == time.Local {
		return "UTC"
	}
	return loc.String()
}

type builder struct {
	opts  Options
	ctx   *expr.Context
	tz    string
	count int
	// chains are the stages of the stateless nodes built so far.
	chains map[*flow.Node][]operators.Stage
	// pythonNodes are the Python nodes built so far (reservePythonWorkers).
	pythonNodes []pythonNode
}

// stateless adds a stateless operator over in, keeping its partitions: fused into in when in
// is itself a stateless chain, else a new node on a forward edge.
func (b *builder) stateless(kind string, in *flow.Node, schema *arrow.Schema, f operators.Factory) *flow.Node {
	if b.chains == nil {
		b.chains = map[*flow.Node][]operators.Stage{}
	}
	stage := operators.Stage{Factory: f, Schema: schema}
	if prev, ok := b.chains[in]; ok {
		stages := append(append([]operators.Stage(nil), prev...), stage)
		n := &flow.Node{Name: in.Name + "+" + b.name(kind), Parallelism: in.Parallelism, Schema: schema,
			NewOperator: operators.Chain(stages...), Inputs: in.Inputs}
		b.chains[n] = stages
		return n
	}
	n := b.node(kind, in.Parallelism, schema, f, forward(in))
	b.chains[n] = []operators.Stage{stage}
	return n
}

func (b *builder) schema(n logical.Node) *arrow.Schema {
	return flow.EventSchema(sqltypes.ToArrowSchema(n.Schema(), b.tz))
}

func (b *builder) name(kind string) string {
	b.count++
	return fmt.Sprintf("%s#%d", kind, b.count)
}

// node builds an inner node.
func (b *builder) node(kind string, par int, schema *arrow.Schema, f operators.Factory, ins ...flow.Input) *flow.Node {
	return &flow.Node{Name: b.name(kind), Parallelism: par, Schema: schema, NewOperator: f, Inputs: ins}
}

func forward(n *flow.Node) flow.Input { return flow.Input{From: n, Exchange: flow.Forward} }

func (b *builder) hashed(n *flow.Node, keys []expr.Expr) flow.Input {
	return flow.Input{From: n, Exchange: flow.Partition, Partitioner: operators.HashPartitioner(b.ctx, keys)}
}

// concat gathers n's partitions in order into one.
func (b *builder) concat(n *flow.Node) *flow.Node {
	return b.node("Concat", 1, n.Schema, operators.Concat(), flow.Input{From: n, Exchange: flow.Gather})
}

// single makes n one partition, keeping partition order; in a streaming plan, whose
// partitions never end, batches are gathered as they come instead.
func (b *builder) single(n *flow.Node) *flow.Node {
	switch {
	case n.Parallelism == 1:
		return n
	case b.opts.Streaming:
		return b.node("Gather", 1, n.Schema, operators.Pass(), flow.Input{From: n, Exchange: flow.Gather})
	}
	return b.concat(n)
}

func (b *builder) plan(n logical.Node) (*flow.Node, error) {
	switch n := n.(type) {
	case *logical.Range:
		par := n.Partitions
		if par <= 0 {
			par = b.opts.Partitions
		}
		return &flow.Node{Name: b.name("Range"), Parallelism: par, Schema: b.schema(n),
			Source: sources.Range{Start: n.Start, End: n.End, Step: n.Step}}, nil
	case *logical.LocalData:
		return &flow.Node{Name: b.name("LocalData"), Parallelism: 1, Schema: b.schema(n),
			Source: sources.LocalData{Records: n.Records, Snapshot: n.Snapshot}}, nil
	case *logical.InMemoryTableScan:
		// A persisted DataFrame: the rows the engine pinned for this query, its plan otherwise.
		if b.opts.Persisted != nil {
			if recs, ok := b.opts.Persisted(n.Relation); ok {
				return &flow.Node{Name: b.name("InMemoryTableScan"), Parallelism: 1, Schema: b.schema(n),
					Source: sources.LocalData{Records: recs}}, nil
			}
		}
		return b.plan(n.Relation.Plan)
	case *logical.SourceScan:
		if b.opts.Sources == nil {
			return nil, sparkerr.Unsupported("streaming sources arrive with the streaming issue")
		}
		src, par, err := b.opts.Sources(n)
		if err != nil {
			return nil, err
		}
		return &flow.Node{Name: b.name("Scan " + n.Format), Parallelism: max(1, par), Schema: b.schema(n), Source: src}, nil
	case *logical.Limit:
		if s, ok := n.Input.(*logical.Sort); ok && s.Global && n.N >= 0 && !b.opts.Streaming {
			return b.topN(n, s)
		}
	case *logical.Aggregate:
		if f, ok := b.fusedFilter(n); ok {
			return b.filteredAggregate(n, f, b.schema(n))
		}
	case *logical.Project:
		if f, ok := n.Input.(*logical.Filter); ok {
			return b.filteredProject(n, f)
		}
	case *logical.ResolvedHint:
		// A hint the optimizer did not move into a join (under a node it does not know).
		return b.plan(n.Input)
	}
	ins := make([]*flow.Node, len(n.Children()))
	for i, c := range n.Children() {
		in, err := b.plan(c)
		if err != nil {
			return nil, err
		}
		ins[i] = in
	}
	return b.planInner(n, ins)
}

func (b *builder) planInner(n logical.Node, ins []*flow.Node) (*flow.Node, error) {
	schema := b.schema(n)
	switch n := n.(type) {
	case *logical.Project:
		return b.project(n, ins[0], schema)
	case *logical.Filter:
		return b.stateless("Filter", ins[0], schema, operators.Filter(b.ctx, n.Cond)), nil
	case *logical.Sample:
		return b.stateless("Sample", ins[0], schema, operators.Sample(n.Lower, n.Upper, n.WithReplacement, n.Seed)), nil
	case *logical.Generate:
		return b.stateless("Generate", ins[0], schema, operators.Generate(b.ctx, n.Generator)), nil
	case *logical.Aggregate:
		return b.aggregate(n, ins[0], schema)
	case *logical.Window:
		return b.window(n, ins[0], schema)
	case *logical.PythonEval, *logical.MapInPython, *logical.PythonUDTF, *logical.GroupMapInPython, *logical.CoGroupMapInPython, *logical.AggregateInPython:
		return b.python(n, ins, schema)
	case *logical.Watermark:
		return b.watermark(n, ins[0], schema), nil
	case *logical.CollectMetrics:
		return b.observe(n, ins[0], schema), nil
	case *logical.Sort:
		keys := make([]operators.SortKey, len(n.Keys))
		for i, k := range n.Keys {
			keys[i] = operators.SortKey{Expr: k.Expr, Descending: k.Descending, NullsFirst: k.NullsFirst}
		}
		in := ins[0]
		if n.Global {
			in = b.single(in)
		}
		return b.node("Sort", in.Parallelism, schema, operators.Sort(b.ctx, keys), forward(in)), nil
	case *logical.Limit:
		return b.limit(n, ins[0], schema), nil
	case *logical.Tail:
		in := ins[0]
		if in.Parallelism > 1 {
			// Each partition keeps its last n rows, so the ordered gather buffers at most that.
			in = b.node("LocalTail", in.Parallelism, schema, operators.Tail(n.N), forward(in))
		}
		return b.node("Tail", 1, schema, operators.Tail(n.N), forward(b.single(in))), nil
	case *logical.Join:
		if b.opts.Streaming && logical.IsStreaming(n.Left) && logical.IsStreaming(n.Right) {
			return b.streamJoin(n, ins[0], ins[1], schema)
		}
		if b.opts.Streaming && logical.IsStreaming(n) {
			if err := checkStreamStaticJoin(n, logical.IsStreaming(n.Left)); err != nil {
				return nil, err
			}
		}
		return b.join(n, ins[0], ins[1], schema)
	case *logical.Union:
		par := 0
		var edges []flow.Input
		for _, in := range ins {
			edges = append(edges, flow.Input{From: in, Exchange: flow.Partition, Partitioner: operators.OffsetPartitioner(par)})
			par += in.Parallelism
		}
		return b.node("Union", par, schema, operators.Pass(), edges...), nil
	case *logical.Distinct:
		if b.opts.Streaming && logical.IsStreaming(n) {
			return b.streamDedup(n, ins[0], schema)
		}
		keys := n.Keys
		if keys == nil {
			keys = allColumns(len(n.Schema()))
		}
		return b.node("Deduplicate", b.opts.Partitions, schema, operators.Distinct(keys),
			b.hashed(ins[0], columns(n.Input.Schema(), keys))), nil
	case *logical.SetOp:
		if n.Type != plan.Intersect && n.Type != plan.Except {
			return nil, sparkerr.Internal("set operation %d is not INTERSECT or EXCEPT", n.Type)
		}
		all := allColumns(len(n.Schema()))
		return b.node(n.Describe(), b.opts.Partitions, schema, operators.SetOp(n.Type, n.All),
			b.hashed(ins[0], columns(n.Left.Schema(), all)), b.hashed(ins[1], columns(n.Right.Schema(), all))), nil
	case *logical.Repartition:
		par := n.Partitions
		if par <= 0 {
			par = b.opts.Partitions
		}
		var p flow.Partitioner = operators.RoundRobinPartitioner()
		if len(n.Keys) > 0 {
			p = operators.HashPartitioner(b.ctx, n.Keys)
		}
		if par == 1 && !b.opts.Streaming {
			// repartition(1) / coalesce(1) of a batch: Spark's shuffle read takes the map outputs
			// in map order, so the rows come out in their input partitions' order (as Concat
			// emits them, holding later partitions' batches until the earlier ones ended).
			return b.node("Exchange", 1, schema, operators.Concat(), flow.Input{From: ins[0], Exchange: flow.Gather}), nil
		}
		return b.node("Exchange", par, schema, operators.Pass(), flow.Input{From: ins[0], Exchange: flow.Partition, Partitioner: p}), nil
	}
	return nil, sparkerr.Unsupported("planning %s is not supported", n.Describe())
}

func allColumns(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// columns are column references to fields idx of s.
func columns(s sqltypes.Schema, idx []int) []expr.Expr {
	out := make([]expr.Expr, len(idx))
	for i, c := range idx {
		out[i] = &expr.Column{Index: c, Name: s[c].Name, T: s[c].Type, Null: s[c].Nullable}
	}
	return out
}
