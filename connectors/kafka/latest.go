package kafka

import (
	"context"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafkaMetadataMaxAge is how long the source lists end offsets from the partitions it last
// listed for its topics (one ListOffsets round trip) instead of asking for the topics'
// metadata first (two): a partition added to a subscribed topic is read within it.
const kafkaMetadataMaxAge = time.Second

// kafkaPartitionList is the partitions a full listing of end offsets returned for topics.
type kafkaPartitionList struct {
	at     time.Time
	topics string // the topics listed, joined
	parts  map[string][]int32
}

// keepPartitions remembers the partitions of a full end-offsets listing of topics, unless a
// topic had none (it may be created a moment later: the next listing asks the metadata again).
func (s *kafkaStream) keepPartitions(topics []string, listed kafkaOffsets) {
	parts := map[string][]int32{}
	for _, t := range topics {
		if len(listed[t]) == 0 {
			return
		}
		for p := range listed[t] {
			parts[t] = append(parts[t], p)
		}
	}
	s.mu.Lock()
	s.partitions = &kafkaPartitionList{at: time.Now(), topics: strings.Join(topics, "\x00"), parts: parts}
	s.mu.Unlock()
}

// quickEndOffsets lists the end offsets (last stable offsets when read_committed) of the
// topics' partitions kept by keepPartitions within kafkaMetadataMaxAge, with one ListOffsets
// request per partition leader. ok is false, and the kept partitions are dropped, when there
// are none or any partition answered with an error: the caller then lists in full.
func (s *kafkaStream) quickEndOffsets(ctx context.Context, topics []string) (kafkaOffsets, bool) {
	s.mu.Lock()
	kept := s.partitions
	s.mu.Unlock()
	if kept == nil || time.Since(kept.at) >= kafkaMetadataMaxAge || kept.topics != strings.Join(topics, "\x00") {
		return nil, false
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.TimeoutMillis = int32(min(s.opts.apiTimeout.Milliseconds(), 1<<31-1))
	if s.opts.readCommitted() {
		req.IsolationLevel = 1
	}
	for _, t := range topics {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t
		for _, p := range kept.parts[t] {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition, rp.Timestamp = p, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	out := kafkaOffsets{}
	n := 0
	for _, shard := range s.admin.RequestSharded(ctx, req) {
		if shard.Err != nil {
			s.dropPartitions()
			return nil, false
		}
		for _, t := range shard.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode != 0 {
					s.dropPartitions()
					return nil, false
				}
				if out[t.Topic] == nil {
					out[t.Topic] = map[int32]int64{}
				}
				out[t.Topic][p.Partition] = p.Offset
				n++
			}
		}
	}
	want := 0
	for _, ps := range kept.parts {
		want += len(ps)
	}
	if n != want {
		s.dropPartitions()
		return nil, false
	}
	return out, true
}

func (s *kafkaStream) dropPartitions() {
	s.mu.Lock()
	s.partitions = nil
	s.mu.Unlock()
}
