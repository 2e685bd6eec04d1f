package ui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Principal is who a UI request acts for, as the Backend names it (opaque to the UI): the
// sessions and queries it may see and cancel are those its token created.
type Principal string

// Backend is the Spark Connect server as the UI sees it (connect.Server.UIBackend).
type Backend interface {
	// Authorize returns the principal a request's bearer token ("" for none) stands for, or
	// false when the server requires a token and this is not one of its tokens.
	Authorize(bearer string) (Principal, bool)
	// Sessions returns p's live sessions, with their operations and active queries.
	Sessions(p Principal) []Session
	// Plan explains a query of a session of p's (its extended explain text).
	Plan(ctx context.Context, p Principal, sessionID, userID, queryID string) (string, error)
	// Interrupt interrupts an operation of a session of p's, as Spark Connect's Interrupt
	// does, and returns the ids it interrupted.
	Interrupt(ctx context.Context, p Principal, sessionID, userID, operationID string) ([]string, error)
	// StopQuery stops a streaming query of a session of p's, as StreamingQuery.stop() does.
	StopQuery(ctx context.Context, p Principal, sessionID, userID, queryID string) error
}

// Session is a live Spark Connect session.
type Session struct {
	ID         string      `json:"id"`
	UserID     string      `json:"userId"`
	LastUsedMs int64       `json:"lastUsedMs"`
	Operations []Operation `json:"operations"`
	// Queries are the session's active streaming queries.
	Queries []QueryRef `json:"-"`
}

// Operation is one ExecutePlan operation of a session.
type Operation struct {
	ID        string   `json:"id"`
	Tags      []string `json:"tags"`
	State     string   `json:"state"` // running, succeeded, failed, cancelled (GetStatus' states)
	StartedMs int64    `json:"startedMs"`
	// Stages and Tasks count what its batch jobs ran so far (ExecutionProgress' numbers).
	Stages     int64 `json:"stages"`
	StagesDone int64 `json:"stagesDone"`
	Tasks      int64 `json:"tasks"`
	TasksDone  int64 `json:"tasksDone"`
}

// QueryRef names an active streaming query.
type QueryRef struct {
	ID, RunID, Name string
}

// QueryError is how a query ended with an error: "<JavaClass>: message" and its error class.
type QueryError struct {
	Message string `json:"message"`
	Class   string `json:"class,omitempty"`
}

// QuerySummary is a streaming query run in the list.
type QuerySummary struct {
	ID        string `json:"id"`
	RunID     string `json:"runId"`
	Name      string `json:"name"`
	SessionID string `json:"sessionId"`
	UserID    string `json:"userId"`
	Active    bool   `json:"active"`
	// Batches is the number of progress reports seen; LastBatchID the latest's batch id.
	Batches     int64       `json:"batches"`
	LastBatchID *int64      `json:"lastBatchId"`
	InputRate   float64     `json:"inputRate"`
	ProcessRate float64     `json:"processRate"`
	EndedMs     *int64      `json:"endedMs"`
	Error       *QueryError `json:"error"`
}

// QueryDetail is a run with its plan and chart points. Points[i] is report FirstSeq+i of
// the run (reports are numbered from 0); a poll with after=FirstSeq+len(Points)-1 gets the
// newer ones.
type QueryDetail struct {
	QuerySummary
	Plan     string  `json:"plan"`
	FirstSeq int64   `json:"firstSeq"`
	Points   []Point `json:"points"`
}

// Overview is /api/overview: sessions with their operations, and query runs (active first).
type Overview struct {
	Sessions []Session      `json:"sessions"`
	Queries  []QuerySummary `json:"queries"`
}

// api serves the JSON endpoints.
type api struct {
	backend Backend
	history *History
}

