package query

import (
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// allAvailableNow reports whether every source supports Trigger.AvailableNow
// (sources.AvailableNow): only then does availableNow read in epochs within the sources' read
// limits; otherwise it reads everything available at start in one epoch (Spark falls back to
// single batch execution when a source does not support it).
func allAvailableNow(streams []sources.StreamSource) bool {
	for _, s := range streams {
		if _, ok := s.(sources.AvailableNow); !ok {
			return false
		}
	}
	return len(streams) > 0
}

// prepareAvailableNow fixes every source's availableNow target, the next epoch starting at
// start, and returns the targets.
func (d *driver) prepareAvailableNow(start []sources.Offset) ([]sources.Offset, error) {
	q := d.q
	targets := make([]sources.Offset, len(q.streams))
	for i, s := range q.streams {
		an, ok := s.(sources.AvailableNow)
		if !ok || i >= len(start) {
			return nil, sparkerr.Internal("source %d cannot prepare for Trigger.AvailableNow", i)
		}
		t, err := an.PrepareAvailableNow(q.ctx, start[i])
		if err != nil {
			return nil, err
		}
		targets[i] = t
	}
	return targets, nil
}
