package metrics

import (
	"encoding/json"
	"time"
)

// progress is the part of a StreamingQueryProgress (query/progress.go's JSON, the report
// lastProgress returns) the metrics take.
type progress struct {
	ID                     string  `json:"id"`
	Name                   *string `json:"name"`
	Timestamp              string  `json:"timestamp"`
	BatchID                int64   `json:"batchId"`
	BatchDuration          int64   `json:"batchDuration"`
	NumInputRows           int64   `json:"numInputRows"`
	InputRowsPerSecond     float64 `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond float64 `json:"processedRowsPerSecond"`
	DurationMs             struct {
		WalCommit     int64 `json:"walCommit"`
		CommitOffsets int64 `json:"commitOffsets"`
	} `json:"durationMs"`
	EventTime struct {
		Watermark string `json:"watermark"`
	} `json:"eventTime"`
	StateOperators []struct {
		OperatorName              string `json:"operatorName"`
		NumRowsTotal              int64  `json:"numRowsTotal"`
		MemoryUsedBytes           int64  `json:"memoryUsedBytes"`
		NumRowsDroppedByWatermark int64  `json:"numRowsDroppedByWatermark"`
	} `json:"stateOperators"`
	Sink struct {
		NumOutputRows int64 `json:"numOutputRows"`
	} `json:"sink"`
}

// parseProgress reads a QueryProgressEvent's JSON ({"progress": {...}}).
func parseProgress(event string) (*progress, error) {
	var ev struct {
		Progress progress `json:"progress"`
	}
	if err := json.Unmarshal([]byte(event), &ev); err != nil {
		return nil, err
	}
	return &ev.Progress, nil
}

// name is the query name, "" for none.
func (p *progress) name() string {
	if p.Name == nil {
		return ""
	}
	return *p.Name
}

// progressTime parses a progress timestamp (ISO-8601 UTC with milliseconds).
func progressTime(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	return t, err == nil
}

// checkpointDuration is the time the epoch spent writing the checkpoint: the offsets log entry
// (walCommit) and the commit (commitOffsets); 0 for a query without a checkpoint.
func (p *progress) checkpointDuration() time.Duration {
	return time.Duration(p.DurationMs.WalCommit+p.DurationMs.CommitOffsets) * time.Millisecond
}

// terminated is a QueryTerminatedEvent's JSON.
type terminated struct {
	ID                    string  `json:"id"`
	Exception             *string `json:"exception"`
	ErrorClassOnException *string `json:"errorClassOnException"`
}
