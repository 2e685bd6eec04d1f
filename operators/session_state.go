package operators

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/weirhq/weir/flow"
)

// The session aggregate's checkpointed state (flow.Snapshotter): the rows it holds, as an Arrow
// IPC stream of its input's user columns. Restoring feeds them back as input (the keys and
// times are columns of the rows), so the sessions re-form exactly.

// SnapshotState implements flow.Snapshotter.
func (s *sessionAggregate) SnapshotState(int64) ([]byte, error) {
	byBatch := map[int32][]int64{}
	var order []int32
	for _, rows := range s.rows {
		for _, r := range rows {
			if _, ok := byBatch[r.batch]; !ok {
				order = append(order, r.batch)
			}
			byBatch[r.batch] = append(byBatch[r.batch], int64(r.row))
		}
	}
	var b bytes.Buffer
	schema := flow.UserSchema(s.env.OutSchema)
	if len(order) > 0 {
		schema = s.batches[order[0]].Schema()
	}
	w := ipc.NewWriter(&b, ipc.WithSchema(schema), ipc.WithAllocator(s.env.Mem))
	for _, bi := range order {
		rec, err := takeRecord(s.env.Mem, s.batches[bi], byBatch[bi])
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
