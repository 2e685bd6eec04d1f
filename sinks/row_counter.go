package sinks

import "sync/atomic"

// RowCounter is a sink's numOutputRows: rows written since the last read.
type RowCounter struct{ n atomic.Int64 }

func (r *RowCounter) Add(n int64) { r.n.Add(n) }

// Take returns and resets the count.
func (r *RowCounter) Take() int64 { return r.n.Swap(0) }
