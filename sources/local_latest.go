package sources

import "time"

// LocalLatest is implemented by stream sources whose open readers fetch records in the
// background and so know, without a network call, how far records are available. A continuous
// EpochSource then plans ranges up to that local view as soon as Arrivals signals, instead of
// asking Latest every poll interval; it still asks Latest every FullLatestInterval and whenever
// the local view does not cover the source (new partitions or topics show up only there).
//
// The local view never runs ahead of the data: every range (pos, off] it gives is read
// completely, by offsets, with Read, exactly like a range ending at a Latest.
type LocalLatest interface {
	// LocalLatest returns pos advanced, for the partitions the source's open readers read,
	// through the records those readers already fetched; off is nil when nothing was fetched
	// past pos. covered is false when some partition of pos is read by no open reader (the
	// caller asks Latest then). It may open readers for partitions of pos that have none.
	LocalLatest(pos Offset) (off Offset, covered bool, err error)
	// Arrivals returns a channel that receives a value (sent without blocking; capacity 1)
	// when open readers fetched new records.
	Arrivals() <-chan struct{}
}

// FullLatestInterval is how often a continuous EpochSource asks a LocalLatest source's Latest
// although its local view covers the source.
const FullLatestInterval = 200 * time.Millisecond

// WithFullLatestInterval sets how often a continuous EpochSource asks a LocalLatest source's
// Latest although its local view covers the source (default FullLatestInterval).
func WithFullLatestInterval(d time.Duration) EpochOption {
	return func(cfg *epochConfig) {
		if d > 0 {
			cfg.fullLatest = d
		}
	}
}

// OffsetJoiner is implemented by LocalLatest sources whose local view can be ahead of a Latest
// on some partitions and behind on others: JoinOffsets returns the least offset at or after
// both a and b, the end a continuous EpochSource then plans to.
type OffsetJoiner interface {
	JoinOffsets(a, b Offset) (Offset, error)
}
