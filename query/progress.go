package query

import (
	"encoding/json"
	"github.com/weirhq/weir/sql/expr"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
)

// Progress and listener-event JSON in the shape of Spark's json4s StreamingQueryProgress and
// event.json (reference §2.5, §2.6): every key PySpark's fromJson requires, offsets as
// JSON-encoded strings, finite numbers only.

// progressJSON is StreamingQueryProgress.
type progressJSON struct {
	ID                     string                `json:"id"`
	RunID                  string                `json:"runId"`
	Name                   *string               `json:"name"`
	Timestamp              string                `json:"timestamp"`
	BatchID                int64                 `json:"batchId"`
	BatchDuration          int64                 `json:"batchDuration"`
	NumInputRows           int64                 `json:"numInputRows"`
	InputRowsPerSecond     double                `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond double                `json:"processedRowsPerSecond"`
	DurationMs             durationsJSON         `json:"durationMs"`
	EventTime              map[string]string     `json:"eventTime"`
	StateOperators         []stateOperatorJSON   `json:"stateOperators"`
	Sources                []sourceProgressJSON  `json:"sources"`
	Sink                   sinkProgressJSON      `json:"sink"`
	ObservedMetrics        map[string]jsonObject `json:"observedMetrics"`
}

type jsonObject map[string]any

// durationsJSON is durationMs, in Spark's (alphabetical) key order.
type durationsJSON struct {
	AddBatch         int64 `json:"addBatch"`
	CommitOffsets    int64 `json:"commitOffsets"`
	GetBatch         int64 `json:"getBatch"`
	LatestOffset     int64 `json:"latestOffset"`
	QueryPlanning    int64 `json:"queryPlanning"`
	TriggerExecution int64 `json:"triggerExecution"`
	WalCommit        int64 `json:"walCommit"`
}

type stateOperatorJSON struct {
	OperatorName              string           `json:"operatorName"`
	NumRowsTotal              int64            `json:"numRowsTotal"`
	NumRowsUpdated            int64            `json:"numRowsUpdated"`
	AllUpdatesTimeMs          int64            `json:"allUpdatesTimeMs"`
	NumRowsRemoved            int64            `json:"numRowsRemoved"`
	AllRemovalsTimeMs         int64            `json:"allRemovalsTimeMs"`
	CommitTimeMs              int64            `json:"commitTimeMs"`
	MemoryUsedBytes           int64            `json:"memoryUsedBytes"`
	NumRowsDroppedByWatermark int64            `json:"numRowsDroppedByWatermark"`
	NumShufflePartitions      int64            `json:"numShufflePartitions"`
	NumStateStoreInstances    int64            `json:"numStateStoreInstances"`
	CustomMetrics             map[string]int64 `json:"customMetrics"`
}

type sourceProgressJSON struct {
	Description            string `json:"description"`
	StartOffset            string `json:"startOffset"`
	EndOffset              string `json:"endOffset"`
	LatestOffset           string `json:"latestOffset"`
	NumInputRows           int64  `json:"numInputRows"`
	InputRowsPerSecond     double `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond double `json:"processedRowsPerSecond"`
	// Metrics is the source's sources.ReportsMetrics (Spark omits an empty map).
	Metrics map[string]string `json:"metrics,omitempty"`
}

type sinkProgressJSON struct {
	Description   string `json:"description"`
	NumOutputRows int64  `json:"numOutputRows"`
	// Metrics is Spark's SinkProgress.metrics (string values), where Weir reports the epoch's
	// commit: see sinkMetrics. PySpark keeps it (lastProgress.sink.metrics), unlike a key of its
	// own at the top level.
	Metrics map[string]string `json:"metrics,omitempty"`
}

// stateOperator is a stateful operator of the plan, as progress reports it.
type stateOperator struct {
	name       string
	partitions int
}

// epochStats is what the driver measured about one epoch.
type epochStats struct {
	epoch int64
	// triggerStart is when the trigger that planned the epoch fired; prevTriggerStart the
	// previous epoch's (zero for the first).
	triggerStart, prevTriggerStart, end time.Time
	latestOffset, addBatch              time.Duration
	start, endOffsets, latest           []sources.Offset
	rows                                []int64 // per source
	outputRows                          int64
	walCommit, commitOffsets            time.Duration
	// state is the stateful operators' metrics, in plan order (nil: none reported).
	state []flow.StateMetrics
	// checkpointBytes is what the epoch wrote to the checkpoint; sourceMetrics the sources'
	// sources.ReportsMetrics after it (nil where a source reports none).
	checkpointBytes int64
	sourceMetrics   []map[string]string
}

