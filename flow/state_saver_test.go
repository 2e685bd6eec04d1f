package flow

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// captureOp is a stateful test operator whose snapshots are captured: its capture encodes the
// epoch it was taken at, or fails with encodeErr.
type captureOp struct {
	encodeErr error
	released  *sync.WaitGroup
}

func (captureOp) Process(context.Context, int, arrow.RecordBatch, Emitter) error { return nil }
func (o captureOp) SnapshotState(epoch int64) ([]byte, error) {
	c, _ := o.CaptureState(epoch)
	defer c.Release()
	return c.Encode()
}
func (captureOp) RestoreState([]byte) error { return nil }
func (o captureOp) CaptureState(epoch int64) (StateCapture, error) {
	o.released.Add(1)
	return &testCapture{epoch: epoch, err: o.encodeErr, released: o.released}, nil
}

type testCapture struct {
	epoch    int64
	err      error
	released *sync.WaitGroup
}

func (c *testCapture) Encode() ([]byte, error) { return []byte{byte(c.epoch)}, c.err }
func (c *testCapture) Release()                { c.released.Done() }

// savedBackend records saves by epoch.
type savedBackend struct {
	mu    sync.Mutex
	saved map[int64][]byte
}

func (b *savedBackend) Save(_ string, _ int, epoch int64, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.saved[epoch] = data
	return nil
}
func (b *savedBackend) Load(string, int, int64) ([]byte, bool, error) { return nil, false, nil }

// barrierGraph is a source emitting barriers 0..epochs-1 then waiting for the job to stop, into
// one captureOp instance.
func barrierGraph(op captureOp, epochs int64) *Graph {
	src := &Node{Name: "Source#1", Parallelism: 1, Schema: testSchema, Source: SourceFunc(
		func(ctx context.Context, env Env, out Emitter) error {
			for e := range epochs {
				if err := out.Emit(ctx, NewMarkerBatch(env.Mem, testSchema, Marker{Kind: MarkerBarrier, Epoch: e})); err != nil {
					return err
				}
			}
			<-ctx.Done()
			return ctx.Err()
		})}
	return &Graph{Output: &Node{Name: "State#2", Parallelism: 1, Schema: testSchema,
		NewOperator: func(Env) (Operator, error) { return op, nil }, Inputs: []Input{{From: src, Exchange: Forward}}}}
}

// nextBarrier reads the job's output until barrier epoch.
func nextBarrier(t *testing.T, job Job, epoch int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		rec, err := job.Next(ctx)
		if err != nil {
			t.Fatalf("job: %v", err)
		}
		m, ok, _ := MarkerOf(rec)
		rec.Release()
		if ok && m.Kind == MarkerBarrier && m.Epoch == epoch {
			return
		}
	}
}

func TestWaitSavedReturnsOnceEverySaveOfTheEpochEnded(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	var released sync.WaitGroup
	b := &savedBackend{saved: map[int64][]byte{}}
	job, err := NewLocalRunner(WithAllocator(mem)).Start(context.Background(), barrierGraph(captureOp{released: &released}, 3),
		JobOptions{Checkpointing: Checkpointing{Backend: b}})
	if err != nil {
		t.Fatal(err)
	}
	nextBarrier(t, job, 2)
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := job.(StateSaveWaiter).WaitSaved(wctx, 2); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	for e := range int64(3) {
		if got := b.saved[e]; len(got) != 1 || got[0] != byte(e) {
			t.Errorf("epoch %d saved %v", e, got)
		}
	}
	b.mu.Unlock()
	job.Close()
	released.Wait()
}

func TestAFailedSaveFailsTheJobAndWaitSaved(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	var released sync.WaitGroup
	b := &savedBackend{saved: map[int64][]byte{}}
	op := captureOp{encodeErr: errors.New("disk on fire"), released: &released}
	job, err := NewLocalRunner(WithAllocator(mem)).Start(context.Background(), barrierGraph(op, 1),
		JobOptions{Checkpointing: Checkpointing{Backend: b}})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The job fails once the save does, so its output ends with that failure, possibly after
	// the barrier (forwarded once the capture was taken). The save was counted before the
	// barrier went on, so WaitSaved reports the failure too.
	var jobErr error
	for jobErr == nil {
		rec, err := job.Next(wctx)
		if err != nil {
			jobErr = err
			break
		}
		rec.Release()
	}
	if !strings.Contains(jobErr.Error(), "disk on fire") {
		t.Fatalf("job ended with %v, want the save's failure", jobErr)
	}
	if err := job.(StateSaveWaiter).WaitSaved(wctx, 0); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("WaitSaved = %v, want the save's failure", err)
	}
	job.Close()
	released.Wait()
}