// caller authorizes a request; on failure it has answered 401.
func (a *api) caller(w http.ResponseWriter, r *http.Request) (Principal, bool) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p, ok := a.backend.Authorize(tok)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="weir"`)
		writeError(w, http.StatusUnauthorized, errors.New("missing or invalid bearer token"))
	}
	return p, ok
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// overview merges the backend's sessions with the history's runs: an active query with no
// report yet is listed from its session.
func (a *api) overview(p Principal) Overview {
	sessions := a.backend.Sessions(p)
	runs := a.history.summaries(p)
	seen := map[string]bool{}
	for _, r := range runs {
		seen[r.RunID] = true
	}
	for _, s := range sessions {
		for _, q := range s.Queries {
			if !seen[q.RunID] {
				runs = append(runs, QuerySummary{ID: q.ID, RunID: q.RunID, Name: q.Name, SessionID: s.ID,
					UserID: s.UserID, Active: true})
			}
		}
		sort.Slice(s.Operations, func(i, j int) bool { return s.Operations[i].StartedMs < s.Operations[j].StartedMs })
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].ID < sessions[j].ID })
	sort.Slice(runs, func(i, j int) bool {
		if runs[i].Active != runs[j].Active {
			return runs[i].Active
		}
		if runs[i].Name != runs[j].Name {
			return runs[i].Name < runs[j].Name
		}
		return runs[i].RunID < runs[j].RunID
	})
	if sessions == nil {
		sessions = []Session{}
	}
	if runs == nil {
		runs = []QuerySummary{}
	}
	return Overview{Sessions: sessions, Queries: runs}
}

func (a *api) handleOverview(w http.ResponseWriter, r *http.Request) {
	p, ok := a.caller(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, a.overview(p))
}

// handleQuery serves /api/queries/{run}: ?after=N returns only reports after N; ?plan=1 asks
// for the plan (explained once per run while its session lives, then remembered).
func (a *api) handleQuery(w http.ResponseWriter, r *http.Request) {
	p, ok := a.caller(w, r)
	if !ok {
		return
	}
	runID := r.PathValue("run")
	after := int64(-1)
	if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, errors.New("after must be an integer"))
			return
		}
		after = n
	}
	d, ok := a.history.detail(p, runID, after)
	if !ok {
		// An active query without a report yet.
		found := false
		for _, s := range a.backend.Sessions(p) {
			for _, q := range s.Queries {
				if q.RunID == runID {
					d = QueryDetail{QuerySummary: QuerySummary{ID: q.ID, RunID: q.RunID, Name: q.Name,
						SessionID: s.ID, UserID: s.UserID, Active: true}, Points: []Point{}}
					found = true
				}
			}
		}
		if !found {
			writeError(w, http.StatusNotFound, errors.New("no such query run"))
			return
		}
	}
	if r.URL.Query().Get("plan") == "1" && d.Plan == "" {
		if plan, err := a.backend.Plan(r.Context(), p, d.SessionID, d.UserID, d.ID); err == nil {
			d.Plan = plan
			a.history.setPlan(runID, plan)
		}
	}
	writeJSON(w, http.StatusOK, d)
}

// target is the body of the cancel and stop requests.
type target struct {
	SessionID   string `json:"sessionId"`
	UserID      string `json:"userId"`
	OperationID string `json:"operationId"`
	QueryID     string `json:"queryId"`
}

func readTarget(w http.ResponseWriter, r *http.Request) (target, bool) {
	var t target
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	if err := dec.Decode(&t); err != nil {
		writeError(w, http.StatusBadRequest, errors.New("the body must be a JSON object"))
		return t, false
	}
	if t.SessionID == "" {
		writeError(w, http.StatusBadRequest, errors.New("sessionId is required"))
		return t, false
	}
	return t, true
}

// handleCancel serves POST /api/operations/cancel: Interrupt of one operation.
func (a *api) handleCancel(w http.ResponseWriter, r *http.Request) {
	p, ok := a.caller(w, r)
	if !ok {
		return
	}
	t, ok := readTarget(w, r)
	if !ok {
		return
	}
	if t.OperationID == "" {
		writeError(w, http.StatusBadRequest, errors.New("operationId is required"))
		return
	}
	ids, err := a.backend.Interrupt(r.Context(), p, t.SessionID, t.UserID, t.OperationID)
	if err != nil {
		writeError(w, http.StatusConflict, err)
		return
	}
	if ids == nil {
		ids = []string{}
	}
	writeJSON(w, http.StatusOK, map[string][]string{"interrupted": ids})
}

// handleStop serves POST /api/queries/stop: StreamingQuery.stop().
func (a *api) handleStop(w http.ResponseWriter, r *http.Request) {
	p, ok := a.caller(w, r)
	if !ok {
		return
	}
	t, ok := readTarget(w, r)
	if !ok {
		return
	}
	if t.QueryID == "" {
		writeError(w, http.StatusBadRequest, errors.New("queryId is required"))
		return
	}
	if err := a.backend.StopQuery(r.Context(), p, t.SessionID, t.UserID, t.QueryID); err != nil {
		writeError(w, http.StatusConflict, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"stopped": true})
}
