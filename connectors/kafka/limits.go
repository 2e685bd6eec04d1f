package kafka

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// Where a Kafka read starts and (batch reads) ends: Spark's KafkaOffsetRangeLimit, parsed from
// the starting*/ending* options with KafkaSourceProvider's precedence and messages.

// kafkaLimitKind is the kind of a start or end position.
type kafkaLimitKind int

const (
	kafkaEarliest           kafkaLimitKind = iota // every partition's earliest offset
	kafkaLatest                                   // every partition's latest offset
	kafkaSpecificOffsets                          // per-partition offsets (-2 earliest, -1 latest)
	kafkaGlobalTimestamp                          // one timestamp for every partition
	kafkaSpecificTimestamps                       // per-partition timestamps
)

// Spark's special offsets in offset JSON.
const (
	kafkaOffsetLatest   = -1
	kafkaOffsetEarliest = -2
)

// kafkaLimit is a start or end position of a Kafka read.
type kafkaLimit struct {
	kind kafkaLimitKind
	// offsets are the per-partition offsets (kafkaSpecificOffsets) or timestamps
	// (kafkaSpecificTimestamps).
	offsets kafkaOffsets
	// timestamp is the kafkaGlobalTimestamp (milliseconds since the epoch).
	timestamp int64
	// noMatchLatest is startingOffsetsByTimestampStrategy=latest: a partition without a
	// record at or after the start timestamp starts at its latest offset instead of failing.
	noMatchLatest bool
}

// parseKafkaLimit reads one position as Spark's getKafkaOffsetRangeLimit does: the global
// timestamp option first, then the per-partition timestamps, then the offsets option, else def.
func parseKafkaLimit(opts map[string]string, globalKey, byTimestampKey, offsetsKey string, def kafkaLimitKind) (kafkaLimit, error) {
	l := kafkaLimit{kind: def}
	if v, ok := opts["startingoffsetsbytimestampstrategy"]; ok {
		switch strings.ToUpper(v) {
		case "ERROR":
		case "LATEST":
			l.noMatchLatest = true
		default:
			return l, sparkerr.Newf("java.util.NoSuchElementException", "", "", "No value found for '%s'", strings.ToUpper(v))
		}
	}
	if v, ok := opts[globalKey]; ok {
		ts, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return l, sparkerr.IllegalArgument("Expected a single long value, got %s", strings.TrimSpace(v))
		}
		l.kind, l.timestamp = kafkaGlobalTimestamp, ts
		return l, nil
	}
	if v, ok := opts[byTimestampKey]; ok {
		v = strings.TrimSpace(v)
		ts, err := parseKafkaPartitionMap(v)
		if err != nil {
			return l, sparkerr.IllegalArgument("Expected e.g. {\"topicA\": {\"0\": 123456789, \"1\": 123456789},\n"+
				"\"topicB\": {\"0\": 123456789, \"1\": 123456789}}, got %s", v)
		}
		l.kind, l.offsets = kafkaSpecificTimestamps, ts
		return l, nil
	}
	v, ok := opts[offsetsKey]
	if !ok {
		return l, nil
	}
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "latest":
		l.kind = kafkaLatest
	case "earliest":
		l.kind = kafkaEarliest
	default:
		offs, err := parseKafkaOffsets(v)
		if err != nil {
			return l, err
		}
		l.kind, l.offsets = kafkaSpecificOffsets, offs
	}
	return l, nil
}

