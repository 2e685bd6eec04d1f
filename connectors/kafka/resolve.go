package kafka

import (
	"context"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// resolveLimit resolves a start (starting) or end position to the offsets of the partitions the
// source reads now, as Spark's KafkaOffsetReaderAdmin.fetchPartitionOffsets does: specific
// offsets and per-partition timestamps must name exactly those partitions; -2 is a
// partition's earliest offset and -1 its latest; a timestamp resolves to the first offset whose
// record's timestamp is at or after it (ListOffsets by timestamp), and where there is none, a
// start fails (or, with startingOffsetsByTimestampStrategy=latest, is the latest offset) and
// an end is the latest offset.
func (s *kafkaStream) resolveLimit(ctx context.Context, l kafkaLimit, starting bool) (kafkaOffsets, error) {
	switch l.kind {
	case kafkaEarliest:
		return s.listOffsets(ctx, true)
	case kafkaLatest:
		return s.listOffsets(ctx, false)
	}
	latest, err := s.listOffsets(ctx, false)
	if err != nil {
		return nil, err
	}
	switch l.kind {
	case kafkaSpecificOffsets:
		if kafkaTPSet(sortedPartitions(l.offsets)) != kafkaTPSet(sortedPartitions(latest)) {
			return nil, kafkaAssignedMismatch("KAFKA_START_OFFSET_DOES_NOT_MATCH_ASSIGNED",
				"Partitions specified for Kafka start offsets don't match what are assigned. Maybe topic partitions are created \n"+
					"or deleted while the query is running. Use -1 for latest, -2 for earliest.\n", l.offsets, latest)
		}
		var earliest kafkaOffsets
		out := kafkaOffsets{}
		for _, tp := range sortedPartitions(l.offsets) {
			off := l.offsets[tp.Topic][tp.Partition]
			switch off {
			case kafkaOffsetEarliest:
				if earliest == nil {
					if earliest, err = s.listOffsets(ctx, true); err != nil {
						return nil, err
					}
				}
				off = earliest[tp.Topic][tp.Partition]
			case kafkaOffsetLatest:
				off = latest[tp.Topic][tp.Partition]
			}
			setKafkaOffset(out, tp, off)
		}
		return out, nil
	case kafkaSpecificTimestamps:
		if kafkaTPSet(sortedPartitions(l.offsets)) != kafkaTPSet(sortedPartitions(latest)) {
			position := "end"
			if starting {
				position = "start"
			}
			return nil, kafkaAssignedMismatch("KAFKA_TIMESTAMP_OFFSET_DOES_NOT_MATCH_ASSIGNED",
				"Partitions specified for Kafka timestamp based "+position+" offsets don't match what are assigned. "+
					"Maybe topic partitions are created \nor deleted while the query is running, or you didn't specify all "+
					"the partitions.\n", l.offsets, latest).WithParams("position", position)
		}
		return s.offsetsForTimes(ctx, l.offsets, latest, starting && !l.noMatchLatest)
	default: // kafkaGlobalTimestamp
		times := kafkaOffsets{}
		for _, tp := range sortedPartitions(latest) {
			setKafkaOffset(times, tp, l.timestamp)
		}
		return s.offsetsForTimes(ctx, times, latest, starting && !l.noMatchLatest)
	}
}

func setKafkaOffset(o kafkaOffsets, tp kafkaTopicPartition, off int64) {
	if o[tp.Topic] == nil {
		o[tp.Topic] = map[int32]int64{}
	}
	o[tp.Topic][tp.Partition] = off
}

// kafkaAssignedMismatch is Spark's KafkaIllegalStateException for specified partitions that
// are not the assigned ones.
func kafkaAssignedMismatch(class, head string, specified, assigned kafkaOffsets) *sparkerr.Error {
	spec, asg := kafkaTPSet(sortedPartitions(specified)), kafkaTPSet(sortedPartitions(assigned))
	return sparkerr.New(sources.IllegalStateException, class, "", head+"Specified: "+spec+" Assigned: "+asg).
		WithParams("specifiedPartitions", spec, "assignedPartitions", asg)
}

// offsetsForTimes lists, for each partition's timestamp, the first offset whose record's
// timestamp is at or after it. A partition with no such record resolves to its latest offset,
// or fails when noMatchFails (Spark's StrategyOnNoMatchStartingOffset.ERROR).
func (s *kafkaStream) offsetsForTimes(ctx context.Context, times, latest kafkaOffsets, noMatchFails bool) (kafkaOffsets, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.apiTimeout)
	defer cancel()
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	if s.opts.readCommitted() {
		req.IsolationLevel = 1
	}
	for _, t := range sortedTopics(times) {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t
		for _, tp := range sortedPartitions(kafkaOffsets{t: times[t]}) {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition = tp.Partition
			rp.Timestamp = times[t][tp.Partition]
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	found := kafkaOffsets{}
	for _, shard := range s.admin.RequestSharded(ctx, req) {
		if shard.Err != nil {
			return nil, s.kafkaError("listOffsets", shard.Err)
		}
		for _, t := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, s.kafkaError("listOffsets", err)
				}
				setKafkaOffset(found, kafkaTopicPartition{t.Topic, p.Partition}, p.Offset)
			}
		}
	}
	out := kafkaOffsets{}
	for _, tp := range sortedPartitions(times) {
		off, ok := found[tp.Topic][tp.Partition]
		if !ok || off < 0 {
			if noMatchFails {
				return nil, sparkerr.IllegalArgument("No offset matched from request of topic-partition %s and timestamp %s.",
					tp, strconv.FormatInt(times[tp.Topic][tp.Partition], 10))
			}
			off = latest[tp.Topic][tp.Partition]
		}
		setKafkaOffset(out, tp, off)
	}
	return out, nil
}

