package query

import "sync"

// checkpointBytes counts the bytes each epoch writes to the checkpoint: its offsets-log record
// (the driver) and its operators' state snapshots (the state backend, from the job's save
// goroutines, once per operator partition and epoch), until the epoch's progress takes them.
type checkpointBytes struct {
	mu     sync.Mutex
	epochs map[int64]int64
}

func newCheckpointBytes() *checkpointBytes {
	return &checkpointBytes{epochs: map[int64]int64{}}
}

// add counts n bytes written for epoch.
func (c *checkpointBytes) add(epoch int64, n int) {
	c.mu.Lock()
	c.epochs[epoch] += int64(n)
	c.mu.Unlock()
}

// take returns the bytes written for epoch and forgets epochs up to it.
func (c *checkpointBytes) take(epoch int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.epochs[epoch]
	for e := range c.epochs {
		if e <= epoch {
			delete(c.epochs, e)
		}
	}
	return n
}
