package flow

import "github.com/weirhq/weir/barrier"

// JobOptions are one job's settings, given to JobRunner.Start with its graph. They are plain
// values a runner can honour wherever it places the job's partitions. The zero value runs a
// job that keeps no operator state, combines watermarks by their minimum and allocates from the
// runner's allocator without a budget.
type JobOptions struct {
	// Checkpointing says how operator state is saved at aligned barriers and restored at start
	// (the zero value keeps none).
	Checkpointing Checkpointing
	// WatermarkPolicy combines the watermarks of several watermarked inputs
	// (spark.sql.streaming.multipleWatermarkPolicy; the zero value is barrier.PolicyMin).
	WatermarkPolicy barrier.Policy
	// MemoryBudget, when set, counts the job's memory: a LocalRunner gives its operators and
	// sources the budget as Env.Mem (instead of the runner's allocator) and Env.Budget.
	MemoryBudget *MemoryBudget
	// Tracker, when set, reads the job's progress while it runs (progress.go): the operation's
	// ExecutionProgress. It observes; it changes nothing the job does.
	Tracker *Tracker
}
