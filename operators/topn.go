package operators

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
)

// TopN is Sort followed by Limit(n, offset) without sorting everything: it keeps the first
// n+offset rows in keys' order in a heap (ties go to the earlier row, as the stable Sort
// orders them), and at end of data emits them sorted, skipping offset. The planner runs one per
// input partition, then one over their ordered gather.
func TopN(ctx *expr.Context, keys []SortKey, n, offset int64) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		es := make([]expr.Expr, len(keys))
		for i, k := range keys {
			es[i] = k.Expr
		}
		k := int(n + offset)
		return &topN{env: env, ctx: instanceContext(ctx, env), keys: keys, exprs: es, k: k, offset: int(offset),
			compactAt: 2*k + 4*BatchRows, mem: goMemory{env: env}}, nil
	}
}

// topRun is rows held for the heap: user columns and their sort keys.
type topRun struct {
	cols    []arrow.Array
	keyCols []arrow.Array
	keys    rowKeys
	live    int   // heap entries pointing here
	goBytes int64 // of keys, counted in topN.mem
}

func (r *topRun) release() {
	releaseAll(r.cols)
	releaseAll(r.keyCols)
}

type topEntry struct {
	run, row int32
	seq      int64
}

type topN struct {
	env       flow.Env
	ctx       *expr.Context
	keys      []SortKey
	exprs     []expr.Expr
	k, offset int
	// compactAt is the number of rows held past which the heap's rows move into one run.
	compactAt int
	order     *sortOrder
	runs      []*topRun // nil once every entry left
	held      int       // rows of the runs
	heap      []topEntry
	seq       int64
	// mem counts the heap's and the runs' normalized keys against the query's budget.
	mem goMemory
}

// topEntryBytes is the size of one heap entry.
const topEntryBytes = 16

// worse reports whether entry a comes after b in the output order.
func (t *topN) worse(a, b topEntry) bool {
	r := t.order.compare(&t.runs[a.run].keys, int(a.row), &t.runs[b.run].keys, int(b.row))
	return r > 0 || r == 0 && a.seq > b.seq
}

func (t *topN) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	n := int(rec.NumRows())
	if n == 0 || t.k <= 0 {
		return nil
	}
	user := flow.UserColumns(rec)
	defer user.Release()
	keyCols, err := evalUser(t.ctx, t.exprs, user)
	if err != nil {
		return err
	}
	if t.order == nil {
		t.order = newSortOrder(t.keys, keyCols)
	}
	if err := t.growHeap(min(t.k, len(t.heap)+n)); err != nil {
		releaseAll(keyCols)
		return err
	}
	goBytes := t.order.normBytes(n, len(keyCols))
	if err := t.mem.grow(goBytes); err != nil {
		releaseAll(keyCols)
		return err
	}
	run := &topRun{cols: append([]arrow.Array(nil), user.Columns()...), keyCols: keyCols, goBytes: goBytes}
	for _, c := range run.cols {
		c.Retain()
	}
	run.keys = t.order.encode(keyCols)
	ri := int32(len(t.runs))
	t.runs = append(t.runs, run)
	t.held += n
	for i := 0; i < n; i++ {
		e := topEntry{run: ri, row: int32(i), seq: t.seq}
		t.seq++
		if len(t.heap) < t.k {
			run.live++
			t.push(e)
			continue
		}
		// A later row enters only when strictly before the current last one.
		top := t.heap[0]
		if t.order.compare(&run.keys, i, &t.runs[top.run].keys, int(top.row)) >= 0 {
			continue
		}
		run.live++ // first: the entry leaving may be this run's last
		t.dropRef(top.run)
		t.heap[0] = e
		t.down(0)
	}
	if run.live == 0 {
		t.dropRun(ri)
	}
	if t.held > t.compactAt {
		return t.compact()
	}
	return nil
}

// growHeap makes room for need heap entries, counting the heap's new capacity first.
func (t *topN) growHeap(need int) error {
	if need <= cap(t.heap) {
		return nil
	}
	c := max(need, min(t.k, 2*cap(t.heap)))
	if err := t.mem.grow(int64(c-cap(t.heap)) * topEntryBytes); err != nil {
		return err
	}
	t.heap = slices.Grow(t.heap, c-len(t.heap))
	// slices.Grow may round the capacity up to the allocator's size class: count that too.
	return t.mem.grow(int64(cap(t.heap)-c) * topEntryBytes)
}

func (t *topN) dropRef(ri int32) {
	if r := t.runs[ri]; r != nil {
		r.live--
		if r.live == 0 {
			t.dropRun(ri)
		}
	}
}

func (t *topN) dropRun(ri int32) {
	r := t.runs[ri]
	t.held -= r.cols[0].Len()
	t.mem.shrink(r.goBytes)
	r.release()
	t.runs[ri] = nil
}

