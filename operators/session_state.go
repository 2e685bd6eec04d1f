package operators

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
)

// The session aggregate's checkpointed state (flow.Snapshotter, flow.StateCapturer): the rows
// it holds, as an Arrow IPC stream of its input's user columns, captured at the barrier and
// encoded in the background. Restoring feeds them back as input (the keys and times are
// columns of the rows), so the sessions re-form exactly.

// sessionCapture is the session aggregate's state at a barrier (flow.StateCapture): which rows
// of which stored batches it holds, with those batches retained (a stored batch never changes;
// the aggregate drops its own reference once none of its rows is held).
type sessionCapture struct {
	mem     memory.Allocator
	schema  *arrow.Schema
	order   []int32
	byBatch map[int32][]int64
	batches []arrow.RecordBatch // per order entry
}

// CaptureState implements flow.StateCapturer.
func (s *sessionAggregate) CaptureState(int64) (flow.StateCapture, error) {
	c := &sessionCapture{mem: s.env.Mem, schema: flow.UserSchema(s.env.OutSchema), byBatch: map[int32][]int64{}}
	for _, rows := range s.rows {
		for _, r := range rows {
			if _, ok := c.byBatch[r.batch]; !ok {
				c.order = append(c.order, r.batch)
			}
			c.byBatch[r.batch] = append(c.byBatch[r.batch], int64(r.row))
		}
	}
	for _, bi := range c.order {
		b := s.batches[bi]
		b.Retain()
		c.batches = append(c.batches, b)
	}
	if len(c.batches) > 0 {
		c.schema = c.batches[0].Schema()
	}
	return c, nil
}

// SnapshotState implements flow.Snapshotter.
func (s *sessionAggregate) SnapshotState(epoch int64) ([]byte, error) {
	c, err := s.CaptureState(epoch)
	if err != nil {
		return nil, err
	}
	return encodeNow(c)
}

// Encode implements flow.StateCapture: the held rows as an Arrow IPC stream of the input's
// user columns.
func (c *sessionCapture) Encode() ([]byte, error) {
	var b bytes.Buffer
	w := ipc.NewWriter(&b, ipc.WithSchema(c.schema), ipc.WithAllocator(c.mem))
	for k, bi := range c.order {
		rec, err := takeRecord(c.mem, c.batches[k], c.byBatch[bi])
		if err != nil {
			return nil, err
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("session state: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("session state: %w", err)
	}
	return b.Bytes(), nil
}

// Release implements flow.StateCapture.
func (c *sessionCapture) Release() {
	releaseRecords(c.batches)
	c.batches = nil
}

// RestoreState implements flow.Snapshotter. It runs before the instance sees input.
func (s *sessionAggregate) RestoreState(data []byte) error {
	r, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(s.env.Mem))
	if err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		if err := s.store(rec); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	return nil
}
