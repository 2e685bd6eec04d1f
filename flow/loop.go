package flow

import (
	"context"
	"fmt"

	"github.com/weirhq/weir/barrier"
)

// loop is one operator instance's receive loop: it owns end-of-data counting, barrier alignment
// (holding data of senders that are ahead) and watermark merging, and calls the operator.
type loop struct {
	t       *task
	op      Operator
	out     *taskEmitter
	aligner *barrier.Aligner
	held    []envelope // data and markers of blocked senders, in arrival order
	done    bool
	// endSent: EndOfData went downstream; allEnded: every sender ended.
	endSent, allEnded bool
}

func newLoop(t *task, op Operator, out *taskEmitter, policy barrier.Policy) *loop {
	a := barrier.NewAligner(t.senders)
	a.SetPolicy(policy)
	return &loop{t: t, op: op, out: out, aligner: a}
}

func (l *loop) run(ctx context.Context, j *localJob) error {
	defer func() {
		for _, e := range l.held {
			e.rec.Release()
		}
	}()
	// An instance with no senders at all (e.g. partitions > 0 of a gather) ends at once.
	if total(l.t.senders) == 0 {
		return l.finish(ctx)
	}
	fin, _ := l.op.(Finisher)
	for !l.done {
		select {
		case e := <-l.t.inbox:
			if err := l.handle(ctx, e); err != nil {
				if j.stoppedEarly(l.t) {
					return l.drain(j)
				}
				return err
			}
			if fin != nil && !l.done && fin.Done() {
				if err := l.finish(ctx); err != nil && !j.stoppedEarly(l.t) {
					return err
				}
				return l.drain(j)
			}
		case <-ctx.Done():
			if j.stoppedEarly(l.t) {
				return l.drain(j)
			}
			return ctx.Err()
		}
	}
	return nil
}

// drain is the end of an instance that needs no more input: it makes sure EndOfData went
// downstream, lets the job stop producers nobody needs, and discards input until every sender
// ended (senders never block on it).
func (l *loop) drain(j *localJob) error {
	j.markNeedless(l.t)
	if !l.endSent {
		if err := l.out.emitMarker(j.ctx, Marker{Kind: MarkerEndOfData}); err != nil {
			return err
		}
		l.endSent = true
	}
	ended := l.allEnded
	discard := func(e envelope) {
		if m, ok, _ := MarkerOf(e.rec); ok && m.Kind == MarkerEndOfData && !ended {
			_, _, ended = l.aligner.End(barrier.SenderID{Input: e.input, Sender: e.sender})
		}
		e.rec.Release()
	}
	held := l.held
	l.held = nil
	for _, e := range held {
		discard(e)
	}
	for !ended {
		select {
		case e := <-l.t.inbox:
			discard(e)
		case <-j.ctx.Done():
			return j.ctx.Err()
		}
	}
	return nil
}

func total(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func (l *loop) handle(ctx context.Context, e envelope) error {
	id := barrier.SenderID{Input: e.input, Sender: e.sender}
	if l.aligner.Blocked(id) {
		l.held = append(l.held, e)
		return nil
	}
	m, isMarker, err := MarkerOf(e.rec)
	if err != nil {
		e.rec.Release()
		return err
	}
	if !isMarker {
		defer e.rec.Release()
		if sa, ok := l.op.(SenderAware); ok {
			err = sa.ProcessFrom(ctx, e.input, e.sender, e.rec, l.out)
		} else {
			err = l.op.Process(ctx, e.input, e.rec, l.out)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", l.t.node.Name, err)
		}
		return nil
	}
	e.rec.Release()
	switch m.Kind {
	case MarkerBarrier:
		if l.aligner.Barrier(id, m.Epoch) {
			// The first alignment settles which inputs carry a watermark.
			if err := l.watermark(ctx, l.aligner.Advance); err != nil {
				return err
			}
			return l.barrierAligned(ctx, m.Epoch)
		}
	case MarkerWatermark:
		return l.watermark(ctx, func() (int64, bool) { return l.aligner.Watermark(id, m.Timestamp) })
	case MarkerEndOfData:
		epoch := l.aligner.Pending()
		aligned, inputEnded, allEnded := l.aligner.End(id)
		l.allEnded = allEnded
		if aligned {
			if err := l.barrierAligned(ctx, epoch); err != nil {
				return err
			}
		}
		if sa, ok := l.op.(SenderAware); ok {
			if err := sa.SenderEnded(ctx, e.input, e.sender, l.out); err != nil {
				return err
			}
		}
		if inputEnded {
			if h, ok := l.op.(InputEnder); ok {
				if err := h.InputEnded(ctx, e.input, l.out); err != nil {
					return err
				}
			}
		}
		if allEnded {
			return l.finish(ctx)
		}
	}
	return nil
}

// watermark lets the operator act on the merged watermark and forwards it, when merge says
// it advanced.
func (l *loop) watermark(ctx context.Context, merge func() (int64, bool)) error {
	ts, adv := merge()
	if !adv {
		return nil
	}
	if h, ok := l.op.(WatermarkHandler); ok {
		if err := h.Watermark(ctx, ts, l.out); err != nil {
			return err
		}
	}
	return l.out.emitMarker(ctx, Marker{Kind: MarkerWatermark, Timestamp: ts})
}

// barrierAligned lets the operator emit what the epoch completes, saves its state snapshot
// (Snapshotter, with a StateBackend; a StateCapturer's only captured here and saved in the
// background), forwards the barrier and replays the data held back during alignment.
func (l *loop) barrierAligned(ctx context.Context, epoch int64) error {
	var metrics *StateMetrics
	if r, ok := l.op.(StateReporter); ok {
		m := r.StateMetrics()
		metrics = &m
	}
	if h, ok := l.op.(BarrierHandler); ok {
		if err := h.Barrier(ctx, epoch, l.out); err != nil {
			return err
		}
	}
	if err := l.out.job.snapshot(ctx, l.t, l.op, epoch, metrics); err != nil {
		return err
	}
	if err := l.out.emitMarker(ctx, Marker{Kind: MarkerBarrier, Epoch: epoch}); err != nil {
		return err
	}
	held := l.held
	l.held = nil
	for i, e := range held {
		if err := l.handle(ctx, e); err != nil {
			for _, rest := range held[i+1:] {
				rest.rec.Release()
			}
			return err
		}
	}
	return nil
}

func (l *loop) finish(ctx context.Context) error {
	l.done = true
	if h, ok := l.op.(EndOfDataHandler); ok {
		if err := h.EndOfData(ctx, l.out); err != nil {
			return err
		}
	}
	if err := l.out.emitMarker(ctx, Marker{Kind: MarkerEndOfData}); err != nil {
		return err
	}
	l.endSent = true
	return nil
}
