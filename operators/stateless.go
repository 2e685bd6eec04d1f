package operators

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// Factory builds one partition's operator; it is what flow.Node.NewOperator holds.
type Factory = func(env flow.Env) (flow.Operator, error)

// instanceContext is the evaluation context of one operator instance: the planner's, with the
// instance's allocator and partition (spark_partition_id(), per-partition random seeds).
func instanceContext(ctx *expr.Context, env flow.Env) *expr.Context {
	c := ctx.ForPartition(env.Partition)
	c.Mem = env.Mem
	return c
}

// Project evaluates exprs over each batch; retraction flags pass through.
func Project(ctx *expr.Context, exprs []expr.Expr) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &project{env: env, ctx: instanceContext(ctx, env), exprs: exprs}, nil
	}
}

type project struct {
	env   flow.Env
	ctx   *expr.Context
	exprs []expr.Expr
}

func (p *project) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	cols, err := evalAll(p.ctx, p.exprs, rec)
	if err != nil {
		return err
	}
	defer releaseAll(cols)
	schema := flow.EnvSchema(p.env.OutSchema, rec)
	if len(cols) == 0 {
		return out.Emit(ctx, flow.NewDataBatch(p.env.Mem, schema, nil, rec.Column(1)))
	}
	return out.Emit(ctx, flow.NewDataBatch(p.env.Mem, schema, cols, rec.Column(1)))
}

// Filter keeps rows whose cond is true (NULL counts as false).
func Filter(ctx *expr.Context, cond expr.Expr) Factory {
	return FilterKeeping(ctx, cond, nil)
}

// FilterKeeping is Filter followed by a projection that reads only the user columns keep marks
// (nil: all): the rows it keeps carry those columns, the others as NULLs, so the columns the
// projection drops are never copied (a filter on a long string column the query then drops
// gathered every kept row's string).
func FilterKeeping(ctx *expr.Context, cond expr.Expr, keep []bool) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &filter{env: env, ctx: instanceContext(ctx, env), cond: cond, keep: keep}, nil
	}
}

type filter struct {
	env  flow.Env
	ctx  *expr.Context
	cond expr.Expr
	keep []bool
}

func (f *filter) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	res, err := evalAll(f.ctx, []expr.Expr{f.cond}, rec)
	if err != nil {
		return err
	}
	defer releaseAll(res)
	b, ok := res[0].(*array.Boolean)
	if !ok {
		return sparkerr.Internal("filter condition evaluated to %s", res[0].DataType())
	}
	if b.Len() == 0 {
		return nil
	}
	if b.NullN() == 0 {
		// Every row or none: no index list (a partition of the rate sources holds every n-th
		// value, so value-modulo filters often select whole batches).
		switch bitutil.CountSetBits(b.Data().Buffers()[1].Bytes(), b.Data().Offset(), b.Len()) {
		case 0:
			return nil
		case b.Len():
			return out.Emit(ctx, relabelWithEnv(f.env, rec))
		}
	}
	if f.keep != nil {
		return emitKept(ctx, f.env, out, rec, selectedRows(b), f.keep)
	}
	return emitRows(ctx, f.env, out, rec, selectedRows(b))
}

// emitKept emits rows idx of rec with the user columns keep marks and NULLs in the others.
func emitKept(ctx context.Context, env flow.Env, out flow.Emitter, rec arrow.RecordBatch, idx []int64, keep []bool) error {
	if len(idx) == 0 {
		return nil
	}
	cols := make([]arrow.Array, 0, rec.NumCols())
	defer func() { releaseAll(cols) }()
	for c, col := range rec.Columns() {
		if c >= flow.UserOffset && !keep[c-flow.UserOffset] {
			cols = append(cols, array.MakeArrayOfNull(env.Mem, col.DataType(), len(idx)))
			continue
		}
		t, err := take(env.Mem, []arrow.Array{col}, idx, nil)
		if err != nil {
			return err
		}
		cols = append(cols, t[0])
	}
	t := array.NewRecordBatch(rec.Schema(), cols, int64(len(idx)))
	defer t.Release()
	return out.Emit(ctx, relabelWithEnv(env, t))
}

// emitRows emits rows idx of rec (all of rec without copying when idx is every row), keeping
// its batch environment.
func emitRows(ctx context.Context, env flow.Env, out flow.Emitter, rec arrow.RecordBatch, idx []int64) error {
	switch int64(len(idx)) {
	case 0:
		return nil
	case rec.NumRows():
		return out.Emit(ctx, relabelWithEnv(env, rec))
	}
	t, err := takeRecord(env.Mem, rec, idx)
	if err != nil {
		return err
	}
	defer t.Release()
	return out.Emit(ctx, relabelWithEnv(env, t))
}

// Pass forwards every batch of every input unchanged (union, repartition), with its batch
// environment (a repartition's shuffle partitioner has dropped it).
func Pass() Factory {
	return func(env flow.Env) (flow.Operator, error) { return &pass{env: env}, nil }
}

type pass struct{ env flow.Env }

func (p *pass) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	return out.Emit(ctx, relabelWithEnv(p.env, rec))
}

// Sample keeps each row with probability upper-lower (Bernoulli), or, with replacement,
// repeats it a Poisson(upper-lower) number of times. Each partition draws from its own
// generator seeded with seed and the partition index, so a plan samples the same rows on
// every run.
func Sample(lower, upper float64, withReplacement bool, seed int64) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		if lower < 0 || upper < lower {
			return nil, sparkerr.IllegalArgument("requirement failed: Lower bound (%v) must be <= upper bound (%v)", lower, upper)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(env.Partition)))
		return &sample{env: env, lower: lower, upper: upper, repl: withReplacement, rng: rng}, nil
	}
}

type sample struct {
	env          flow.Env
	lower, upper float64
	repl         bool
	rng          *rand.Rand
}

func (s *sample) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	idx := make([]int64, 0, rec.NumRows())
	for i := int64(0); i < rec.NumRows(); i++ {
		if s.repl {
			for k := poisson(s.rng, s.upper-s.lower); k > 0; k-- {
				idx = append(idx, i)
			}
			continue
		}
		if x := s.rng.Float64(); x >= s.lower && x < s.upper {
			idx = append(idx, i)
		}
	}
	return emitRows(ctx, s.env, out, rec, idx)
}

// poisson draws from Poisson(mean) (Knuth's method; means here are sampling fractions).
func poisson(rng *rand.Rand, mean float64) int {
	if mean <= 0 {
		return 0
	}
	l, k, p := math.Exp(-mean), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
