package metrics

import (
	"encoding/json"
	"strconv"
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
		CustomMetrics             struct {
			SpillBytes int64 `json:"spillBytes"`
		} `json:"customMetrics"`
	} `json:"stateOperators"`
	Sources []struct {
		Metrics struct {
			OffsetsBehindLatest string `json:"offsetsBehindLatest"`
			FilesOutstanding    string `json:"numFilesOutstanding"`
		} `json:"metrics"`
	} `json:"sources"`
	Sink struct {
		NumOutputRows int64 `json:"numOutputRows"`
		Metrics       struct {
			EndToEndLatencyMs      string `json:"endToEndLatencyMs"`
			EndToEndLatencyFrom    string `json:"endToEndLatencyFrom"`
			CheckpointBytesWritten string `json:"checkpointBytesWritten"`
		} `json:"metrics"`
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

// latency is the epoch's end-to-end latency and where it runs from ("event_time" or
// "arrival"); ok false when the epoch reported none (it read no rows).
func (p *progress) latency() (d time.Duration, from string, ok bool) {
	ms, err := strconv.ParseInt(p.Sink.Metrics.EndToEndLatencyMs, 10, 64)
	if err != nil {
		return 0, "", false
	}
	from = "arrival"
	if p.Sink.Metrics.EndToEndLatencyFrom == "eventTime" {
		from = "event_time"
	}
	return time.Duration(ms) * time.Millisecond, from, true
}

// checkpointBytes is what the epoch wrote to its checkpoint (ok false without a checkpoint).
func (p *progress) checkpointBytes() (int64, bool) {
	n, err := strconv.ParseInt(p.Sink.Metrics.CheckpointBytesWritten, 10, 64)
	return n, err == nil
}

// partitionLag is a Kafka source's offsetsBehindLatest: lag per topic and partition.
type partitionLag map[string]map[string]int64

// terminated is a QueryTerminatedEvent's JSON.
type terminated struct {
	ID                    string  `json:"id"`
	Exception             *string `json:"exception"`
	ErrorClassOnException *string `json:"errorClassOnException"`
}
