package operators

import (
	"context"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// WindowSpec is what a Window operator computes: the functions of one window specification.
type WindowSpec struct {
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Funcs       []*logical.WindowFunc
	// Budget bounds the input buffered in memory; past it the input spills to a scratch
	// store and is computed one window partition at a time (window_spill.go).
	Budget state.Budget
}

// Window computes window functions (Spark's WindowExec): it collects its input (the planner
// hash-partitions it on the partition keys, or gathers it when there are none), and at end of
// data sorts it by partition and order keys and emits every row followed by one column per
// function, in batches of BatchRows. Each function walks each window partition once: ranking
// and offset functions in O(1) per row; aggregates keep one accumulator whose frame slides
// forward (rows entering are added, rows leaving retracted), so running and sliding frames are
// O(n) updates, whole-partition frames one result.
func Window(ctx *expr.Context, spec WindowSpec) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &windowOp{env: env, ctx: instanceContext(ctx, env), spec: spec}, nil
	}
}

type windowOp struct {
	env  flow.Env
	ctx  *expr.Context
	spec WindowSpec
	recs []arrow.RecordBatch
	// bytes is the memory of recs; spill, once opened, holds the input instead.
	bytes int64
	spill *windowSpill
}

func (w *windowOp) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	rec.Retain()
	w.recs = append(w.recs, rec)
	w.bytes += recordBytes(rec)
	if w.spec.Budget.Limited() && (w.spill != nil || w.bytes > w.spec.Budget.MemoryBytes) {
		return w.spillBuffered()
	}
	return nil
}

func (w *windowOp) Close() {
	releaseRecords(w.recs)
	w.recs = nil
	w.closeSpill()
}

// inSchema is the input's schema (event form): the output's without the function columns.
func (w *windowOp) inSchema() *arrow.Schema {
	return arrow.NewSchema(w.env.OutSchema.Fields()[:w.env.OutSchema.NumFields()-len(w.spec.Funcs)], nil)
}

func (w *windowOp) EndOfData(ctx context.Context, out flow.Emitter) error {
	if w.spill != nil {
		if err := w.spillBuffered(); err != nil {
			return err
		}
		return w.drainSpill(ctx, out)
	}
	cols, err := concatColumns(w.env.Mem, w.inSchema(), w.recs)
	if err != nil {
		return err
	}
	releaseRecords(w.recs)
	w.recs = nil
	defer releaseAll(cols)
	return w.computeAndEmit(ctx, cols, out)
}

// computeAndEmit sorts the user columns cols, computes the functions and emits the rows.
func (w *windowOp) computeAndEmit(ctx context.Context, cols []arrow.Array, out flow.Emitter) error {
	if len(cols) == 0 || cols[0].Len() == 0 {
		return nil
	}
	sorted, err := w.sortRows(cols)
	if err != nil {
		return err
	}
	defer releaseAll(sorted)
	results, err := w.compute(sorted)
	if err != nil {
		return err
	}
	defer releaseAll(results)
	return emitInChunks(ctx, w.env, out, append(append([]arrow.Array(nil), sorted...), results...), nil)
}

// sortRows orders the user columns by partition keys, then order keys (stable).
func (w *windowOp) sortRows(cols []arrow.Array) ([]arrow.Array, error) {
	n := cols[0].Len()
	keys := make([]SortKey, 0, len(w.spec.PartitionBy)+len(w.spec.OrderBy))
	for _, p := range w.spec.PartitionBy {
		keys = append(keys, SortKey{Expr: p, NullsFirst: true})
	}
	keys = append(keys, w.spec.OrderBy...)
	if len(keys) == 0 {
		for _, c := range cols {
			c.Retain()
		}
		return append([]arrow.Array(nil), cols...), nil
	}
	user := array.NewRecordBatch(flow.UserSchema(arrow.NewSchema(w.env.OutSchema.Fields()[:flow.UserOffset+len(cols)], nil)), cols, int64(n))
	defer user.Release()
	es := make([]expr.Expr, len(keys))
	for i, k := range keys {
		es[i] = k.Expr
	}
	keyCols, err := evalUser(w.ctx, es, user)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keyCols)
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	cmps := make([]func(a, b int) int, len(keys))
	for k, key := range keys {
		cmps[k] = keyComparator(key, keyCols[k])
	}
	// Ties broken by arrival: a stable order with an O(n log n) sort.
	slices.SortFunc(idx, func(a, b int64) int {
		for _, c := range cmps {
			if r := c(int(a), int(b)); r != 0 {
				return r
			}
		}
		return cmp(a, b)
	})
	return take(w.env.Mem, cols, idx, nil)
}

