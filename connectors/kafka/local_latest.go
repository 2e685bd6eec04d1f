package kafka

import (
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sources"
)

// kafkaFetched records, as a franz-go hook on every reader of the source, the offset after the
// last record any reader fetched per topic-partition (records the log holds: a lower bound of
// the partition's end offset), and signals each fetch on arrived. It records nothing until
// something watches (Arrivals or LocalLatest: continuous processing), so micro-batch reads pay
// one atomic load per record; what was fetched before is found by the poller's full Latest.
type kafkaFetched struct {
	watched atomic.Bool
	mu      sync.Mutex
	through map[kafkaTopicPartition]int64
	arrived chan struct{}
}

// OnFetchRecordBuffered implements kgo.HookFetchRecordBuffered.
func (f *kafkaFetched) OnFetchRecordBuffered(r *kgo.Record) {
	if !f.watched.Load() {
		return
	}
	tp := kafkaTopicPartition{r.Topic, r.Partition}
	f.mu.Lock()
	if f.through == nil {
		f.through = map[kafkaTopicPartition]int64{}
	}
	if r.Offset+1 > f.through[tp] {
		f.through[tp] = r.Offset + 1
	}
	ch := f.channel()
	f.mu.Unlock()
	select {
	case ch <- struct{}{}:
	default:
	}
}

// channel returns arrived, made on first use; the caller holds f.mu.
func (f *kafkaFetched) channel() chan struct{} {
	if f.arrived == nil {
		f.arrived = make(chan struct{}, 1)
	}
	return f.arrived
}

// Arrivals implements LocalLatest.
func (s *kafkaStream) Arrivals() <-chan struct{} {
	s.fetched.watched.Store(true)
	s.fetched.mu.Lock()
	defer s.fetched.mu.Unlock()
	return s.fetched.channel()
}

// LocalLatest implements LocalLatest: pos advanced to what the readers fetched. Source
// partitions without a reader get one standing at pos (so their records are fetched in the
// background too); with minPartitions (readers replaced as ranges split) the view never covers.
func (s *kafkaStream) LocalLatest(pos sources.Offset) (sources.Offset, bool, error) {
	s.fetched.watched.Store(true)
	from, err := decodeKafkaOffsets(pos)
	if err != nil {
		return nil, false, err
	}
	covered, err := s.openIdleReaders(from)
	if err != nil {
		return nil, false, err
	}
	var out kafkaOffsets
	s.fetched.mu.Lock()
	for t, ps := range from {
		for p, off := range ps {
			if n := s.fetched.through[kafkaTopicPartition{t, p}]; n > off {
				if out == nil {
					out = copyKafkaOffsets(from)
				}
				out[t][p] = n
			}
		}
	}
	s.fetched.mu.Unlock()
	if out == nil {
		return nil, covered, nil
	}
	return encodeKafkaOffsets(out), covered, nil
}

// openIdleReaders opens, for every source partition that reads topic-partitions of pos but has
// no reader (kept or in a read), a reader standing at pos, and reports whether every such
// partition has one.
func (s *kafkaStream) openIdleReaders(pos kafkaOffsets) (bool, error) {
	if s.opts.minPartitions > 0 {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, nil
	}
	for p := range s.parts {
		if s.readers[p] != nil || s.reading[p] {
			continue
		}
		ranges := kafkaPartitionRanges(p, s.parts, 0, pos, pos)
		if len(ranges) == 0 {
			continue
		}
		rd, err := s.newReader(ranges)
		if err != nil {
			return false, err
		}
		if s.readers == nil {
			s.readers = map[int]*kafkaReader{}
		}
		s.readers[p] = rd
	}
	return true, nil
}

func copyKafkaOffsets(o kafkaOffsets) kafkaOffsets {
	out := make(kafkaOffsets, len(o))
	for t, ps := range o {
		out[t] = make(map[int32]int64, len(ps))
		for p, off := range ps {
			out[t][p] = off
		}
	}
	return out
}

// JoinOffsets implements OffsetJoiner: every topic-partition of a or b at the later offset.
func (s *kafkaStream) JoinOffsets(a, b sources.Offset) (sources.Offset, error) {
	x, err := decodeKafkaOffsets(a)
	if err != nil {
		return nil, err
	}
	y, err := decodeKafkaOffsets(b)
	if err != nil {
		return nil, err
	}
	out := copyKafkaOffsets(x)
	for t, ps := range y {
		if out[t] == nil {
			out[t] = map[int32]int64{}
		}
		for p, off := range ps {
			if cur, ok := out[t][p]; !ok || off > cur {
				out[t][p] = off
			}
		}
	}
	return encodeKafkaOffsets(out), nil
}
