package operators

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
)

// WatermarkSpec configures EventTimeWatermark (withWatermark).
type WatermarkSpec struct {
	// Column is the event-time user column: a timestamp, or a window struct whose end is used.
	Column int
	// Delay is subtracted from the maximum event time seen, in microseconds.
	Delay int64
	// Stats is shared by every instance of the node (NewEventTimeStats); required.
	Stats *EventTimeStats
}

// EventTimeWatermark is withWatermark's operator. It forwards its input unchanged and tracks
// the largest event time of its partition. At each aligned barrier N it publishes that maximum
// to the node-wide EventTimeStats and waits until every partition of the node published for
// epoch N (a rendezvous: every partition receives every barrier, and in micro-batch mode no
// data of epoch N+1 exists before epoch N completed). The watermark then becomes max(previous,
// global max − delay) — Spark's: the maximum event time of all the data so far, the same in
// every partition, never moving backwards — and is emitted as a Watermark marker just before
// the barrier goes downstream, so stateful operators downstream close what it passes within
// epoch N (Spark closes them in the batch after N, or in a no-data batch: the rows are the
// same, one batch earlier) and judge epoch N+1's rows against it. A restored instance emits
// its watermark before its first data.
func EventTimeWatermark(spec WatermarkSpec) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		if spec.Stats == nil {
			return nil, fmt.Errorf("operators: event-time watermark without shared stats")
		}
		return &watermarkOp{env: env, spec: spec, max: math.MinInt64, emitted: math.MinInt64}, nil
	}
}

type watermarkOp struct {
	env  flow.Env
	spec WatermarkSpec
	// max is the largest event time this partition saw; emitted the last watermark sent.
	max, emitted int64
	// published: max was handed to the stats at the last barrier, and no data came since.
	published bool
	// begun: data arrived already.
	begun bool
}

func (w *watermarkOp) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	// A restored or seeded watermark goes out before the first data, which it judges.
	_, seeded := w.spec.Stats.Watermark()
	if w.published || (!w.begun && seeded) {
		w.published = false
		if err := w.emitWatermark(ctx, out); err != nil {
			return err
		}
	}
	w.begun = true
	times := eventTimeValues(rec.Column(flow.UserOffset + w.spec.Column))
	ret := flow.Retracted(rec)
	var lo, hi, sum, n int64 = math.MaxInt64, math.MinInt64, 0, 0
	for i, t := range times {
		if t == noTime || ret.Value(i) {
			continue
		}
		lo, hi = min(lo, t), max(hi, t)
		sum += t
		n++
	}
	if n > 0 {
		w.max = max(w.max, hi)
		w.spec.Stats.observe(lo, hi, sum, n)
	}
	rec.Retain()
	return out.Emit(ctx, rec)
}

// Barrier implements flow.BarrierHandler: publish, then emit the watermark before the barrier.
func (w *watermarkOp) Barrier(ctx context.Context, epoch int64, out flow.Emitter) error {
	if err := w.spec.Stats.rendezvous(ctx, epoch, w.env.Partition, w.env.Partitions, w.max); err != nil {
		return err
	}
	return w.emitWatermark(ctx, out)
}

// emitWatermark sends the current watermark if it advanced past the last one sent. Before any
// event time was seen it sends 0, Spark's watermark of a watermark operator without data: the
// declaration by which operators downstream count this input among the watermarked ones
// (barrier.Aligner), so that a join or union holds its watermark back until this input's
// moves, as Spark's global watermark does.
func (w *watermarkOp) emitWatermark(ctx context.Context, out flow.Emitter) error {
	wm, ok := w.spec.Stats.watermarkFor(w.spec.Delay)
	if !ok {
		wm = 0
	}
	if wm <= w.emitted {
		return nil
	}
	w.emitted = wm
	return out.Emit(ctx, flow.NewMarkerBatch(w.env.Mem, w.env.OutSchema, flow.Marker{Kind: flow.MarkerWatermark, Timestamp: wm}))
}

// watermarkState is the operator's snapshot: the partition's maximum event time and the last
// watermark it sent.
type watermarkState struct{ Max, Emitted int64 }

// EndOfData implements flow.EndOfDataHandler: the partition leaves the barrier rendezvous.
func (w *watermarkOp) EndOfData(context.Context, flow.Emitter) error {
	w.spec.Stats.leave(w.env.Partitions)
	return nil
}

// SnapshotState implements flow.Snapshotter.
func (w *watermarkOp) SnapshotState(int64) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(watermarkState{Max: w.max, Emitted: w.emitted}); err != nil {
		return nil, fmt.Errorf("watermark state: %w", err)
	}
	return b.Bytes(), nil
}

// RestoreState implements flow.Snapshotter: the maximum is published again, so the restored
// query's watermark resumes where it was (sent before the first data).
func (w *watermarkOp) RestoreState(data []byte) error {
	var st watermarkState
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&st); err != nil {
		return fmt.Errorf("watermark state: %w", err)
	}
	w.max = st.Max
	w.spec.Stats.publish(w.env.Partition, w.max)
	w.spec.Stats.Seed(st.Emitted)
	w.published = true
	return nil
}

