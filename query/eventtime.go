package query

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/weirhq/weir/barrier"
	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/sql/logical"
)

// Event time in a query: the planner hands its watermark stats and aggregates' late-row
// counters to q.observers (planner.Options.Observers); progress reads them per epoch. Each
// epoch's offsets-log entry records the watermark it runs with (offsetMeta); a restart keeps
// the logged watermark policy and an epoch that runs again starts from its logged watermarks.

// ShufflePartitionsConf is the state partition count Spark records with each epoch.
const ShufflePartitionsConf = "spark.sql.shuffle.partitions"

// watermarkPolicy is how the query combines several watermarks: the policy its checkpoint
// logged (Spark keeps it across restarts), else the session's
// spark.sql.streaming.multipleWatermarkPolicy, else min.
func (q *Query) watermarkPolicy() (barrier.Policy, error) {
	v := ""
	if q.resume != nil {
		v = q.resume.conf[barrier.PolicyConf]
	}
	if v == "" && q.m.env.Conf != nil {
		v, _ = q.m.env.Conf(barrier.PolicyConf)
	}
	if v == "" {
		return barrier.PolicyMin, nil
	}
	return barrier.ParsePolicy(v)
}

// offsetMeta is the metadata logged with an epoch about to run at now: the watermarks after
// the epochs before, which its rows are judged against.
func (q *Query) offsetMeta(now time.Time) *offsetMeta {
	policy, _ := q.watermarkPolicy()
	m := &offsetMeta{BatchTimestampMs: now.UnixMilli(), Conf: map[string]string{
		barrier.PolicyConf: policy.String(), ShufflePartitionsConf: strconv.Itoa(q.partitions)}}
	var global int64
	for i, s := range q.observers.EventTime {
		wm, ok := s.Watermark()
		if ok {
			m.WatermarksUs = append(m.WatermarksUs, &wm)
		} else {
			// Spark counts a watermark operator without data as 0.
			m.WatermarksUs = append(m.WatermarksUs, nil)
			wm = 0
		}
		if i == 0 || (policy == barrier.PolicyMin && wm < global) || (policy == barrier.PolicyMax && wm > global) {
			global = wm
		}
	}
	m.BatchWatermarkMs = max(global, 0) / 1000
	return m
}

// seedEventTime hands the watermark nodes the watermarks logged with the epoch that runs again
// after a restart (restored snapshots hand theirs too; the higher wins, and they agree).
func (q *Query) seedEventTime() {
	if q.resume == nil || q.resume.replay == nil || q.resume.replay.Meta == nil {
		return
	}
	logged := q.resume.replay.Meta.WatermarksUs
	for i, s := range q.observers.EventTime {
		if i < len(logged) && logged[i] != nil {
			s.Seed(*logged[i])
		}
	}
}

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
// watermark computed at the epoch's own barrier, which the next epoch reports. oldest is the
// minimum event time (µs; ok false when the epoch read no rows with an event time).
func eventTimeProgress(obs *planner.Observers, policy barrier.Policy) (out map[string]string, oldest int64, ok bool) {
	out = map[string]string{}
	if len(obs.EventTime) == 0 {
		return out, 0, false
	}
	var wm int64
	var seenWM bool
	var lo, hi, sum, n int64
	for _, s := range obs.EventTime {
		r, w, ok := s.TakeEpoch()
		if ok && (!seenWM || (policy == barrier.PolicyMin && w < wm) || (policy == barrier.PolicyMax && w > wm)) {
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
	return out, lo, n > 0
}

func isoMicros(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000Z")
}

// droppedSince returns, for each streaming aggregate in plan order, the late rows it dropped
// since the previous call.
func (q *Query) droppedSince() []int64 { return q.lateSince(q.observers.Aggregates) }

// lateSince returns, for each of counters (late-row counts of operators), the rows counted
// since the previous call.
func (q *Query) lateSince(counters []*atomic.Int64) []int64 {
	if q.dropped == nil {
		q.dropped = map[*atomic.Int64]int64{}
	}
	last := q.dropped
	out := make([]int64, len(counters))
	for i, c := range counters {
		if c == nil {
			continue
		}
		v := c.Load()
		out[i] = v - last[c]
		last[c] = v
	}
	return out
}

// progressPolicy is the policy progress combines the nodes' watermarks by.
func (q *Query) progressPolicy() barrier.Policy {
	p, _ := q.watermarkPolicy()
	return p
}
