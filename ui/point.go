package ui

import (
	"encoding/json"
	"time"
)

// Point is one progress report as the charts draw it: the series of Spark's Structured
// Streaming tab (StreamingQueryStatisticsPage) for one batch.
type Point struct {
	BatchID int64 `json:"batch"`
	// TimeMs is the batch's trigger time (progress "timestamp"), Unix milliseconds.
	TimeMs      int64   `json:"t"`
	InputRate   float64 `json:"inputRate"`
	ProcessRate float64 `json:"processRate"`
	InputRows   int64   `json:"inputRows"`
	BatchMs     int64   `json:"batchMs"`
	// Ops is durationMs without triggerExecution (which spans the others), as Spark's
	// "Operation Duration" chart stacks them.
	Ops map[string]int64 `json:"ops"`
	// WatermarkGapS is the batch time minus the global watermark in seconds (Spark's "Global
	// Watermark Gap"); nil while the query has no watermark or it is still 0.
	WatermarkGapS *float64 `json:"watermarkGapS,omitempty"`
	// State sums the stateful operators' metrics (Spark's "Aggregated …" charts); nil for a
	// stateless query.
	State *StatePoint `json:"state,omitempty"`
}

// StatePoint is the stateful operators' metrics of a batch, summed over operators.
type StatePoint struct {
	Rows        int64 `json:"rows"`
	Updated     int64 `json:"updated"`
	MemoryBytes int64 `json:"memoryBytes"`
	Dropped     int64 `json:"droppedByWatermark"`
}

// parsed is a progress report read into a point, with the run it belongs to.
type parsed struct {
	Point
	id, runID, name string
}

// progressJSON is the part of a StreamingQueryProgress (query/progress.go) the charts take.
type progressJSON struct {
	ID                     string            `json:"id"`
	RunID                  string            `json:"runId"`
	Name                   *string           `json:"name"`
	Timestamp              string            `json:"timestamp"`
	BatchID                int64             `json:"batchId"`
	BatchDuration          int64             `json:"batchDuration"`
	NumInputRows           int64             `json:"numInputRows"`
	InputRowsPerSecond     float64           `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond float64           `json:"processedRowsPerSecond"`
	DurationMs             map[string]int64  `json:"durationMs"`
	EventTime              map[string]string `json:"eventTime"`
	StateOperators         []struct {
		NumRowsTotal              int64 `json:"numRowsTotal"`
		NumRowsUpdated            int64 `json:"numRowsUpdated"`
		MemoryUsedBytes           int64 `json:"memoryUsedBytes"`
		NumRowsDroppedByWatermark int64 `json:"numRowsDroppedByWatermark"`
	} `json:"stateOperators"`
}

// progressTime parses a progress timestamp (ISO-8601 UTC with milliseconds).
func progressTime(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	return t, err == nil
}

// parseProgress reads a QueryProgressEvent's JSON ({"progress": {...}}).
func parseProgress(event string) (parsed, bool) {
	var ev struct {
		Progress progressJSON `json:"progress"`
	}
	if err := json.Unmarshal([]byte(event), &ev); err != nil || ev.Progress.RunID == "" {
		return parsed{}, false
	}
	p := ev.Progress
	out := parsed{id: p.ID, runID: p.RunID}
	if p.Name != nil {
		out.name = *p.Name
	}
	at, _ := progressTime(p.Timestamp)
	out.Point = Point{BatchID: p.BatchID, TimeMs: at.UnixMilli(), InputRate: p.InputRowsPerSecond,
		ProcessRate: p.ProcessedRowsPerSecond, InputRows: p.NumInputRows, BatchMs: p.BatchDuration,
		Ops: map[string]int64{}}
	for k, v := range p.DurationMs {
		if k != "triggerExecution" {
			out.Ops[k] = v
		}
	}
	if wm, ok := progressTime(p.EventTime["watermark"]); ok && wm.UnixMilli() > 0 && !at.IsZero() {
		gap := float64(at.UnixMilli()-wm.UnixMilli()) / 1000
		out.WatermarkGapS = &gap
	}
	if len(p.StateOperators) > 0 {
		s := &StatePoint{}
		for _, op := range p.StateOperators {
			s.Rows += op.NumRowsTotal
			s.Updated += op.NumRowsUpdated
			s.MemoryBytes += op.MemoryUsedBytes
			s.Dropped += op.NumRowsDroppedByWatermark
		}
		out.State = s
	}
	return out, true
}
