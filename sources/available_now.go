package sources

import "context"

// AvailableNow is implemented by stream sources that support Trigger.AvailableNow (Spark's
// SupportsTriggerAvailableNow: Kafka, the file sources). Such a query reads the data available
// at its start in epochs within the source's read limits (maxOffsetsPerTrigger,
// maxFilesPerTrigger), then stops. A query with a source that does not implement it (rate,
// socket) reads all the data available at start in one epoch, ignoring read limits, as
// Trigger.Once does (Spark's fallback to single batch execution). Kafka's minOffsetsPerTrigger
// does not hold an availableNow epoch back: the query reads its target to the end, where Spark
// 4 can delay the last, smaller batch and stop with that tail unread.
type AvailableNow interface {
	// PrepareAvailableNow fixes the data available now as the query's target and returns the
	// offset it ends at; start is where the query's next epoch starts. From then on the source
	// behaves as if no data came after the target: its latest offset (LatestFrom and
	// LatestAndAvailable for a StartRelative source, Latest otherwise) never passes it,
	// approaches it by at most the read limit per epoch, and stays where the last epoch ended
	// once that is the target.
	PrepareAvailableNow(ctx context.Context, start Offset) (Offset, error)
}
