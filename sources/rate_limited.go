package sources

import "context"

// RateLimited is implemented by StartRelative sources whose LatestFrom may stop short of the
// data available (Kafka's maxOffsetsPerTrigger caps what one epoch reads). A
// processAllAvailable caller waits until the epochs reach the data available at the call, not
// only the next capped epoch: a coordinator with such callers pending asks LatestAndAvailable
// instead of LatestFrom.
type RateLimited interface {
	StartRelative
	// LatestAndAvailable returns what LatestFrom(ctx, start) returns and, from the same look at
	// the source, the offset the data available now ends at, whatever the per-epoch limit.
	LatestAndAvailable(ctx context.Context, start Offset) (latest, available Offset, err error)
}