// parseLimits reads the start position (default latest for streams, earliest for batch reads)
// and, for batch reads, the end position (default latest), refusing what Spark refuses:
// ending positions in streaming queries; a latest start or an earliest end in batch reads;
// specific start and end offsets or timestamps over different partitions, or a start after
// the end.
func (o *kafkaOptions) parseLimits(opts map[string]string, batch bool) error {
	if !batch {
		if _, ok := opts["endingoffsets"]; ok {
			return sparkerr.IllegalArgument("ending offset not valid in streaming queries")
		}
		if _, ok := opts["endingoffsetsbytimestamp"]; ok {
			return sparkerr.IllegalArgument("ending timestamp not valid in streaming queries")
		}
		start, err := parseKafkaLimit(opts, "startingtimestamp", "startingoffsetsbytimestamp", "startingoffsets", kafkaLatest)
		o.start = start
		return err
	}
	start, err := parseKafkaLimit(opts, "startingtimestamp", "startingoffsetsbytimestamp", "startingoffsets", kafkaEarliest)
	if err != nil {
		return err
	}
	switch start.kind {
	case kafkaLatest:
		return sparkerr.IllegalArgument("starting offset can't be latest for batch queries on Kafka")
	case kafkaSpecificOffsets:
		for _, tp := range sortedPartitions(start.offsets) {
			if start.offsets[tp.Topic][tp.Partition] == kafkaOffsetLatest {
				return sparkerr.IllegalArgument("startingOffsets for %s can't be latest for batch queries on Kafka", tp)
			}
		}
	}
	end, err := parseKafkaLimit(opts, "endingtimestamp", "endingoffsetsbytimestamp", "endingoffsets", kafkaLatest)
	if err != nil {
		return err
	}
	switch end.kind {
	case kafkaEarliest:
		return sparkerr.IllegalArgument("ending offset can't be earliest for batch queries on Kafka")
	case kafkaSpecificOffsets:
		for _, tp := range sortedPartitions(end.offsets) {
			if end.offsets[tp.Topic][tp.Partition] == kafkaOffsetEarliest {
				return sparkerr.IllegalArgument("ending offset for %s can't be earliest for batch queries on Kafka", tp)
			}
		}
	}
	o.start, o.end = start, end
	return checkKafkaLimits(start, end)
}

// checkKafkaLimits is Spark's checkOffsetLimitValidity: specific start and end offsets (or
// timestamps) must name the same partitions, and a start may not pass its end.
func checkKafkaLimits(start, end kafkaLimit) error {
	if start.kind != end.kind || start.kind != kafkaSpecificOffsets && start.kind != kafkaSpecificTimestamps {
		return nil
	}
	startTPs, endTPs := sortedPartitions(start.offsets), sortedPartitions(end.offsets)
	if kafkaTPSet(startTPs) != kafkaTPSet(endTPs) {
		return sparkerr.New(sparkerr.IllegalArgumentException, "MISMATCHED_TOPIC_PARTITIONS_BETWEEN_START_OFFSET_AND_END_OFFSET", "",
			"The specified start offset and end offset should have the same topic-partitions.\n"+
				"Topic-partitions for start offset: "+kafkaTPSet(startTPs)+", topic-partitions for end offset: "+kafkaTPSet(endTPs)+".").
			WithParams("tpsForStartOffset", kafkaTPSet(startTPs), "tpsForEndOffset", kafkaTPSet(endTPs))
	}
	offsetType := "offset"
	if start.kind == kafkaSpecificTimestamps {
		offsetType = "timestamp"
	}
	for _, tp := range startTPs {
		from, until := start.offsets[tp.Topic][tp.Partition], end.offsets[tp.Topic][tp.Partition]
		if from > until && from >= 0 && until >= 0 {
			return sparkerr.Newf(sparkerr.IllegalArgumentException, "UNRESOLVED_START_OFFSET_GREATER_THAN_END_OFFSET", "",
				"The specified start %s %d is greater than the end %s %d for topic %s partition %d.",
				offsetType, from, offsetType, until, tp.Topic, tp.Partition).
				WithParams("offsetType", offsetType, "startOffset", strconv.FormatInt(from, 10),
					"endOffset", strconv.FormatInt(until, 10), "topic", tp.Topic, "partition", itoa32(tp.Partition))
		}
	}
	return nil
}

// String renders a topic-partition as Kafka's TopicPartition.toString does.
func (tp kafkaTopicPartition) String() string { return tp.Topic + "-" + itoa32(tp.Partition) }

// kafkaTPSet renders sorted topic-partitions as a Scala Set.
func kafkaTPSet(tps []kafkaTopicPartition) string {
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = tp.String()
	}
	return "Set(" + strings.Join(parts, ", ") + ")"
}

// parseKafkaPartitionMap parses {"topic":{"0":n,...},...} (offsets or timestamps).
func parseKafkaPartitionMap(s string) (kafkaOffsets, error) {
	var raw map[string]map[string]int64
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, err
	}
	out := kafkaOffsets{}
	for t, ps := range raw {
		out[t] = map[int32]int64{}
		for p, v := range ps {
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				return nil, err
			}
			out[t][int32(n)] = v
		}
	}
	return out, nil
}

// timeStringAsMs is JavaUtils.timeStringAsMs: "15m", "10s", "500ms"; a bare number means
// milliseconds.
func timeStringAsMs(str string) (int64, error) { return sources.TimeStringAs(str, 1e3) }
