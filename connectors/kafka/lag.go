package kafka

import (
	"strconv"

	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/expr"
)

// Consumer lag, Spark's KafkaMicroBatchStream.metrics: per topic-partition, the end offset
// last listed minus the offset an epoch read up to.

// noteAvailable records the end offsets a latest-offsets request listed (before read limits).
func (s *kafkaStream) noteAvailable(latest kafkaOffsets) {
	s.mu.Lock()
	s.available = latest
	s.mu.Unlock()
}

// Metrics implements sources.ReportsMetrics: minOffsetsBehindLatest, maxOffsetsBehindLatest and
// avgOffsetsBehindLatest over the listed partitions, as Spark reports them, and
// offsetsBehindLatest, the lag of each partition in the offsets' JSON shape
// ({"topic":{"0":12}}); no metrics before a listing or without partitions.
func (s *kafkaStream) Metrics(end sources.Offset) map[string]string {
	s.mu.Lock()
	available := s.available
	s.mu.Unlock()
	consumed, err := decodeKafkaOffsets(end)
	if err != nil || len(available) == 0 {
		return nil
	}
	behind := kafkaLag(available, consumed)
	var n, sum, lo, hi int64
	for _, ps := range behind {
		for _, d := range ps {
			if n == 0 || d < lo {
				lo = d
			}
			if n == 0 || d > hi {
				hi = d
			}
			sum += d
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return map[string]string{
		"minOffsetsBehindLatest": strconv.FormatInt(lo, 10),
		"maxOffsetsBehindLatest": strconv.FormatInt(hi, 10),
		"avgOffsetsBehindLatest": expr.JavaDouble(float64(sum)/float64(n), 64),
		"offsetsBehindLatest":    string(encodeKafkaOffsets(behind)),
	}
}

// kafkaLag is available − consumed per partition both hold (a partition new since the epoch
// has no consumed offset yet: the next epoch's metrics count it), never below 0.
func kafkaLag(available, consumed kafkaOffsets) kafkaOffsets {
	out := kafkaOffsets{}
	for t, ps := range available {
		for p, latest := range ps {
			c, ok := consumed[t][p]
			if !ok {
				continue
			}
			if out[t] == nil {
				out[t] = map[int32]int64{}
			}
			out[t][p] = max(latest-c, 0)
		}
	}
	return out
}
