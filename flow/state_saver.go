package flow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Asynchronous state snapshots: at an aligned barrier a StateCapturer instance hands the
// runtime an immutable view of its state (the synchronous part), the runtime forwards the
// barrier, and the instance's saver goroutine encodes the view and writes it through the
// job's StateBackend. The job counts the saves each epoch still owes; StateSaveWaiter lets
// the party that commits an epoch wait until every instance's state of that epoch is saved.

// StateCapturer is an optional Snapshotter extension for state the runtime saves in the
// background. CaptureState, called at the barrier instead of SnapshotState, returns a view of
// the state as it is at the barrier that later input cannot change (copies of what Process
// mutates, references to what it never mutates). The runtime calls the capture's Encode once,
// on another goroutine, concurrently with the instance's Process calls, then Release; Encode
// must return exactly the bytes SnapshotState would have returned at the barrier, so that
// RestoreState reads them back.
type StateCapturer interface {
	Snapshotter
	CaptureState(epoch int64) (StateCapture, error)
}

// StateCapture is an immutable view of an operator instance's state at a barrier.
type StateCapture interface {
	// Encode serializes the view (the snapshot bytes).
	Encode() ([]byte, error)
	// Release frees what the view holds (e.g. retained Arrow arrays). It is called once,
	// after Encode or instead of it when the job ends first.
	Release()
}

// StateSaveWaiter is implemented by jobs that save operator state in the background
// (LocalRunner's). WaitSaved returns once every stateful instance's snapshot of every epoch ≤
// epoch whose barrier it forwarded is durably handed to the StateBackend (Save returned), or
// with the error that failed a save (the job fails with it too), or ctx's error, or the job's
// error when the job stops first. A caller that saw an epoch's barrier at the job's output (so
// every instance forwarded it) and then WaitSaved(epoch) returned nil may commit the epoch.
type StateSaveWaiter interface {
	WaitSaved(ctx context.Context, epoch int64) error
}

// saveTracker counts the saves each epoch owes.
type saveTracker struct {
	mu      sync.Mutex
	pending map[int64]int
	// changed is closed and replaced whenever a save ends.
	changed chan struct{}
	err     error
}

func newSaveTracker() *saveTracker {
	return &saveTracker{pending: map[int64]int{}, changed: make(chan struct{})}
}

// begin records a save of epoch that will end later (called before the barrier goes on).
func (s *saveTracker) begin(epoch int64) {
	s.mu.Lock()
	s.pending[epoch]++
	s.mu.Unlock()
}

// end records that a save of epoch ended (err: it failed).
func (s *saveTracker) end(epoch int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[epoch]--; s.pending[epoch] <= 0 {
		delete(s.pending, epoch)
	}
	if err != nil && s.err == nil {
		s.err = err
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// owed reports whether a save of an epoch ≤ epoch is still pending, the first save error, and
// a channel closed at the next change.
func (s *saveTracker) owed(epoch int64) (bool, error, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for e := range s.pending {
		if e <= epoch {
			return true, s.err, s.changed
		}
	}
	return false, s.err, s.changed
}

// WaitSaved implements StateSaveWaiter.
func (j *localJob) WaitSaved(ctx context.Context, epoch int64) error {
	for {
		owed, err, changed := j.saves.owed(epoch)
		if err != nil {
			return err
		}
		if !owed {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-j.ctx.Done():
			if err := j.firstErr(); err != nil {
				return err
			}
			return fmt.Errorf("flow: the job stopped before the state of epoch %d was saved: %w", epoch, j.ctx.Err())
		}
	}
}

// stateSave is one capture on its way to the backend.
type stateSave struct {
	epoch   int64
	capture StateCapture
}

// stateSaver is one stateful instance's background saver: a goroutine owned by the job that
// encodes and saves the instance's captures in epoch order. At most one capture waits while
// another is being saved; a barrier finding the queue full waits (bounded memory).
type stateSaver struct {
	queue chan stateSave
}

// saverFor returns t's saver, starting its goroutine on first use. The task's goroutine is the
// queue's only sender and closes it when the task ends (closeSaver); the saver then finishes
// what is queued — saving it while the job runs, releasing it unsaved once the job stopped.
func (j *localJob) saverFor(t *task) *stateSaver {
	if t.saver != nil {
		return t.saver
	}
	sv := &stateSaver{queue: make(chan stateSave, 1)}
	t.saver = sv
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		for s := range sv.queue {
			var err error
			if j.ctx.Err() != nil {
				s.capture.Release()
				err = errNotSaved
			} else if err = j.save(t, s); err != nil {
				j.fail(err)
			}
			j.saves.end(s.epoch, err)
		}
	}()
	return sv
}

// errNotSaved is what WaitSaved reports for a capture the job stopped before saving.
var errNotSaved = errors.New("flow: the job stopped before the state was saved")

// closeSaver ends t's saver once its queue is empty (called by t's goroutine when it ends).
func (t *task) closeSaver() {
	if t.saver != nil {
		close(t.saver.queue)
	}
}

// save encodes one capture and writes it. A panic while encoding (a refused allocation of the
// job's memory budget) fails the save instead of the process.
func (j *localJob) save(t *task, s stateSave) (err error) {
	defer s.capture.Release()
	defer func() {
		if r := recover(); r != nil {
			err = recoveredError(r, t.node.Name, t.env.Partition)
		}
	}()
	data, err := s.capture.Encode()
	if err != nil {
		return fmt.Errorf("%s: snapshot of epoch %d: %w", t.node.Name, s.epoch, err)
	}
	if err := j.state.Backend.Save(t.node.Name, t.env.Partition, s.epoch, data); err != nil {
		return fmt.Errorf("%s: saving state of epoch %d: %w", t.node.Name, s.epoch, err)
	}
	return nil
}

// captureState is the synchronous part of an asynchronous snapshot: capture, then queue the
// save (counted before the barrier goes on). It returns how long the barrier waited.
func (j *localJob) captureState(ctx context.Context, t *task, c StateCapturer, epoch int64) (time.Duration, error) {
	began := time.Now()
	capture, err := c.CaptureState(epoch)
	if err != nil {
		return 0, fmt.Errorf("%s: snapshot of epoch %d: %w", t.node.Name, epoch, err)
	}
	sv := j.saverFor(t)
	j.saves.begin(epoch)
	select {
	case sv.queue <- stateSave{epoch: epoch, capture: capture}:
	case <-ctx.Done():
		capture.Release()
		if j.stoppedEarly(t) {
			// Nothing downstream reads this instance any more: its state is not owed.
			j.saves.end(epoch, nil)
		} else {
			j.saves.end(epoch, errNotSaved)
		}
		return 0, ctx.Err()
	}
	return time.Since(began), nil
}
