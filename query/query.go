package query

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/logical"
)

// numRecentProgress is spark.sql.streaming.numRecentProgressUpdates' default.
const numRecentProgress = 100

// Query is one run of a streaming query (StreamingQuery). Its methods are safe for concurrent
// use.
type Query struct {
	m         *Manager
	id, runID string
	name      string
	spec      Spec
	startedAt time.Time

	sink     sinks.Sink
	sinkPar  int
	streams  []sources.StreamSource
	feeds    []*sources.EpochSource
	stateOps []stateOperator
	job      flow.Job
	cancel   context.CancelFunc
	ctx      context.Context
	// openErr is a source that failed to open: the query starts and fails at once.
	openErr error
	// partitions is the state partition count (a checkpoint's, when resuming one).
	partitions int
	// cp is the open checkpoint (nil: none) and resume where the run picks up.
	cp       *checkpoint
	location string
	resume   *resumePlan
	// state collects the stateful operators' metrics per epoch.
	state *stateMetricsLog
	// observers are the plan's event-time stats and late-row counters (eventtime.go); dropped
	// the counters' totals at the last progress.
	observers planner.Observers
	dropped   map[*atomic.Int64]int64
	// batchMicros is the running epoch's batch timestamp, which the query's expressions read
	// for current_timestamp() (expr.Context.Batch); the driver sets it as each epoch starts.
	batchMicros atomic.Int64

	events chan event
	quit   chan struct{} // closed when termination begins: posting stops
	done   chan struct{} // closed when the query ended and everything it ran stopped
	wg     sync.WaitGroup

	mu           sync.Mutex
	status       Status
	progress     []string
	exc          *Exception
	terminatedAt time.Time
	waiters      map[int]chan struct{}
	nextWaiter   int
}

// ID is the query id (a UUID).
func (q *Query) ID() string { return q.id }

// RunID is this run's id (a UUID).
func (q *Query) RunID() string { return q.runID }

// Name is the query name, "" if none.
func (q *Query) Name() string { return q.name }

// Status is the query's current status.
func (q *Query) Status() Status {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.status
}

// RecentProgress returns the progress JSON of the latest epochs, oldest first (at most 100).
func (q *Query) RecentProgress() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.progress...)
}

// LastProgress returns the latest epoch's progress JSON.
func (q *Query) LastProgress() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.progress) == 0 {
		return "", false
	}
	return q.progress[len(q.progress)-1], true
}

// Exception is the query's failure, nil if it has none (running, stopped or finished).
func (q *Query) Exception() *Exception {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.exc == nil {
		return nil
	}
	e := *q.exc
	return &e
}

// failure is the query's failure as an error, nil if none.
func (q *Query) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.exc == nil {
		return nil
	}
	return q.exc.Err
}

// terminated reports whether the query ended.
func (q *Query) terminated() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

// post hands an event to the driver; after termination began it is dropped.
func (q *Query) post(ev event) {
	ev.At = q.m.env.Clock.Now()
	select {
	case q.events <- ev:
	case <-q.quit:
	}
}

// Stop stops the query and waits until everything it ran stopped. Stopping a stopped query
// does nothing.
func (q *Query) Stop(ctx context.Context) error {
	if q.terminated() {
		return nil
	}
	q.post(event{Kind: evStop})
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ProcessAllAvailable blocks until every source's data available at the call is committed, the
// query ends (its failure, if any, is returned) or ctx ends.
func (q *Query) ProcessAllAvailable(ctx context.Context) error {
	q.mu.Lock()
	if q.terminated() {
		q.mu.Unlock()
		return q.failure()
	}
	id := q.nextWaiter
	q.nextWaiter++
	ch := make(chan struct{})
	q.waiters[id] = ch
	q.mu.Unlock()
	q.post(event{Kind: evProcessAll, Waiter: id})
	select {
	case <-ch:
		return q.failure()
	case <-q.done:
		return q.failure()
	case <-ctx.Done():
		q.mu.Lock()
		delete(q.waiters, id)
		q.mu.Unlock()
		return ctx.Err()
	}
}

// AwaitTermination waits until the query ends (true, and its failure if it failed), timeout
// passes (false) or ctx ends (false, ctx's error). A nil timeout waits forever.
func (q *Query) AwaitTermination(ctx context.Context, timeout *time.Duration) (bool, error) {
	var expired <-chan time.Time
	if timeout != nil {
		t := q.m.env.Clock.Timer(*timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-q.done:
		return true, q.failure()
	case <-expired:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Explain renders the query's plan: the sink write over the logical plan; extended adds the
// analyzed logical plan.
func (q *Query) Explain(extended bool) string {
	var b strings.Builder
	if extended {
		b.WriteString("== Analyzed Logical Plan ==\n")
		b.WriteString(logical.TreeString(q.spec.Plan))
		b.WriteString("\n")
	}
	b.WriteString("== Physical Plan ==\n")
	b.WriteString("WriteToDataSourceV2 MicroBatchWrite[epoch: " + q.epochText() + ", writer: " +
		q.sinkDescription() + "], " + string(q.spec.OutputMode) + "\n")
	for i, line := range strings.Split(strings.TrimRight(logical.TreeString(q.spec.Plan), "\n"), "\n") {
		if i == 0 {
			b.WriteString("+- " + line + "\n")
		} else {
			b.WriteString("   " + line + "\n")
		}
	}
	return b.String()
}

func (q *Query) sinkDescription() string {
	if q.sink == nil {
		return q.spec.Format
	}
	return q.sink.Description()
}

func (q *Query) epochText() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.progress)
	if n == 0 {
		return "0"
	}
	return strconv.Itoa(n)
}

// addProgress keeps the last numRecentProgress reports.
func (q *Query) addProgress(p string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.progress = append(q.progress, p)
	if len(q.progress) > numRecentProgress {
		q.progress = append([]string(nil), q.progress[len(q.progress)-numRecentProgress:]...)
	}
}

// releaseWaiters frees processAllAvailable callers (all when ids is nil).
func (q *Query) releaseWaiters(ids []int, all bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if all {
		for id, ch := range q.waiters {
			close(ch)
			delete(q.waiters, id)
		}
		return
	}
	for _, id := range ids {
		if ch, ok := q.waiters[id]; ok {
			close(ch)
			delete(q.waiters, id)
		}
	}
}
