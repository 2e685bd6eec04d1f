package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
)

// Adaptive partial aggregation (Spark's adaptivePartialAggregation, DataFusion's skip partial
// aggregation probe): a partial aggregate whose input rows barely outnumber its groups reduces
// little before the exchange and costs a second hash table. Every SkipPartial.MinRows input rows it compares rows to groups; when
// rows < groups * MinCompaction it emits the groups it holds, drops its table, and passes the
// rest of its input through, each row converted to its own partial result (a sum its value, a
// count 1 or 0 for NULL, ...): the final aggregate merges those as it merges partials.

// SkipPartial configures adaptive partial aggregation (AggregateSpec.SkipPartial).
type SkipPartial struct {
	// MinRows is the number of input rows between two checks of the compaction ratio.
	MinRows int64
	// MinCompaction is the least input rows per group that keeps the partial aggregation.
	MinCompaction float64
}

// DefaultSkipPartial is the planner's setting for partial aggregates: checked every 100k
// rows (Spark's and DataFusion's sample), bypassed below 2 rows per group.
var DefaultSkipPartial = SkipPartial{MinRows: 100_000, MinCompaction: 2}

// partialSkip is a partial aggregate's adaptive state.
type partialSkip struct {
	conf SkipPartial
	// rows counts the input rows aggregated; next is the count at which to check.
	rows, next int64
	// skipping is set once the aggregate passes its input through.
	skipping bool
}

func newPartialSkip(spec AggregateSpec) *partialSkip {
	if spec.SkipPartial == nil || spec.Streaming || len(spec.KeyCols) == 0 || spec.SkipPartial.MinRows <= 0 {
		return nil
	}
	return &partialSkip{conf: *spec.SkipPartial, next: spec.SkipPartial.MinRows}
}

// afterBatch counts an aggregated batch of n rows and, at a check point where the groups
// compact too little, emits the groups held and switches to passing rows through.
func (a *hashAggregate) afterBatch(ctx context.Context, n int, out flow.Emitter) error {
	s := a.skip
	s.rows += int64(n)
	if s.rows < s.next {
		return nil
	}
	s.next = s.rows + s.conf.MinRows
	if float64(s.rows) >= float64(len(a.counts))*s.conf.MinCompaction {
		return nil
	}
	if err := a.emitGroups(ctx, out); err != nil {
		return err
	}
	// The groups are out: drop them (their first rows stay first downstream, the rows passed
	// through come after).
	a.table.release()
	a.table = newRowTable(a.env.Mem)
	a.fixed, a.counts, a.changed, a.emitted, a.closed = nil, nil, nil, nil, nil
	a.old.pos = nil
	a.order = firstRows{}
	a.accs = nil
	s.skipping = true
	return nil
}

// passThrough emits each row of user as its own group's partial result: its key columns, then
// each aggregate's result over that row alone.
func (a *hashAggregate) passThrough(ctx context.Context, user arrow.RecordBatch, out flow.Emitter) error {
	n := int(user.NumRows())
	cols := make([]arrow.Array, 0, len(a.outTypes))
	defer func() { releaseAll(cols) }()
	for k, c := range a.spec.KeyCols {
		col := user.Column(c)
		col.Retain()
		key, err := a.conformKey(k, col)
		if err != nil {
			return err
		}
		cols = append(cols, key)
	}
	if cap(a.groups) < n {
		a.groups = make([]uint32, n)
	}
	ids := a.groups[:n]
	for i := range ids {
		ids[i] = uint32(i)
	}
	evaluated := make([][]arrow.Array, len(a.spec.Aggs))
	defer func() {
		for _, args := range evaluated {
			releaseAll(args)
		}
	}()
	for k, f := range a.spec.Aggs {
		var args []arrow.Array
		switch j := a.argsOf[k]; {
		case a.everyRow[k]:
		case j != k:
			args = evaluated[j]
		default:
			var err error
			if args, err = evalUser(a.ctx, f.Args(), user); err != nil {
				return err
			}
			evaluated[k] = args
		}
		acc := expr.InsertOnly(f.NewAccumulator(a.ctx))
		acc.Grow(n)
		if err := acc.Update(ids, args); err != nil {
			return err
		}
		r, err := acc.Result(a.ctx, ids)
		if err != nil {
			return err
		}
		cols = append(cols, r)
	}
	return emitColumns(ctx, a.env, out, cols, nil)
}
