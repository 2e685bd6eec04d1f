package operators

import (
	"context"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
)

// JoinSpec describes a join of input 0 (left, probed) with input 1 (right, built).
type JoinSpec struct {
	Type plan.JoinType
	// LeftKeys[i] = RightKeys[i] are the equi-join keys, evaluated over each side; none means a
	// nested-loop join over every pair.
	LeftKeys, RightKeys []expr.Expr
	// Residual is checked on candidate pairs, over the left++right user columns.
	Residual expr.Expr
	// LeftSchema and RightSchema are the inputs' flow-event schemas.
	LeftSchema, RightSchema *arrow.Schema
	// BuildLeft makes a LEFT SEMI / LEFT ANTI join hold its left side: input 1 (built) is the
	// join's left side and input 0 (probed) its right side, so LeftKeys and LeftSchema
	// describe the join's right side and RightKeys and RightSchema its left; Residual reads
	// the built columns, then the probed ones (the join's left++right). A probe row marks the
	// built rows it matches; at end of data the built rows marked (semi) or not (anti) are
	// emitted, as the join's left rows.
	BuildLeft bool
}

// HashJoin builds a hash table over the whole right input (fixedJoinTable for integer keys,
// joinTable, rows chained by key hash in flat arrays, for others), then probes it with left batches, gathering the joined rows by take; left batches that arrive before the right input ended are buffered.
// NULL keys never match. Outer joins pad the missing side with NULLs; right and full outer
// joins emit the right rows nothing matched at end of data (the planner makes sure every right
// row lives in exactly one partition). Semi and anti joins emit left rows only. Output rows
// follow left row order. A retracted left row retracts its joined rows (stream-static joins);
// the right side is static.
func HashJoin(ctx *expr.Context, spec JoinSpec) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		if len(spec.LeftKeys) != len(spec.RightKeys) {
			return nil, sparkerr.Internal("join has %d left keys and %d right keys", len(spec.LeftKeys), len(spec.RightKeys))
		}
		return &hashJoin{env: env, ctx: instanceContext(ctx, env), spec: spec, mem: goMemory{env: env}}, nil
	}
}

type hashJoin struct {
	env   flow.Env
	ctx   *expr.Context
	spec  JoinSpec
	right map[int][]arrow.RecordBatch // right batches by sender until built
	early []arrow.RecordBatch         // left batches that came before the build side ended
	built bool

	rightCols []arrow.Array
	rightKeys []arrow.Array
	// fixed indexes integer keys; table (built on first need) any keys.
	fixed   *fixedJoinTable
	table   *joinTable
	matched []bool
	// mem counts the tables' Go memory against the query's budget.
	mem goMemory
}

func (j *hashJoin) Process(ctx context.Context, in int, rec arrow.RecordBatch, out flow.Emitter) error {
	return j.ProcessFrom(ctx, in, 0, rec, out)
}

// ProcessFrom implements flow.SenderAware: the build side is kept per sender and concatenated
// in partition order, so the join's output order does not depend on arrival order.
func (j *hashJoin) ProcessFrom(ctx context.Context, in, sender int, rec arrow.RecordBatch, out flow.Emitter) error {
	if in == 1 {
		rec.Retain()
		if j.right == nil {
			j.right = map[int][]arrow.RecordBatch{}
		}
		j.right[sender] = append(j.right[sender], rec)
		return nil
	}
	if !j.built {
		rec.Retain()
		j.early = append(j.early, rec)
		return nil
	}
	return j.probe(ctx, rec, out)
}

// SenderEnded implements flow.SenderAware.
func (j *hashJoin) SenderEnded(context.Context, int, int, flow.Emitter) error { return nil }

func (j *hashJoin) InputEnded(ctx context.Context, in int, out flow.Emitter) error {
	// Already built when the runtime finished the instance first (a barrier aligned by the
	// build side's end can replay the probe side's end before this call).
	if in != 1 || j.built {
		return nil
	}
	if err := j.build(); err != nil {
		return err
	}
	early := j.early
	j.early = nil
	for i, rec := range early {
		err := j.probe(ctx, rec, out)
		rec.Release()
		if err != nil {
			releaseRecords(early[i+1:])
			return err
		}
	}
	return nil
}

// Barrier implements flow.BarrierHandler. The build side of a stream-static join is static and
// sends no barriers, so a barrier that aligned means it has ended, though the runtime may call
// InputEnded only after forwarding the barrier: build now, so that the epoch's joined rows go
// out before its barrier.
func (j *hashJoin) Barrier(ctx context.Context, _ int64, out flow.Emitter) error {
	if j.built {
		return nil
	}
	return j.InputEnded(ctx, 1, out)
}

