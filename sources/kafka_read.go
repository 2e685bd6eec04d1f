package sources

import (
	"context"
	"errors"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sqltypes"
)

// kafkaRange is one topic-partition's offsets [from, until) to read; from -2 is the
// partition's earliest offset.
type kafkaRange struct {
	tp          kafkaTopicPartition
	from, until int64
}

// readRanges consumes the ranges with one direct-partition client (no consumer group), keeping
// control records so that every offset up to until-1 is seen even in transactional topics, and
// emits the data records as batches of the source's schema. A fetch making no progress for
// kafkaConsumer.pollTimeoutMs fails the read.
func (s *kafkaStream) readRanges(ctx context.Context, ranges []kafkaRange, emit func(arrow.RecordBatch) error) error {
	opts, err := s.opts.clientOpts()
	if err != nil {
		return err
	}
	if ranges, err = s.resolveEarliest(ctx, ranges); err != nil || len(ranges) == 0 {
		return err
	}
	assign := map[string]map[int32]kgo.Offset{}
	next := map[kafkaTopicPartition]int64{}
	until := map[kafkaTopicPartition]int64{}
	for _, r := range ranges {
		if assign[r.tp.Topic] == nil {
			assign[r.tp.Topic] = map[int32]kgo.Offset{}
		}
		assign[r.tp.Topic][r.tp.Partition] = kgo.NewOffset().At(r.from)
		next[r.tp] = r.from
		until[r.tp] = r.until
	}
	opts = append(opts, kgo.ConsumePartitions(assign), kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500*time.Millisecond))
	if s.opts.readCommitted() {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return sparkerr.IllegalArgument("Invalid Kafka client configuration: %v", err).Wrap(err)
	}
	defer cl.Close()

	b := newKafkaBatch(s)
	defer b.release()
	remaining := len(ranges)
	lastProgress := time.Now()
	for remaining > 0 {
		pollCtx, cancel := context.WithTimeout(ctx, s.opts.pollTimeout)
		fetches := cl.PollFetches(pollCtx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		progressed := false
		var fetchErr error
		fetches.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && fetchErr == nil {
				fetchErr = s.kafkaError("fetch "+t+"-"+itoa32(p), err)
			}
		})
		if fetchErr != nil {
			return fetchErr
		}
		var recErr error
		fetches.EachRecord(func(r *kgo.Record) {
			tp := kafkaTopicPartition{r.Topic, r.Partition}
			end, ok := until[tp]
			if !ok || recErr != nil {
				return
			}
			n := next[tp]
			if n >= end || r.Offset < n || r.Offset >= end {
				return
			}
			if r.Offset > n {
				if lost, err := s.lostBefore(ctx, tp, n); err != nil {
					recErr = err
					return
				} else if lost && s.opts.failOnDataLoss {
					recErr = kafkaDataLoss("Cannot fetch offset %d of %s-%d (the earliest available is later).", n, tp.Topic, tp.Partition)
					return
				}
			}
			progressed = true
			next[tp] = r.Offset + 1
			if !r.Attrs.IsControl() {
				b.append(r)
			}
			if r.Offset+1 >= end {
				remaining--
				cl.PauseFetchPartitions(map[string][]int32{tp.Topic: {tp.Partition}})
			}
			if b.rows >= RangeBatchRows {
				recErr = b.flush(emit)
			}
		})
		if recErr != nil {
			return recErr
		}
		if progressed {
			lastProgress = time.Now()
		} else if time.Since(lastProgress) >= s.opts.pollTimeout {
			return sparkerr.Newf(kafkaTimeoutException, "", "",
				"Cannot fetch records from Kafka (kafka.bootstrap.servers %s) within kafkaConsumer.pollTimeoutMs=%d ms",
				joinServers(s.opts.bootstrap), s.opts.pollTimeout.Milliseconds())
		}
	}
	return b.flush(emit)
}

// resolveEarliest replaces the ranges' earliest (-2) starts by the partitions' earliest
// offsets and drops the ranges left empty.
func (s *kafkaStream) resolveEarliest(ctx context.Context, ranges []kafkaRange) ([]kafkaRange, error) {
	var earliest kafkaOffsets
	out := ranges[:0]
	for _, r := range ranges {
		if r.from < 0 {
			if earliest == nil {
				var err error
				if earliest, err = s.listOffsets(ctx, true); err != nil {
					return nil, err
				}
			}
			r.from = earliest[r.tp.Topic][r.tp.Partition]
		}
		if r.from < r.until {
			out = append(out, r)
		}
	}
	return out, nil
}

func joinServers(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// lostBefore reports whether tp's log no longer holds offset n (its earliest offset is later):
// a gap that is data loss rather than compaction.
func (s *kafkaStream) lostBefore(ctx context.Context, tp kafkaTopicPartition, n int64) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.apiTimeout)
	defer cancel()
	listed, err := s.adm.ListStartOffsets(ctx, tp.Topic)
	if err != nil {
		return false, s.kafkaError("listOffsets", err)
	}
	l, ok := listed.Lookup(tp.Topic, tp.Partition)
	if !ok || l.Err != nil {
		return false, nil
	}
	return l.Offset > n, nil
}

// kafkaBatch builds record batches of the Kafka source's schema.
type kafkaBatch struct {
	bld     *array.RecordBuilder
	headers bool
	rows    int
}

func newKafkaBatch(s *kafkaStream) *kafkaBatch {
	return &kafkaBatch{bld: array.NewRecordBuilder(s.mem, sqltypes.ToArrowSchema(s.schema, s.tz)), headers: s.opts.headers}
}

func (b *kafkaBatch) append(r *kgo.Record) {
	f := b.bld.Fields()
	appendBytes(f[0].(*array.BinaryBuilder), r.Key)
	appendBytes(f[1].(*array.BinaryBuilder), r.Value)
	f[2].(*array.StringBuilder).Append(r.Topic)
	f[3].(*array.Int32Builder).Append(r.Partition)
	f[4].(*array.Int64Builder).Append(r.Offset)
	f[5].(*array.TimestampBuilder).Append(arrow.Timestamp(r.Timestamp.UnixMilli() * 1000))
	f[6].(*array.Int32Builder).Append(int32(r.Attrs.TimestampType()))
	if b.headers {
		lb := f[7].(*array.ListBuilder)
		if len(r.Headers) == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			for _, h := range r.Headers {
				sb.Append(true)
				sb.FieldBuilder(0).(*array.StringBuilder).Append(h.Key)
				appendBytes(sb.FieldBuilder(1).(*array.BinaryBuilder), h.Value)
			}
		}
	}
	b.rows++
}

func appendBytes(bb *array.BinaryBuilder, v []byte) {
	if v == nil {
		bb.AppendNull()
		return
	}
	bb.Append(v)
}

func (b *kafkaBatch) flush(emit func(arrow.RecordBatch) error) error {
	if b.rows == 0 {
		return nil
	}
	rec := b.bld.NewRecordBatch()
	b.rows = 0
	return emit(rec)
}

func (b *kafkaBatch) release() { b.bld.Release() }