// timestamp renders t as Spark does: ISO-8601 UTC with milliseconds.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// rate is n rows over d as rows per second; 0 when undefined (Spark's NaN/Infinity).
func rate(n int64, d time.Duration) double {
	if d <= 0 {
		return 0
	}
	r := float64(n) / d.Seconds()
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return 0
	}
	return double(r)
}

// double is a progress field Spark holds as a Scala Double: its JSON is Java's rendering of it
// (json4s' JDouble: "0.0", "2.5", "1.0E7"), so PySpark reads a float, never an int.
type double float64

// MarshalJSON implements json.Marshaler.
func (d double) MarshalJSON() ([]byte, error) { return []byte(expr.JavaDouble(float64(d), 64)), nil }

func nullableName(name string) *string {
	if name == "" {
		return nil
	}
	return &name
}

func offsetString(o sources.Offset) string {
	if o == nil {
		return "null"
	}
	return string(o)
}

// buildProgress renders one epoch's progress JSON.
func (q *Query) buildProgress(s epochStats) string {
	trigger := s.end.Sub(s.triggerStart)
	var sinceLast time.Duration
	if !s.prevTriggerStart.IsZero() {
		sinceLast = s.triggerStart.Sub(s.prevTriggerStart)
	}
	eventTime, oldest, hasEventTime := eventTimeProgress(&q.observers, q.progressPolicy())
	p := progressJSON{
		ID: q.id, RunID: q.runID, Name: nullableName(q.name), Timestamp: timestamp(s.triggerStart),
		BatchID: s.epoch, BatchDuration: trigger.Milliseconds(),
		DurationMs: durationsJSON{
			AddBatch: s.addBatch.Milliseconds(), LatestOffset: s.latestOffset.Milliseconds(),
			TriggerExecution: trigger.Milliseconds(),
			WalCommit:        s.walCommit.Milliseconds(), CommitOffsets: s.commitOffsets.Milliseconds(),
		},
		EventTime:       eventTime,
		StateOperators:  []stateOperatorJSON{},
		Sources:         []sourceProgressJSON{},
		Sink:            sinkProgressJSON{Description: q.sink.Description(), NumOutputRows: s.outputRows},
		ObservedMetrics: observedMetricsProgress(q.observers.Metrics, s.epoch),
	}
	dropped := q.droppedSince()
	aggs := 0
	late := map[string][]int64{"dedupe": q.lateSince(q.observers.Dedups), "symmetricHashJoin": q.lateSince(q.observers.Joins)}
	seen := map[string]int{}
	for i, op := range q.stateOps {
		j := stateOperatorJSON{OperatorName: op.name,
			NumShufflePartitions: int64(op.partitions), NumStateStoreInstances: int64(op.partitions),
			CustomMetrics: map[string]int64{}}
		if i < len(s.state) {
			m := s.state[i]
			j.NumRowsTotal, j.NumRowsUpdated, j.NumRowsRemoved = m.NumRowsTotal, m.NumRowsUpdated, m.NumRowsRemoved
			j.MemoryUsedBytes, j.CommitTimeMs = m.MemoryUsedBytes, m.CommitTime.Milliseconds()
			j.CustomMetrics["spillBytes"] = m.SpillBytes
		}
		if op.name == "stateStoreSave" {
			if aggs < len(dropped) {
				j.NumRowsDroppedByWatermark = dropped[aggs]
			}
			aggs++
		}
		if kind := strings.TrimSuffix(op.name, "WithinWatermark"); late[kind] != nil {
			if k := seen[kind]; k < len(late[kind]) {
				j.NumRowsDroppedByWatermark = late[kind][k]
			}
			seen[kind]++
		}
		p.StateOperators = append(p.StateOperators, j)
	}
	for i, src := range q.streams {
		var rows int64
		if i < len(s.rows) {
			rows = s.rows[i]
		}
		p.NumInputRows += rows
		p.Sources = append(p.Sources, sourceProgressJSON{
			Description: src.Description(),
			StartOffset: offsetString(at(s.start, i)), EndOffset: offsetString(at(s.endOffsets, i)),
			LatestOffset: offsetString(at(s.latest, i)), NumInputRows: rows,
			InputRowsPerSecond: rate(rows, sinceLast), ProcessedRowsPerSecond: rate(rows, trigger),
			Metrics: atMetrics(s.sourceMetrics, i),
		})
	}
	p.InputRowsPerSecond = rate(p.NumInputRows, sinceLast)
	p.ProcessedRowsPerSecond = rate(p.NumInputRows, trigger)
	p.Sink.Metrics = q.sinkMetrics(s, p.NumInputRows, oldest, hasEventTime)
	b, err := json.Marshal(p)
	if err != nil {
		// Every field is a plain string, integer or finite float: marshalling cannot fail.
		panic(err)
	}
	return string(b)
}

