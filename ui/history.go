package ui

import (
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/weirhq/weir/query"
)

// DefaultPoints is how many progress reports a query's charts keep (Spark keeps
// spark.sql.streaming.numRecentProgressUpdates = 100 for its UI; a live chart wants more).
const DefaultPoints = 300

// DefaultRetention is how long a terminated query stays listed; DefaultTerminated how many
// terminated queries stay at most.
const (
	DefaultRetention  = time.Hour
	DefaultTerminated = 100
)

// Origin is where a query's events come from: the session that runs it and the caller that
// owns the session.
type Origin struct {
	Principal Principal
	SessionID string
	UserID    string
}

// History keeps, per streaming query run, the points its charts draw, fed by query listeners
// (one per session, Listener) from the same progress reports lastProgress returns. Its
// methods are safe for concurrent use.
type History struct {
	points     int
	retention  time.Duration
	terminated int
	now        func() time.Time

	mu   sync.Mutex
	runs map[string]*run // by run id
}

// run is one query run's record.
type run struct {
	origin      Origin
	id, runID   string
	name        string
	points      []Point // oldest first, at most History.points
	first       int64   // sequence number of points[0]
	active      bool
	ended       time.Time
	err         *QueryError
	plan        string
	lastUpdated time.Time
}

// HistoryOption configures a History.
type HistoryOption func(*History)

// WithPoints keeps n points per query run.
func WithPoints(n int) HistoryOption { return func(h *History) { h.points = max(n, 1) } }

// WithClock measures retention with now.
func WithClock(now func() time.Time) HistoryOption { return func(h *History) { h.now = now } }

// NewHistory returns an empty history.
func NewHistory(opts ...HistoryOption) *History {
	h := &History{points: DefaultPoints, retention: DefaultRetention, terminated: DefaultTerminated,
		now: time.Now, runs: map[string]*run{}}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Listener is the query.Listener of one session's query manager.
func (h *History) Listener(o Origin) query.Listener { return listener{h, o} }

type listener struct {
	h *History
	o Origin
}

// OnEvent records a progress report as a point, or a run's end and error.
func (l listener) OnEvent(ev query.Event) {
	switch ev.Type {
	case query.ProgressEvent:
		p, ok := parseProgress(ev.JSON)
		if !ok {
			return
		}
		l.h.addPoint(l.o, p)
	case query.TerminatedEvent:
		var t struct {
			ID                    string  `json:"id"`
			RunID                 string  `json:"runId"`
			Exception             *string `json:"exception"`
			ErrorClassOnException *string `json:"errorClassOnException"`
		}
		if json.Unmarshal([]byte(ev.JSON), &t) != nil {
			return
		}
		var qe *QueryError
		if t.Exception != nil {
			qe = &QueryError{Message: *t.Exception}
			if t.ErrorClassOnException != nil {
				qe.Class = *t.ErrorClassOnException
			}
		}
		l.h.terminate(l.o, t.ID, t.RunID, qe)
	}
}

// runLocked returns the record of a run, creating it.
func (h *History) runLocked(o Origin, id, runID string) *run {
	r, ok := h.runs[runID]
	if !ok {
		r = &run{origin: o, id: id, runID: runID, active: true}
		h.runs[runID] = r
	}
	r.lastUpdated = h.now()
	return r
}

func (h *History) addPoint(o Origin, p parsed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.runLocked(o, p.id, p.runID)
	r.name = p.name
	if len(r.points) == h.points {
		copy(r.points, r.points[1:])
		r.points = r.points[:len(r.points)-1]
		r.first++
	}
	r.points = append(r.points, p.Point)
}

func (h *History) terminate(o Origin, id, runID string, qe *QueryError) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.runLocked(o, id, runID)
	r.active = false
	r.ended = h.now()
	r.err = qe
	h.evictLocked()
}

// evictLocked drops terminated runs past the retention, and the oldest beyond the count.
func (h *History) evictLocked() {
	now := h.now()
	var ended []*run
	for k, r := range h.runs {
		if r.active {
			continue
		}
		if now.Sub(r.ended) > h.retention {
			delete(h.runs, k)
			continue
		}
		ended = append(ended, r)
	}
	if len(ended) <= h.terminated {
		return
	}
	sort.Slice(ended, func(i, j int) bool { return ended[i].ended.Before(ended[j].ended) })
	for _, r := range ended[:len(ended)-h.terminated] {
		delete(h.runs, r.runID)
	}
}

// setPlan remembers a run's plan text, for when its session is gone.
func (h *History) setPlan(runID, plan string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.runs[runID]; ok {
		r.plan = plan
	}
}

// runs returns a summary of the runs p may see.
func (h *History) summaries(p Principal) []QuerySummary {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.evictLocked()
	var out []QuerySummary
	for _, r := range h.runs {
		if r.origin.Principal == p {
			out = append(out, r.summaryLocked())
		}
	}
	return out
}

func (r *run) summaryLocked() QuerySummary {
	s := QuerySummary{ID: r.id, RunID: r.runID, Name: r.name, SessionID: r.origin.SessionID,
		UserID: r.origin.UserID, Active: r.active, Batches: r.first + int64(len(r.points)), Error: r.err}
	if n := len(r.points); n > 0 {
		last := r.points[n-1]
		s.LastBatchID = &last.BatchID
		s.InputRate, s.ProcessRate = last.InputRate, last.ProcessRate
	}
	if !r.ended.IsZero() {
		e := r.ended.UnixMilli()
		s.EndedMs = &e
	}
	return s
}

// detail returns run runID's summary, plan and the points after sequence number after (all
// with after < 0), if p may see it.
func (h *History) detail(p Principal, runID string, after int64) (QueryDetail, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.runs[runID]
	if !ok || r.origin.Principal != p {
		return QueryDetail{}, false
	}
	d := QueryDetail{QuerySummary: r.summaryLocked(), Plan: r.plan, FirstSeq: r.first}
	from := max(after+1-r.first, 0)
	if from < int64(len(r.points)) {
		d.Points = append([]Point(nil), r.points[from:]...)
		d.FirstSeq = r.first + from
	} else {
		d.Points = []Point{}
		d.FirstSeq = r.first + int64(len(r.points))
	}
	return d, true
}
