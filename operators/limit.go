package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
)

// Limit skips offset rows, then passes at most n rows (n < 0: no limit). Once it has its rows
// it reports Done, so the runtime stops the producers feeding it.
func Limit(n, offset int64) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &limit{env: env, left: n, skip: offset}, nil
	}
}

type limit struct {
	env        flow.Env
	left, skip int64
}

func (l *limit) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	if l.Done() {
		return nil
	}
	lo, n := int64(0), rec.NumRows()
	if l.skip > 0 {
		lo = min(l.skip, n)
		l.skip -= lo
	}
	hi := n
	if l.left >= 0 {
		hi = min(n, lo+l.left)
		l.left -= hi - lo
	}
	if hi <= lo {
		return nil
	}
	if lo == 0 && hi == n {
		return out.Emit(ctx, relabel(l.env, rec))
	}
	s := rec.NewSlice(lo, hi)
	defer s.Release()
	return out.Emit(ctx, relabel(l.env, s))
}

// Done implements flow.Finisher.
func (l *limit) Done() bool { return l.left == 0 }

// Tail keeps the last n rows and emits them at end of data.
func Tail(n int64) Factory {
	return func(env flow.Env) (flow.Operator, error) { return &tail{env: env, n: n}, nil }
}

type tail struct {
	env   flow.Env
	n     int64
	recs  []arrow.RecordBatch
	total int64
}

func (t *tail) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if t.n <= 0 || rec.NumRows() == 0 {
		return nil
	}
	rec.Retain()
	t.recs = append(t.recs, rec)
	t.total += rec.NumRows()
	for len(t.recs) > 0 && t.total-t.recs[0].NumRows() >= t.n {
		t.total -= t.recs[0].NumRows()
		t.recs[0].Release()
		t.recs = t.recs[1:]
	}
	return nil
}

func (t *tail) EndOfData(ctx context.Context, out flow.Emitter) error {
	skip := max(0, t.total-t.n)
	for len(t.recs) > 0 {
		rec := t.recs[0]
		t.recs = t.recs[1:]
		lo := min(skip, rec.NumRows())
		skip -= lo
		s := rec.NewSlice(lo, rec.NumRows())
		rec.Release()
		if s.NumRows() == 0 {
			s.Release()
			continue
		}
		err := out.Emit(ctx, relabel(t.env, s))
		s.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tail) Close() { releaseRecords(t.recs); t.recs = nil }

// Concat is the order-preserving gather: it emits everything producer partition 0 sends, then
// everything partition 1 sends, and so on, buffering batches of later partitions until the
// earlier ones ended. The planner puts it on every plan output of more than one partition, so
// a plan without an exchange returns rows in partition order (spark.range(10) gives 0..9).
func Concat() Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &concat{env: env, held: map[int][]arrow.RecordBatch{}, ended: map[int]bool{}}, nil
	}
}

type concat struct {
	env   flow.Env
	cur   int
	held  map[int][]arrow.RecordBatch
	ended map[int]bool
}

func (c *concat) Process(ctx context.Context, in int, rec arrow.RecordBatch, out flow.Emitter) error {
	return c.ProcessFrom(ctx, in, 0, rec, out)
}

// ProcessFrom implements flow.SenderAware.
func (c *concat) ProcessFrom(ctx context.Context, _, sender int, rec arrow.RecordBatch, out flow.Emitter) error {
	if sender == c.cur {
		return out.Emit(ctx, relabel(c.env, rec))
	}
	rec.Retain()
	c.held[sender] = append(c.held[sender], rec)
	return nil
}

// SenderEnded implements flow.SenderAware: moves on to the next partition that has not ended
// yet, flushing what was held for the partitions passed.
func (c *concat) SenderEnded(ctx context.Context, _, sender int, out flow.Emitter) error {
	c.ended[sender] = true
	for c.ended[c.cur] {
		c.cur++
		if err := c.flush(ctx, c.cur, out); err != nil {
			return err
		}
	}
	return nil
}

func (c *concat) flush(ctx context.Context, sender int, out flow.Emitter) error {
	recs := c.held[sender]
	delete(c.held, sender)
	for i, r := range recs {
		err := out.Emit(ctx, relabel(c.env, r))
		r.Release()
		if err != nil {
			releaseRecords(recs[i+1:])
			return err
		}
	}
	return nil
}

func (c *concat) Close() {
	for _, recs := range c.held {
		releaseRecords(recs)
	}
	c.held = nil
}