func (j *hashJoin) build() error {
	senders := slices.Sorted(maps.Keys(j.right))
	var recs []arrow.RecordBatch
	for _, s := range senders {
		recs = append(recs, j.right[s]...)
	}
	cols, err := concatColumns(j.env.Mem, j.spec.RightSchema, recs)
	releaseRecords(recs)
	j.right = nil
	if err != nil {
		return err
	}
	j.rightCols = cols
	j.built = true
	n := cols[0].Len()
	j.matched = make([]bool, n)
	if len(j.spec.RightKeys) == 0 {
		return nil
	}
	user := array.NewRecordBatch(flow.UserSchema(j.spec.RightSchema), cols, int64(n))
	defer user.Release()
	j.rightKeys, err = evalUser(j.ctx, j.spec.RightKeys, user)
	if err != nil {
		return err
	}
	if size, ok := fixedJoinTableBytes(j.rightKeys); ok {
		if err := j.mem.grow(size); err != nil {
			return err
		}
		j.fixed, _ = newFixedJoinTable(j.rightKeys)
		return nil
	}
	return j.buildTable()
}

// buildTable indexes the build rows' keys by hash (joinTable), for keys fixedJoinTable does
// not take.
func (j *hashJoin) buildTable() error {
	n := j.rightKeys[0].Len()
	if err := j.mem.grow(joinTableBytes(n)); err != nil {
		return err
	}
	hs := make([]uint64, n)
	hashColumns(j.rightKeys, 0, hs)
	j.table = newJoinTable(j.rightKeys, hs)
	return nil
}

// probe joins one left batch, a slice of rows at a time so that candidate pairs stay bounded.
func (j *hashJoin) probe(ctx context.Context, rec arrow.RecordBatch, out flow.Emitter) error {
	n := rec.NumRows()
	step := int64(BatchRows)
	if len(j.spec.LeftKeys) == 0 && len(j.matched) > 0 {
		step = max(1, int64(8*BatchRows/len(j.matched)))
	}
	for lo := int64(0); lo < n; lo += step {
		part := rec.NewSlice(lo, min(n, lo+step))
		err := j.probeSlice(ctx, part, out)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (j *hashJoin) probeSlice(ctx context.Context, rec arrow.RecordBatch, out flow.Emitter) error {
	if j.spec.BuildLeft {
		return j.markSlice(rec)
	}
	left := flow.UserColumns(rec)
	defer left.Release()
	n := int(left.NumRows())
	var li, ri []int64
	if len(j.spec.LeftKeys) > 0 {
		keys, err := evalUser(j.ctx, j.spec.LeftKeys, left)
		if err != nil {
			return err
		}
		firstOnly := (j.spec.Type == plan.LeftSemiJoin || j.spec.Type == plan.LeftAntiJoin) && j.spec.Residual == nil
		li, ri, err = j.probeKeys(keys, firstOnly)
		releaseAll(keys)
		if err != nil {
			return err
		}
	} else {
		for i := 0; i < n; i++ {
			for r := range j.matched {
				li = append(li, int64(i))
				ri = append(ri, int64(r))
			}
		}
	}
	if j.spec.Residual != nil && len(li) > 0 {
		var err error
		if li, ri, err = j.checkResidual(left, li, ri); err != nil {
			return err
		}
	}
	for _, r := range ri {
		j.matched[r] = true
	}
	switch j.spec.Type {
	case plan.LeftSemiJoin, plan.LeftAntiJoin:
		hit := make([]bool, n)
		for _, i := range li {
			hit[i] = true
		}
		var keep []int64
		for i, h := range hit {
			if h == (j.spec.Type == plan.LeftSemiJoin) {
				keep = append(keep, int64(i))
			}
		}
		return emitRows(ctx, j.env, out, rec, keep)
	case plan.LeftOuterJoin, plan.FullOuterJoin:
		li, ri = padLeft(n, li, ri)
	}
	return j.emitPairs(ctx, left.Columns(), flow.Retracted(rec), li, ri, out)
}

// probeKeys finds the build rows matching each row of the probe side's keys: pairs (left row,
// right row) in left then right row order (only each left row's first when firstOnly).
func (j *hashJoin) probeKeys(keys []arrow.Array, firstOnly bool) (li, ri []int64, err error) {
	if j.fixed != nil {
		if li, ri, ok := j.fixed.probe(keys, firstOnly, nil, nil); ok {
			return li, ri, nil
		}
		// The probe side's key layout differs from the build side's: index by hash.
		if j.table == nil {
			if err := j.buildTable(); err != nil {
				return nil, nil, err
			}
		}
	}
	hs := make([]uint64, keys[0].Len())
	hashColumns(keys, 0, hs)
	li, ri = j.table.probe(keys, hs, nil, nil)
	return li, ri, nil
}

// padLeft adds a (i, NULL) pair, in order, for every left row without a pair (ri -1).
func padLeft(n int, li, ri []int64) ([]int64, []int64) {
	var ol, or []int64
	k := 0
	for i := 0; i < n; i++ {
		found := false
		for k < len(li) && li[k] == int64(i) {
			ol, or = append(ol, li[k]), append(or, ri[k])
			k++
			found = true
		}
		if !found {
			ol, or = append(ol, int64(i)), append(or, -1)
		}
	}
	return ol, or
}

// checkResidual keeps the pairs whose residual condition is true.
func (j *hashJoin) checkResidual(left arrow.RecordBatch, li, ri []int64) ([]int64, []int64, error) {
	cols, err := j.pairColumns(left.Columns(), li, ri)
	if err != nil {
		return nil, nil, err
	}
	fields := append(append([]arrow.Field(nil), left.Schema().Fields()...), flow.UserSchema(j.spec.RightSchema).Fields()...)
	return j.keepPairs(cols, fields, li, ri)
}

// keepPairs keeps the pairs (li[k], ri[k]) for which the residual condition over row k of cols
// (fields) is true; it releases cols.
func (j *hashJoin) keepPairs(cols []arrow.Array, fields []arrow.Field, li, ri []int64) ([]int64, []int64, error) {
	defer releaseAll(cols)
	pairs := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(li)))
	defer pairs.Release()
	res, err := evalUser(j.ctx, []expr.Expr{j.spec.Residual}, pairs)
	if err != nil {
		return nil, nil, err
	}
	defer releaseAll(res)
	b, ok := res[0].(*array.Boolean)
	if !ok {
		return nil, nil, sparkerr.Internal("join condition evaluated to %s", res[0].DataType())
	}
	var ol, or []int64
	for k := range li {
		if b.IsValid(k) && b.Value(k) {
			ol, or = append(ol, li[k]), append(or, ri[k])
		}
	}
	return ol, or, nil
}