func (t *topN) push(e topEntry) {
	t.heap = append(t.heap, e)
	for i := len(t.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !t.worse(t.heap[i], t.heap[p]) {
			break
		}
		t.heap[i], t.heap[p] = t.heap[p], t.heap[i]
		i = p
	}
}

func (t *topN) down(i int) {
	for {
		l, w := 2*i+1, i
		if l < len(t.heap) && t.worse(t.heap[l], t.heap[w]) {
			w = l
		}
		if r := l + 1; r < len(t.heap) && t.worse(t.heap[r], t.heap[w]) {
			w = r
		}
		if w == i {
			return
		}
		t.heap[i], t.heap[w] = t.heap[w], t.heap[i]
		i = w
	}
}

// compact gathers the heap's rows into one run (in heap order), so the rows held stay within
// a bound of n+offset.
func (t *topN) compact() error {
	if len(t.heap) == 0 {
		return nil
	}
	var parts []*topRun
	for ri, r := range t.runs {
		if r == nil {
			continue
		}
		var idx []int64
		for _, e := range t.heap {
			if int(e.run) == ri {
				idx = append(idx, int64(e.row))
			}
		}
		cols, err := take(t.env.Mem, r.cols, idx, nil)
		if err != nil {
			releaseRuns(parts)
			return err
		}
		keyCols, err := take(t.env.Mem, r.keyCols, idx, nil)
		if err != nil {
			releaseAll(cols)
			releaseRuns(parts)
			return err
		}
		parts = append(parts, &topRun{cols: cols, keyCols: keyCols})
	}
	merged := &topRun{}
	for c := range parts[0].cols {
		col, err := concatArrays(t.env.Mem, parts, func(r *topRun) arrow.Array { return r.cols[c] })
		if err != nil {
			releaseRuns(parts)
			merged.release()
			return err
		}
		merged.cols = append(merged.cols, col)
	}
	for c := range parts[0].keyCols {
		col, err := concatArrays(t.env.Mem, parts, func(r *topRun) arrow.Array { return r.keyCols[c] })
		if err != nil {
			releaseRuns(parts)
			merged.release()
			return err
		}
		merged.keyCols = append(merged.keyCols, col)
	}
	releaseRuns(parts)
	// Entries take their new row numbers in the merged run: runs in order, rows in heap order.
	base := map[int32]int32{}
	var next int32
	counts := map[int32]int32{}
	for ri, r := range t.runs {
		if r == nil {
			continue
		}
		base[int32(ri)] = next
		next += int32(r.live)
	}
	for i, e := range t.heap {
		t.heap[i] = topEntry{run: 0, row: base[e.run] + counts[e.run], seq: e.seq}
		counts[e.run]++
	}
	for _, r := range t.runs {
		if r != nil {
			t.mem.shrink(r.goBytes)
			r.release()
		}
	}
	merged.goBytes = t.order.normBytes(len(t.heap), len(merged.keyCols))
	if err := t.mem.grow(merged.goBytes); err != nil {
		t.runs = nil
		merged.release()
		return err
	}
	merged.keys = t.order.encode(merged.keyCols)
	merged.live = len(t.heap)
	t.runs, t.held = []*topRun{merged}, len(t.heap)
	return nil
}

func releaseRuns(rs []*topRun) {
	for _, r := range rs {
		r.release()
	}
}

func concatArrays(mem memory.Allocator, runs []*topRun, col func(*topRun) arrow.Array) (arrow.Array, error) {
	if len(runs) == 1 {
		a := col(runs[0])
		a.Retain()
		return a, nil
	}
	parts := make([]arrow.Array, len(runs))
	for i, r := range runs {
		parts[i] = col(r)
	}
	return array.Concatenate(parts, mem)
}

func (t *topN) EndOfData(ctx context.Context, out flow.Emitter) error {
	if len(t.heap) <= t.offset {
		return nil
	}
	if err := t.compact(); err != nil {
		return err
	}
	entries := slices.Clone(t.heap)
	slices.SortFunc(entries, func(a, b topEntry) int {
		if a.seq == b.seq {
			return 0
		}
		if t.worse(a, b) {
			return 1
		}
		return -1
	})
	entries = entries[t.offset:]
	idx := make([]int64, len(entries))
	for i, e := range entries {
		idx[i] = int64(e.row)
	}
	sorted, err := take(t.env.Mem, t.runs[0].cols, idx, nil)
	if err != nil {
		return err
	}
	defer releaseAll(sorted)
	return emitInChunks(ctx, t.env, out, sorted, nil)
}

func (t *topN) Close() {
	for _, r := range t.runs {
		if r != nil {
			r.release()
		}
	}
	t.runs, t.heap = nil, nil
	t.mem.release()
}
