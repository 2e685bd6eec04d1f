package kafka

import "math"

// How an epoch's (or a batch read's) Kafka offset ranges map to the source's partitions. By
// default every topic-partition is read whole by one source partition, round-robin in (topic,
// partition) order, so a source partition keeps reading the same topic-partitions epoch after
// epoch with its kept consumer. With minPartitions set above the number of topic-partitions
// that have records to read, the ranges are split as Spark's KafkaOffsetRangeCalculator splits
// them into read tasks (large ranges into several pieces, about minPartitions in all), and the
// pieces, in (topic, partition, offset) order, are dealt to the source partitions in
// contiguous runs, adjacent pieces of one topic-partition on one source partition read as one
// range. A split epoch's consumers seldom stand where the next epoch starts, so they are
// replaced then. Offsets (progress, checkpoint) stay per topic-partition: only the reading is
// split. A range whose start is the partition's earliest offset, not known here (a partition
// new since the epoch's start), is not split: every source partition must split alike.

// kafkaPartitionRanges returns source partition p's share (of parts) of the ranges
// [from, to) of every topic-partition of to; a topic-partition absent from from starts at its
// earliest offset (-2).
func kafkaPartitionRanges(p, parts, minPartitions int, from, to kafkaOffsets) []kafkaRange {
	var all []kafkaRange
	for _, tp := range sortedPartitions(to) {
		r := kafkaRange{tp: tp, from: kafkaOffsetEarliest, until: to[tp.Topic][tp.Partition]}
		if b, ok := from[tp.Topic][tp.Partition]; ok {
			r.from = b
		}
		all = append(all, r)
	}
	if pieces, ok := splitKafkaRanges(all, minPartitions, parts); ok {
		return dealKafkaPieces(pieces, p, parts)
	}
	var out []kafkaRange
	for i, r := range all {
		if i%parts != p || r.from >= 0 && r.from > r.until {
			continue
		}
		out = append(out, r)
	}
	return out
}

// splitKafkaRanges splits ranges into read pieces as Spark's KafkaOffsetRangeCalculator does
// when minPartitions is above the number of ranges with records (empty ranges are dropped);
// ok is false when there is nothing to split: no minPartitions, enough ranges already, or a
// single source partition to read them.
func splitKafkaRanges(ranges []kafkaRange, minPartitions, parts int) ([]kafkaRange, bool) {
	if minPartitions <= 0 || parts <= 1 {
		return nil, false
	}
	var live []kafkaRange
	for _, r := range ranges {
		if r.from < 0 || r.until > r.from {
			live = append(live, r)
		}
	}
	if len(live) >= minPartitions {
		return nil, false
	}
	size := func(r kafkaRange) int64 { return r.until - r.from }
	var total int64
	for _, r := range live {
		if r.from >= 0 {
			total += size(r)
		}
	}
	// Ranges of one piece (small, or of unknown size) are left out of the proportional split
	// of the large ones.
	whole := make([]bool, len(live))
	wholes, wholeSize := 0, int64(0)
	for i, r := range live {
		if r.from < 0 || kafkaPartCount(size(r), total, minPartitions) == 1 {
			whole[i] = true
			wholes++
			if r.from >= 0 {
				wholeSize += size(r)
			}
		}
	}
	splitTotal, splitMin := total-wholeSize, max(minPartitions-wholes, 1)
	var out []kafkaRange
	for i, r := range live {
		n := 1
		if !whole[i] {
			n = kafkaPartCount(size(r), splitTotal, splitMin)
		}
		if n == 1 {
			out = append(out, r)
			continue
		}
		remaining, start := size(r), r.from
		for k := range n {
			this := remaining / int64(n-k) // the last piece takes the rounding
			remaining -= this
			end := min(start+this, r.until)
			if end > start {
				out = append(out, kafkaRange{tp: r.tp, from: start, until: end})
			}
			start = end
		}
	}
	return out, true
}

// kafkaPartCount is Spark's getPartCount: the pieces a range of size gets of minParts over
// total, at least one (Scala's math.round: half up).
func kafkaPartCount(size, total int64, minParts int) int {
	if total <= 0 {
		return 1
	}
	return max(int(math.Floor(float64(size)/float64(total)*float64(minParts)+0.5)), 1)
}

// dealKafkaPieces returns source partition p's pieces: piece j of n goes to partition
// j·parts/n, so each partition gets a contiguous run; adjacent pieces of one topic-partition
// merge into one range.
func dealKafkaPieces(pieces []kafkaRange, p, parts int) []kafkaRange {
	var out []kafkaRange
	n := len(pieces)
	for j, r := range pieces {
		if j*parts/n != p {
			continue
		}
		if k := len(out) - 1; k >= 0 && out[k].tp == r.tp && out[k].until == r.from {
			out[k].until = r.until
			continue
		}
		out = append(out, r)
	}
	return out
}