// kafkaResolveAttempts is how many times a batch read lists its start and end positions when
// partitions appear between the two listings (a topic being created).
const kafkaResolveAttempts = 3

// resolveRange resolves a batch read's start and end positions and checks them as Spark's
// getOffsetRangesFromUnresolvedOffsets and its partition readers do. Start and end listed
// over different partitions (a topic created or grown between the two listings) are listed
// again, a few times, before that is an error.
func (s *kafkaStream) resolveRange(ctx context.Context, start, end kafkaLimit) (from, until kafkaOffsets, err error) {
	var fromTPs, untilTPs []kafkaTopicPartition
	for attempt := range kafkaResolveAttempts {
		if attempt > 0 {
			// Past the client's metadata cache (kgo.MetadataMinAge) before listing again.
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		if from, err = s.resolveLimit(ctx, start, true); err != nil {
			return nil, nil, err
		}
		if until, err = s.resolveLimit(ctx, end, false); err != nil {
			return nil, nil, err
		}
		fromTPs, untilTPs = sortedPartitions(from), sortedPartitions(until)
		if kafkaTPSet(fromTPs) == kafkaTPSet(untilTPs) {
			break
		}
	}
	if kafkaTPSet(fromTPs) != kafkaTPSet(untilTPs) {
		return nil, nil, sparkerr.Newf(sources.IllegalStateException, "", "",
			"different topic partitions for starting offsets topics[%s] and ending offsets topics[%s]",
			kafkaTPList(fromTPs), kafkaTPList(untilTPs))
	}
	for _, tp := range fromTPs {
		f, u := from[tp.Topic][tp.Partition], until[tp.Topic][tp.Partition]
		if f > u {
			return nil, nil, sparkerr.Newf(sources.IllegalStateException, "RESOLVED_START_OFFSET_GREATER_THAN_END_OFFSET", "",
				"The resolved start offset %d is greater than the resolved end offset %d for topic %s partition %d.\n"+
					"There may be multiple reasons:\n"+
					"1. Start offset is set to too big a value that after resolution, end offset is smaller than it. There are multiple input cases:\n"+
					"  (a) Start offset is set to a timestamp, and the end offset is set to an index.\n"+
					"  (b) Start offset is set to an index, and the end offset is set to a timestamp.\n"+
					"  (c) Start offset is set, and the end offset is set to latest.\n"+
					"2. The Kafka topic partition is broken.", f, u, tp.Topic, tp.Partition).
				WithParams("startOffset", strconv.FormatInt(f, 10), "endOffset", strconv.FormatInt(u, 10),
					"topic", tp.Topic, "partition", itoa32(tp.Partition))
		}
	}
	return from, until, nil
}

func kafkaTPList(tps []kafkaTopicPartition) string {
	out := ""
	for i, tp := range tps {
		if i > 0 {
			out += ","
		}
		out += tp.String()
	}
	return out
}

func sortedTopics(o kafkaOffsets) []string {
	seen := map[string]bool{}
	var out []string
	for _, tp := range sortedPartitions(o) {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			out = append(out, tp.Topic)
		}
	}
	return out
}
