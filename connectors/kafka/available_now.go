package kafka

import "github.com/weirhq/weir/sources"

import "context"

// PrepareAvailableNow implements AvailableNow (Spark's KafkaMicroBatchStream keeps the end
// offsets fetched for the first epoch of a Trigger.AvailableNow query as
// allDataForTriggerAvailableNow): the end offsets now, from start as LatestFrom lists them,
// become the target every later epoch ends at or before, maxOffsetsPerTrigger still capping
// each epoch.
func (s *kafkaStream) PrepareAvailableNow(ctx context.Context, start sources.Offset) (sources.Offset, error) {
	from, err := decodeKafkaOffsets(start)
	if err != nil {
		return nil, err
	}
	target, err := s.endOffsetsFrom(ctx, from)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.target = target
	s.mu.Unlock()
	return encodeKafkaOffsets(target), nil
}

// cappedKafkaTarget is the end offsets of an availableNow epoch starting at from before the
// read limit applies: the target's, where a partition never goes back before from.
func cappedKafkaTarget(target, from kafkaOffsets) kafkaOffsets {
	out := kafkaOffsets{}
	for _, tp := range sortedPartitions(target) {
		if out[tp.Topic] == nil {
			out[tp.Topic] = map[int32]int64{}
		}
		end := target[tp.Topic][tp.Partition]
		if b, ok := from[tp.Topic][tp.Partition]; ok && b > end {
			end = b
		}
		out[tp.Topic][tp.Partition] = end
	}
	for _, tp := range sortedPartitions(from) {
		if _, ok := out[tp.Topic][tp.Partition]; !ok {
			if out[tp.Topic] == nil {
				out[tp.Topic] = map[int32]int64{}
			}
			out[tp.Topic][tp.Partition] = from[tp.Topic][tp.Partition]
		}
	}
	return out
}
