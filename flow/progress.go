package flow

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Progress of running jobs, for Spark Connect's ExecutionProgress: a job started with a
// JobOptions.Tracker reports, per node (a stage, in Spark's words), its partitions (tasks),
// how many of them ended, and the bytes its sources produced. A LocalRunner runs every task of
// a job at once, so a task is in flight from the job's start until it ends. Counting costs a
// job nothing without a tracker; with one, a task's end is one atomic store and a source
// batch one atomic add.

// Tracker collects the jobs started on behalf of one operation. Its methods are safe for
// concurrent use.
type Tracker struct {
	mu   sync.Mutex
	jobs []progressReporter
}

// progressReporter is a job that counts its progress.
type progressReporter interface {
	progress(stages []StageProgress) []StageProgress
}

// StageProgress is one node of a tracked job.
type StageProgress struct {
	// ID numbers the stages of every job the tracker saw, in start order.
	ID int64
	// Tasks is the node's partitions; Completed how many of them ended.
	Tasks, Completed int64
	// InputBytes is the in-memory (Arrow) size of the batches a source node produced; 0 for
	// other nodes. Weir's readers do not report the bytes they read from storage.
	InputBytes int64
	// Done: every task of the node ended.
	Done bool
}

// Progress is what a tracker's jobs report at one moment.
type Progress struct {
	Stages []StageProgress
	// Running is the tasks that started and have not ended.
	Running int64
}

// Progress reports every tracked job's stages.
func (t *Tracker) Progress() Progress {
	t.mu.Lock()
	jobs := append([]progressReporter(nil), t.jobs...)
	t.mu.Unlock()
	var p Progress
	for _, j := range jobs {
		p.Stages = j.progress(p.Stages)
	}
	for i := range p.Stages {
		p.Stages[i].ID = int64(i)
		p.Running += p.Stages[i].Tasks - p.Stages[i].Completed
	}
	return p
}

func (t *Tracker) add(j progressReporter) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.jobs = append(t.jobs, j)
	t.mu.Unlock()
}

type trackerKey struct{}

// WithTracker returns ctx carrying t, for the engine to pass to the jobs it starts for an
// operation (JobOptions.Tracker).
func WithTracker(ctx context.Context, t *Tracker) context.Context {
	return context.WithValue(ctx, trackerKey{}, t)
}

// TrackerFrom returns the tracker ctx carries, nil if none.
func TrackerFrom(ctx context.Context) *Tracker {
	t, _ := ctx.Value(trackerKey{}).(*Tracker)
	return t
}

// progress implements progressReporter: one stage per node, in the graph's order.
func (j *localJob) progress(stages []StageProgress) []StageProgress {
	var cur *Node
	for _, t := range j.tasks { // grouped by node, in build order
		if t.node != cur {
			cur = t.node
			stages = append(stages, StageProgress{})
		}
		s := &stages[len(stages)-1]
		s.Tasks++
		if t.ended.Load() {
			s.Completed++
		}
		s.InputBytes += t.sourceBytes.Load()
		s.Done = s.Completed == s.Tasks
	}
	return stages
}

// countSource adds a source batch's size to its task's input bytes (tracked jobs only).
func (em *taskEmitter) countSource(rec arrow.RecordBatch) {
	if em.job.tracked && em.t.node.Source != nil {
		var n int64
		for _, col := range rec.Columns() {
			n += dataBytes(col.Data())
		}
		em.t.sourceBytes.Add(n)
	}
}

// dataBytes is the length of an array's buffers and its children's.
func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
