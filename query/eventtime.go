package query

import (
	"sync/atomic"
	"time"

	"github.com/weirhq/weir/logical"
	"github.com/weirhq/weir/planner"
)

// Event time in a query: the planner hands its watermark stats and aggregates' late-row
// counters to q.observers (planner.Options.Observers); progress reads them per epoch.

// eventTimeKeyed reports whether every aggregate groups on a watermarked event time, which
// Spark requires of streaming aggregations in append mode (a group is final, and emitted, once
// the watermark passes it).
func eventTimeKeyed(aggs []*logical.Aggregate) bool {
	for _, a := range aggs {
		if _, _, ok := logical.EventTimeKey(a); !ok {
			return false
		}
	}
	return true
}

// eventTimeProgress is progress' eventTime: the min, max and avg event time of the rows the
// epoch read and the epoch's watermark (Spark's batchWatermarkMs: computed from the epochs
// before), as ISO-8601 UTC strings; empty without withWatermark (Spark reports the watermark
// as the epoch, 1970-01-01T00:00:00.000Z, until the first one). Weir closes windows with the
// watermark computed at the epoch's own barrier, which the next epoch reports.
func eventTimeProgress(obs *planner.Observers) map[string]string {
	out := map[string]string{}
	if len(obs.EventTime) == 0 {
		return out
	}
	var wm int64
	var seenWM bool
	var lo, hi, sum, n int64
	for _, s := range obs.EventTime {
		r, w, ok := s.TakeEpoch()
		if ok && (!seenWM || w < wm) {
			wm, seenWM = w, true
		}
		if r.Count == 0 {
			continue
		}
		if n == 0 || r.Min < lo {
			lo = r.Min
		}
		if n == 0 || r.Max > hi {
			hi = r.Max
		}
		sum += r.Sum
		n += r.Count
	}
	out["watermark"] = isoMicros(max(wm, 0))
	if n > 0 {
		out["min"], out["max"], out["avg"] = isoMicros(lo), isoMicros(hi), isoMicros(sum/n)
	}
	return out
}

func isoMicros(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000Z")
}

// droppedSince returns, for each streaming aggregate in plan order, the late rows it dropped
// since the previous call.
func (q *Query) droppedSince() []int64 {
	if q.dropped == nil {
		q.dropped = map[*atomic.Int64]int64{}
	}
	last := q.dropped
	out := make([]int64, len(q.observers.Aggregates))
	for i, c := range q.observers.Aggregates {
		if c == nil {
			continue
		}
		v := c.Load()
		out[i] = v - last[c]
		last[c] = v
	}
	return out
}