// eventTimeValues reads an event-time column (timestamp, or a struct's "end" timestamp field)
// as microseconds, noTime for NULL.
func eventTimeValues(a arrow.Array) []int64 {
	out := make([]int64, a.Len())
	if s, ok := a.(*array.Struct); ok {
		st := s.DataType().(*arrow.StructType)
		idx, found := st.FieldIdx("end")
		if !found {
			for i := range out {
				out[i] = noTime
			}
			return out
		}
		end := eventTimeValues(s.Field(idx))
		for i := range out {
			out[i] = end[i]
			if s.IsNull(i) {
				out[i] = noTime
			}
		}
		return out
	}
	ts, ok := a.(*array.Timestamp)
	for i := range out {
		switch {
		case a.IsNull(i):
			out[i] = noTime
		case ok:
			out[i] = int64(ts.Value(i))
		default:
			out[i] = intValue(a, i)
		}
	}
	return out
}

// EventTimeStats is shared by the instances of one EventTimeWatermark node and read by the
// query for progress: the maximum event time each partition published at its last barrier
// (whose maximum, minus the delay, is the watermark), and the min/max/sum/count of the event
// times seen since the query last took them. Safe for concurrent use.
type EventTimeStats struct {
	mu        sync.Mutex
	published map[int]int64
	// arrived counts, per epoch being aligned, the partitions that published for it; done is
	// closed once all did.
	arrived map[int64]int
	done    map[int64]chan struct{}
	// ended counts the partitions whose input ended: they meet no more barriers (e.g. the
	// static side of a union).
	ended     int
	watermark int64 // highest watermark handed out, math.MinInt64 before any
	// epochWatermark is the watermark at the last TakeEpoch: the one the epoch being reported
	// judged its rows against.
	epochWatermark int64
	seen           EventTimeRange
}

// EventTimeRange summarizes event times (microseconds since the epoch, UTC).
type EventTimeRange struct {
	Min, Max, Sum, Count int64
}

// Avg is the mean event time, truncated to microseconds (0 for no rows).
func (r EventTimeRange) Avg() int64 {
	if r.Count == 0 {
		return 0
	}
	return r.Sum / r.Count
}

// NewEventTimeStats makes the shared stats of a watermark node.
func NewEventTimeStats() *EventTimeStats {
	return &EventTimeStats{published: map[int]int64{}, arrived: map[int64]int{}, done: map[int64]chan struct{}{},
		watermark: math.MinInt64, epochWatermark: math.MinInt64,
		seen: EventTimeRange{Min: math.MaxInt64, Max: math.MinInt64}}
}

func (s *EventTimeStats) observe(lo, hi, sum, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen.Min, s.seen.Max = min(s.seen.Min, lo), max(s.seen.Max, hi)
	s.seen.Sum += sum
	s.seen.Count += n
}

func (s *EventTimeStats) publish(partition int, maxTime int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.published[partition]; !ok || maxTime > old {
		s.published[partition] = maxTime
	}
}

// rendezvous publishes partition's maximum for epoch and waits until all partitions did.
func (s *EventTimeStats) rendezvous(ctx context.Context, epoch int64, partition, partitions int, maxTime int64) error {
	s.mu.Lock()
	if old, ok := s.published[partition]; !ok || maxTime > old {
		s.published[partition] = maxTime
	}
	ch, ok := s.done[epoch]
	if !ok {
		ch = make(chan struct{})
		s.done[epoch] = ch
	}
	s.arrived[epoch]++
	s.release(partitions)
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release opens the rendezvous of every epoch all live partitions reached. s.mu is held.
func (s *EventTimeStats) release(partitions int) {
	for epoch, n := range s.arrived {
		if n+s.ended >= partitions {
			close(s.done[epoch])
			delete(s.done, epoch)
			delete(s.arrived, epoch)
		}
	}
}

// leave records that a partition's input ended: rendezvous no longer wait for it.
func (s *EventTimeStats) leave(partitions int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended++
	s.release(partitions)
}

// watermarkFor is the global maximum published minus delay, never below one handed out
// before; ok is false while no partition has seen an event time.
func (s *EventTimeStats) watermarkFor(delay int64) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := int64(math.MinInt64)
	for _, v := range s.published {
		m = max(m, v)
	}
	if m == math.MinInt64 {
		return s.watermark, s.watermark != math.MinInt64
	}
	s.watermark = max(s.watermark, m-delay)
	return s.watermark, true
}

// Seed makes wm (microseconds) the node's watermark if it is higher: the watermark a restarted
// query had reached (a restored snapshot, or the offsets log of an epoch that runs again). The
// next epoch reports it as the watermark its rows are judged against, and the node's
// partitions send at least it before their first data.
func (s *EventTimeStats) Seed(wm int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if wm == math.MinInt64 || wm <= s.watermark {
		return
	}
	s.watermark = wm
	s.epochWatermark = max(s.epochWatermark, wm)
}

// Watermark is the current watermark (microseconds) and whether there is one yet (Spark reports
// 0, the epoch, before the first).
func (s *EventTimeStats) Watermark() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watermark, s.watermark != math.MinInt64
}

// TakeEpoch is Take for an epoch's progress, with the epoch's watermark as Spark reports it
// (batchWatermarkMs: the watermark the epoch's rows were judged against, computed from the
// epochs before; ok is false before there was one).
func (s *EventTimeStats) TakeEpoch() (r EventTimeRange, watermark int64, ok bool) {
	r = s.Take()
	s.mu.Lock()
	defer s.mu.Unlock()
	watermark, ok = s.epochWatermark, s.epochWatermark != math.MinInt64
	s.epochWatermark = s.watermark
	return r, watermark, ok
}

// Take returns the event times seen since the last Take (Count 0 when none) and resets them.
func (s *EventTimeStats) Take() EventTimeRange {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.seen
	s.seen = EventTimeRange{Min: math.MaxInt64, Max: math.MinInt64}
	if r.Count == 0 {
		return EventTimeRange{}
	}
	return r
}
