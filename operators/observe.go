package operators

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// EndOfDataEpoch is the epoch of the metrics an Observe node reports at end of data (a batch
// query's only report).
const EndOfDataEpoch int64 = -1

// ObservedMetrics is the shared state of one Observe node (df.observe): every instance feeds
// its rows into one set of global-aggregate accumulators, under a lock; once every instance
// passed the same barrier (or ended), the metrics of the rows before it are computed and
// recorded under the barrier's epoch, and the next round starts from empty accumulators
// (Spark's streaming observe reports each micro-batch's rows only).
type ObservedMetrics struct {
	// Name is the observation's name; Schema the metrics' names and types.
	Name   string
	Schema sqltypes.Schema

	aggs     []expr.AggFunc
	metrics  []expr.Expr
	aggArrow *arrow.Schema
	ctx      *expr.Context

	mu      sync.Mutex
	rounds  map[int]*observeRound
	reports []ObservedReport
}

// ObservedReport is one computed metrics row, by the epoch whose barrier closed it
// (EndOfDataEpoch at end of data). Values follow sqltypes' Go value conventions.
type ObservedReport struct {
	Epoch  int64
	Values []any
}

type observeRound struct {
	accs   []expr.GroupedAccumulator
	passed int
}

// NewObservedMetrics prepares an Observe node's state: aggs are evaluated over the node's
// input, metrics over the aggregates' results (column i is aggs[i], of aggSchema); tz is the
// time zone of the Arrow timestamp columns.
func NewObservedMetrics(ctx *expr.Context, name string, aggs []expr.AggFunc, aggSchema sqltypes.Schema,
	metrics []expr.Expr, schema sqltypes.Schema, tz string) *ObservedMetrics {
	return &ObservedMetrics{Name: name, Schema: schema, aggs: aggs, metrics: metrics,
		aggArrow: sqltypes.ToArrowSchema(aggSchema, tz), ctx: ctx, rounds: map[int]*observeRound{}}
}

// Reports returns the metrics rows computed so far, oldest first.
func (o *ObservedMetrics) Reports() []ObservedReport {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]ObservedReport(nil), o.reports...)
}

// Report returns the metrics row of epoch (EndOfDataEpoch: at end of data), if computed.
func (o *ObservedMetrics) Report(epoch int64) (ObservedReport, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.reports) - 1; i >= 0; i-- {
		if o.reports[i].Epoch == epoch {
			return o.reports[i], true
		}
	}
	return ObservedReport{}, false
}

// Take returns the metrics row of epoch, if computed, and forgets it and every older one (a
// stream reads each epoch's row once, for its progress).
func (o *ObservedMetrics) Take(epoch int64) (ObservedReport, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var found ObservedReport
	ok := false
	kept := o.reports[:0]
	for _, r := range o.reports {
		switch {
		case r.Epoch == epoch:
			found, ok = r, true
		case r.Epoch > epoch:
			kept = append(kept, r)
		}
	}
	clear(o.reports[len(kept):])
	o.reports = kept
	return found, ok
}

// round returns round r's accumulators, creating them; the caller holds mu.
func (o *ObservedMetrics) round(r int) *observeRound {
	rd := o.rounds[r]
	if rd == nil {
		rd = &observeRound{}
		for _, f := range o.aggs {
			acc := f.NewAccumulator(o.ctx)
			acc.Grow(1)
			rd.accs = append(rd.accs, acc)
		}
		o.rounds[r] = rd
	}
	return rd
}

// feed adds (or, retracted, removes) the rows of user to round r.
func (o *ObservedMetrics) feed(mem *expr.Context, r int, user arrow.RecordBatch, retracted *array.Boolean) error {
	n := int(user.NumRows())
	var ins, rets []int64
	for i := 0; i < n; i++ {
		if retracted != nil && retracted.Value(i) {
			rets = append(rets, int64(i))
		} else {
			ins = append(ins, int64(i))
		}
	}
	args := make([][]arrow.Array, len(o.aggs))
	defer func() {
		for _, a := range args {
			releaseAll(a)
		}
	}()
	for k, f := range o.aggs {
		var err error
		if args[k], err = evalUser(mem, f.Args(), user); err != nil {
			return err
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	rd := o.round(r)
	for k := range o.aggs {
		for _, part := range []struct {
			idx     []int64
			retract bool
		}{{ins, false}, {rets, true}} {
			if len(part.idx) == 0 {
				continue
			}
			sub := args[k]
			if len(part.idx) != n {
				var err error
				if sub, err = take(mem.Mem, args[k], part.idx, nil); err != nil {
					return err
				}
				defer releaseAll(sub)
			}
			groups := make([]uint32, len(part.idx))
			var err error
			if part.retract {
				err = rd.accs[k].Retract(groups, sub)
			} else {
				err = rd.accs[k].Update(groups, sub)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// pass records that one of parts instances passed the end of round r (at epoch's barrier);
// the last one computes the round's metrics.
func (o *ObservedMetrics) pass(r, parts int, epoch int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	rd := o.round(r)
	rd.passed++
	if rd.passed < parts {
		return nil
	}
	delete(o.rounds, r)
	cols := make([]arrow.Array, 0, len(rd.accs))
	defer func() { releaseAll(cols) }()
	for _, acc := range rd.accs {
		c, err := acc.Result(o.ctx, []uint32{0})
		if err != nil {
			return err
		}
		cols = append(cols, c)
	}
	rec := array.NewRecordBatch(o.aggArrow, cols, 1)
	defer rec.Release()
	values := make([]any, len(o.metrics))
	for i, m := range o.metrics {
		v, err := m.Eval(o.ctx, rec)
		if err != nil {
			return err
		}
		values[i] = expr.ValueAt(v, 0, m.Type())
		v.Release()
	}
	o.reports = append(o.reports, ObservedReport{Epoch: epoch, Values: values})
	return nil
}

// Observe forwards its input unchanged and feeds it to obs (see ObservedMetrics).
func Observe(ctx *expr.Context, obs *ObservedMetrics) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &observe{env: env, ctx: instanceContext(ctx, env), obs: obs}, nil
	}
}

type observe struct {
	env   flow.Env
	ctx   *expr.Context
	obs   *ObservedMetrics
	round int
}

func (o *observe) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	if rec.NumRows() > 0 {
		user := flow.UserColumns(rec)
		err := o.obs.feed(o.ctx, o.round, user, flow.Retracted(rec))
		user.Release()
		if err != nil {
			return err
		}
	}
	return out.Emit(ctx, relabel(o.env, rec))
}

func (o *observe) Barrier(_ context.Context, epoch int64, _ flow.Emitter) error {
	r := o.round
	o.round++
	return o.obs.pass(r, max(1, o.env.Partitions), epoch)
}

func (o *observe) EndOfData(context.Context, flow.Emitter) error {
	r := o.round
	o.round++
	return o.obs.pass(r, max(1, o.env.Partitions), EndOfDataEpoch)
}
