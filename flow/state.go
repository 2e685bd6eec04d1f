package flow

import (
	"context"
	"fmt"
	"time"
)

// Snapshotter is an optional Operator extension for stateful operators whose state the runtime
// checkpoints. At every aligned barrier the runtime calls the operator's BarrierHandler (the
// epoch's emissions), then SnapshotState, saves the bytes through the job's StateBackend, and
// only then forwards the barrier: a barrier leaving a stateful node means its state for that
// epoch is saved — or, for a StateCapturer, captured and owed (StateSaveWaiter). When a job
// restores from epoch N, RestoreState gets the snapshot saved at the latest epoch ≤ N before
// the instance sees any input.
type Snapshotter interface {
	SnapshotState(epoch int64) ([]byte, error)
	RestoreState(data []byte) error
}

// StateBackend stores operator state snapshots per (node name, partition, epoch). Load returns
// the snapshot of the latest epoch ≤ epoch. Node names are the planner's, stable for one plan.
// Save is called from the instance's goroutine or, for StateCapturer instances, from their
// saver goroutines (one per instance, concurrently with other instances' saves).
type StateBackend interface {
	Save(node string, partition int, epoch int64, data []byte) error
	Load(node string, partition int, epoch int64) ([]byte, bool, error)
}

// StateMetrics describes a stateful operator instance's state at a barrier (progress'
// stateOperators). CommitTime is filled by the runtime: how long the barrier waited for the
// snapshot — the whole save for a Snapshotter, the capture for a StateCapturer (whose encoding
// and write run in the background, see StateSaveWaiter).
type StateMetrics struct {
	NumRowsTotal, NumRowsUpdated, NumRowsRemoved int64
	MemoryUsedBytes                              int64
	// SpillBytes is the size of the state spilled out of memory (its state.Spill stores).
	SpillBytes int64
	CommitTime time.Duration
}

// StateReporter is an optional Operator extension: StateMetrics is called at each aligned
// barrier before the BarrierHandler, so "updated" and "removed" count the epoch that ends.
type StateReporter interface {
	StateMetrics() StateMetrics
}

// Checkpointing configures a job's state handling. The zero value keeps no state.
type Checkpointing struct {
	// Backend saves snapshots of Snapshotter operators at every aligned barrier (nil: none).
	Backend StateBackend
	// Restore, when set, is the epoch whose state every Snapshotter loads at start.
	Restore    int64
	HasRestore bool
	// OnStateMetrics, if set, receives every StateReporter instance's metrics at each barrier
	// (from the instances' goroutines, concurrently).
	OnStateMetrics func(node string, partition int, epoch int64, m StateMetrics)
}

// restore loads an operator instance's state before it runs.
func (c Checkpointing) restore(t *task, op Operator) error {
	s, ok := op.(Snapshotter)
	if !ok || !c.HasRestore || c.Backend == nil {
		return nil
	}
	data, found, err := c.Backend.Load(t.node.Name, t.env.Partition, c.Restore)
	if err != nil {
		return fmt.Errorf("%s: loading state of epoch %d: %w", t.node.Name, c.Restore, err)
	}
	if !found {
		return nil
	}
	if err := s.RestoreState(data); err != nil {
		return fmt.Errorf("%s: restoring state of epoch %d: %w", t.node.Name, c.Restore, err)
	}
	return nil
}

// snapshot saves an operator instance's state for epoch — synchronously for a Snapshotter, in
// the background for a StateCapturer — and reports its metrics (m, taken before the barrier's
// emissions) with CommitTime set to how long the barrier waited for the state.
func (j *localJob) snapshot(ctx context.Context, t *task, op Operator, epoch int64, m *StateMetrics) error {
	c := j.state
	if s, ok := op.(Snapshotter); ok && c.Backend != nil {
		var took time.Duration
		if capturer, ok := op.(StateCapturer); ok {
			var err error
			if took, err = j.captureState(ctx, t, capturer, epoch); err != nil {
				return err
			}
		} else {
			began := time.Now()
			data, err := s.SnapshotState(epoch)
			if err != nil {
				return fmt.Errorf("%s: snapshot of epoch %d: %w", t.node.Name, epoch, err)
			}
			if err := c.Backend.Save(t.node.Name, t.env.Partition, epoch, data); err != nil {
				return fmt.Errorf("%s: saving state of epoch %d: %w", t.node.Name, epoch, err)
			}
			took = time.Since(began)
		}
		if m != nil {
			m.CommitTime = took
		}
	}
	if m != nil && c.OnStateMetrics != nil {
		c.OnStateMetrics(t.node.Name, t.env.Partition, epoch, *m)
	}
	return nil
}