// sinkMetrics is the sink progress' metrics map, about the epoch's commit:
//   - endToEndLatencyMs, for an epoch that read rows: from its oldest row to its commit (the
//     progress is published once the sink and checkpoint committed). endToEndLatencyFrom says
//     from when: "eventTime", the oldest event time the epoch read (queries with a watermark);
//     else "arrival", the oldest time a row could have arrived at its source and still be
//     read by this epoch, the previous epoch's latest-offsets request (the first epoch: its
//     own). A rate-limited source's backlog arrived earlier than that.
//   - checkpointBytesWritten, with a checkpoint: the bytes the epoch wrote to it (offsets-log
//     record and state snapshots).
func (q *Query) sinkMetrics(s epochStats, rows, oldestUs int64, hasEventTime bool) map[string]string {
	out := map[string]string{}
	if q.cp != nil {
		out["checkpointBytesWritten"] = strconv.FormatInt(s.checkpointBytes, 10)
	}
	if rows > 0 {
		from, since := "arrival", s.prevTriggerStart
		if since.IsZero() {
			since = s.triggerStart
		}
		if hasEventTime {
			from, since = "eventTime", time.UnixMicro(oldestUs)
		}
		out["endToEndLatencyMs"] = strconv.FormatInt(max(s.end.Sub(since).Milliseconds(), 0), 10)
		out["endToEndLatencyFrom"] = from
	}
	return out
}

func atMetrics(ms []map[string]string, i int) map[string]string {
	if i < len(ms) {
		return ms[i]
	}
	return nil
}

func at(offs []sources.Offset, i int) sources.Offset {
	if i < len(offs) {
		return offs[i]
	}
	return nil
}

// progressEventJSON is QueryProgressEvent's JSON.
func progressEventJSON(progress string) string {
	return `{"progress":` + progress + `}`
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// idleEventJSON is QueryIdleEvent's JSON.
func (q *Query) idleEventJSON(at time.Time) string {
	return mustJSON(struct {
		ID        string `json:"id"`
		RunID     string `json:"runId"`
		Timestamp string `json:"timestamp"`
	}{q.id, q.runID, timestamp(at)})
}

// terminatedEventJSON is QueryTerminatedEvent's JSON: exception is the cause's
// "<JavaClass>: <message>", errorClassOnException its error class (both null without failure).
func (q *Query) terminatedEventJSON(exc *Exception) string {
	var msg, class *string
	if exc != nil && exc.Err != nil {
		cause := exc.Err.Cause
		m := causeString(cause)
		msg = &m
		if c := causeClass(cause); c != "" {
			class = &c
		}
	}
	return mustJSON(struct {
		ID                    string  `json:"id"`
		RunID                 string  `json:"runId"`
		Exception             *string `json:"exception"`
		ErrorClassOnException *string `json:"errorClassOnException"`
	}{q.id, q.runID, msg, class})
}

// StartedEventJSON is the QueryStartedEvent JSON.
func (q *Query) StartedEventJSON() string {
	return mustJSON(struct {
		ID        string  `json:"id"`
		RunID     string  `json:"runId"`
		Name      *string `json:"name"`
		Timestamp string  `json:"timestamp"`
	}{q.id, q.runID, nullableName(q.name), timestamp(q.startedAt)})
}
