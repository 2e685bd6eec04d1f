package sources

import "context"

// StartRelative is implemented by stream sources whose newest offset is defined relative to
// where the next epoch starts (rate-micro-batch: Spark's latestOffset(startOffset, readLimit)).
// A coordinator that knows the next epoch's start should call LatestFrom instead of Latest.
type StartRelative interface {
	LatestFrom(ctx context.Context, start Offset) (Offset, error)
}