// keyComparator orders rows of c by key (direction and NULL placement), reading the common
// fixed-width and string columns directly.
func keyComparator(key SortKey, c arrow.Array) func(a, b int) int {
	var values func(a, b int) int
	switch x := c.(type) {
	case *array.Int64:
		values = func(a, b int) int { return cmp(x.Value(a), x.Value(b)) }
	case *array.Int32:
		values = func(a, b int) int { return cmp(x.Value(a), x.Value(b)) }
	case *array.Date32:
		values = func(a, b int) int { return cmp(int32(x.Value(a)), int32(x.Value(b))) }
	case *array.Timestamp:
		values = func(a, b int) int { return cmp(int64(x.Value(a)), int64(x.Value(b))) }
	case *array.String:
		values = func(a, b int) int { return cmp(x.Value(a), x.Value(b)) }
	case *array.Float64:
		values = func(a, b int) int { return expr.CompareFloat(x.Value(a), x.Value(b)) }
	default:
		values = func(a, b int) int { return compareAt(c, a, c, b) }
	}
	if key.Descending {
		asc := values
		values = func(a, b int) int { return -asc(a, b) }
	}
	if c.NullN() == 0 {
		return values
	}
	first := -1
	if !key.NullsFirst {
		first = 1
	}
	return func(a, b int) int {
		an, bn := c.IsNull(a), c.IsNull(b)
		switch {
		case an && bn:
			return 0
		case an:
			return first
		case bn:
			return -first
		}
		return values(a, b)
	}
}

// windowRows is the sorted input of one operator instance: its window partitions and peer
// groups (rows with equal order keys), and the order keys evaluated.
type windowRows struct {
	n int
	// partEnd[i] is the end of row i's partition, partStart[i] its start; peerStart and
	// peerEnd likewise for its peer group.
	partStart, partEnd, peerStart, peerEnd []int
	order                                  []arrow.Array
	// desc is whether the first order key descends; keyType is its type and loc the session
	// time zone (for month offsets over timestamps).
	desc    bool
	keyType sqltypes.DataType
	loc     *time.Location
}

// compute evaluates every function over the sorted rows.
func (w *windowOp) compute(sorted []arrow.Array) ([]arrow.Array, error) {
	n := sorted[0].Len()
	user := array.NewRecordBatch(flow.UserSchema(arrow.NewSchema(w.env.OutSchema.Fields()[:flow.UserOffset+len(sorted)], nil)), sorted, int64(n))
	defer user.Release()
	part, err := evalUser(w.ctx, w.spec.PartitionBy, user)
	if err != nil {
		return nil, err
	}
	defer releaseAll(part)
	orderEs := make([]expr.Expr, len(w.spec.OrderBy))
	for i, k := range w.spec.OrderBy {
		orderEs[i] = k.Expr
	}
	order, err := evalUser(w.ctx, orderEs, user)
	if err != nil {
		return nil, err
	}
	defer releaseAll(order)
	rows := &windowRows{n: n, order: order,
		partStart: make([]int, n), partEnd: make([]int, n), peerStart: make([]int, n), peerEnd: make([]int, n)}
	if len(w.spec.OrderBy) > 0 {
		rows.desc, rows.keyType = w.spec.OrderBy[0].Descending, w.spec.OrderBy[0].Expr.Type()
	}
	rows.loc = time.UTC
	if w.ctx != nil && w.ctx.Location != nil {
		rows.loc = w.ctx.Location
	}
	boundaries(n, part, rows.partStart, rows.partEnd)
	boundariesWithin(n, order, rows.partStart, rows.partEnd, rows.peerStart, rows.peerEnd)
	out := make([]arrow.Array, 0, len(w.spec.Funcs))
	for _, f := range w.spec.Funcs {
		a, err := w.evalFunc(f, rows, user)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// boundaries splits rows 0..n-1 into runs of equal keys (NULL equals NULL).
func boundaries(n int, keys []arrow.Array, start, end []int) {
	s := 0
	for i := 1; i <= n; i++ {
		if i < n && rowsEqualAt(keys, i-1, i) {
			continue
		}
		for j := s; j < i; j++ {
			start[j], end[j] = s, i
		}
		s = i
	}
}

// boundariesWithin splits each run [outerStart, outerEnd) further into runs of equal keys.
func boundariesWithin(n int, keys []arrow.Array, outerStart, outerEnd, start, end []int) {
	s := 0
	for i := 1; i <= n; i++ {
		if i < n && outerStart[i] == outerStart[i-1] && rowsEqualAt(keys, i-1, i) {
			continue
		}
		for j := s; j < i; j++ {
			start[j], end[j] = s, i
		}
		s = i
	}
	_ = outerEnd
}

func rowsEqualAt(keys []arrow.Array, a, b int) bool {
	for _, k := range keys {
		if compareAt(k, a, k, b) != 0 {
			return false
		}
	}
	return true
}