// pairColumns gathers left rows li next to right rows ri (-1: NULLs).
func (j *hashJoin) pairColumns(left []arrow.Array, li, ri []int64) ([]arrow.Array, error) {
	lidx, lvalid := nullable(li)
	ridx, rvalid := nullable(ri)
	lc, err := take(j.env.Mem, left, lidx, lvalid)
	if err != nil {
		return nil, err
	}
	rc, err := take(j.env.Mem, j.rightCols, ridx, rvalid)
	if err != nil {
		releaseAll(lc)
		return nil, err
	}
	return append(lc, rc...), nil
}

// nullable maps -1 entries to NULL indices.
func nullable(idx []int64) ([]int64, []bool) {
	var valid []bool
	out := idx
	for k, x := range idx {
		if x >= 0 {
			continue
		}
		if valid == nil {
			valid = make([]bool, len(idx))
			for i := range valid {
				valid[i] = true
			}
			out = append([]int64(nil), idx...)
		}
		valid[k] = false
		out[k] = 0
	}
	return out, valid
}

// emitPairs emits the joined rows of pairs (li, ri); a row takes the retraction flag of its
// left row (leftRetracted nil: none), so retracting a left row retracts what it joined to.
func (j *hashJoin) emitPairs(ctx context.Context, left []arrow.Array, leftRetracted *array.Boolean, li, ri []int64, out flow.Emitter) error {
	for lo := 0; lo < len(li); lo += BatchRows {
		hi := min(len(li), lo+BatchRows)
		cols, err := j.pairColumns(left, li[lo:hi], ri[lo:hi])
		if err != nil {
			return err
		}
		var ret arrow.Array
		if leftRetracted != nil && leftRetracted.NullN() < leftRetracted.Len() {
			flags := make([]bool, hi-lo)
			for k, i := range li[lo:hi] {
				flags[k] = i >= 0 && leftRetracted.Value(int(i))
			}
			ret = boolArray(j.env.Mem, flags)
		}
		err = emitColumns(ctx, j.env, out, cols, ret)
		releaseAll(cols)
		if ret != nil {
			ret.Release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (j *hashJoin) EndOfData(ctx context.Context, out flow.Emitter) error {
	if !j.built {
		// Every input ended: build, and probe the left rows that waited for the build.
		if err := j.InputEnded(ctx, 1, out); err != nil {
			return err
		}
	}
	if j.spec.BuildLeft {
		return j.emitMarked(ctx, out)
	}
	if j.spec.Type != plan.RightOuterJoin && j.spec.Type != plan.FullOuterJoin {
		return nil
	}
	var li, ri []int64
	for r, m := range j.matched {
		if !m {
			li, ri = append(li, -1), append(ri, int64(r))
		}
	}
	empty, err := concatColumns(j.env.Mem, j.spec.LeftSchema, nil)
	if err != nil {
		return err
	}
	defer releaseAll(empty)
	return j.emitPairs(ctx, empty, nil, li, ri, out)
}

func (j *hashJoin) Close() {
	for _, recs := range j.right {
		releaseRecords(recs)
	}
	releaseRecords(j.early)
	releaseAll(j.rightCols)
	releaseAll(j.rightKeys)
	j.right, j.early, j.rightCols, j.rightKeys = nil, nil, nil, nil
	j.fixed, j.table = nil, nil
	j.mem.release()
}
