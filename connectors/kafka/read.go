package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// kafkaRange is one topic-partition's offsets [from, until) to read; from -2 is the
// partition's earliest offset.
type kafkaRange struct {
	tp          kafkaTopicPartition
	from, until int64
}

// kafkaReader is a source partition's direct-partition consumer (no consumer group), kept
// between epochs: a fetch by an open consumer costs a fraction of a new consumer's first fetch,
// and it keeps fetching in the background, so the next epoch's records are often already here.
// next is, per assigned topic-partition, the offset the next epoch must start at for the reader
// to be reused; pending holds the records fetched at or past it (the next epochs' records).
type kafkaReader struct {
	cl      *kgo.Client
	next    map[kafkaTopicPartition]int64
	pending []*kgo.Record
}

// fits reports whether the reader is assigned exactly the ranges' topic-partitions and stands
// at every range's start (a topic-partition the partition no longer reads would pile up its
// records in pending).
func (rd *kafkaReader) fits(ranges []kafkaRange) bool {
	if len(rd.next) != len(ranges) {
		return false
	}
	for _, r := range ranges {
		if n, ok := rd.next[r.tp]; !ok || n != r.from {
			return false
		}
	}
	return true
}

func (rd *kafkaReader) close() {
	rd.cl.Close()
	rd.pending = nil
}

// reader returns source partition p's kept reader if it stands at the ranges' starts, or else
// (closing the kept one) a new consumer assigned to the ranges' topic-partitions at their starts.
// The partition is marked reading until keepReader or dropReader.
func (s *kafkaStream) reader(p int, ranges []kafkaRange) (*kafkaReader, error) {
	s.mu.Lock()
	rd := s.readers[p]
	delete(s.readers, p)
	if s.reading == nil {
		s.reading = map[int]bool{}
	}
	s.reading[p] = true
	s.mu.Unlock()
	if rd != nil {
		if rd.fits(ranges) {
			return rd, nil
		}
		rd.close()
	}
	rd, err := s.newReader(ranges)
	if err != nil {
		s.dropReader(p, nil)
	}
	return rd, err
}

// newReader opens a consumer assigned to the ranges' topic-partitions at their starts; its
// fetched records are reported to s.fetched.
func (s *kafkaStream) newReader(ranges []kafkaRange) (*kafkaReader, error) {
	opts, err := s.opts.clientOpts()
	if err != nil {
		return nil, err
	}
	assign := map[string]map[int32]kgo.Offset{}
	rd := &kafkaReader{next: map[kafkaTopicPartition]int64{}}
	for _, r := range ranges {
		if assign[r.tp.Topic] == nil {
			assign[r.tp.Topic] = map[int32]kgo.Offset{}
		}
		assign[r.tp.Topic][r.tp.Partition] = kgo.NewOffset().At(r.from)
		rd.next[r.tp] = r.from
	}
	opts = append(opts, kgo.ConsumePartitions(assign), kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(500*time.Millisecond),
		kgo.WithHooks(&s.fetched))
	if s.opts.readCommitted() {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if rd.cl, err = kgo.NewClient(opts...); err != nil {
		return nil, sparkerr.IllegalArgument("Invalid Kafka client configuration: %v", err).Wrap(err)
	}
	return rd, nil
}

// keepReader keeps source partition p's reader for the next epoch (closing it if the source
// is closed).
func (s *kafkaStream) keepReader(p int, rd *kafkaReader) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.reading, p)
	if s.closed {
		rd.close()
		return
	}
	if s.readers == nil {
		s.readers = map[int]*kafkaReader{}
	}
	s.readers[p] = rd
}

// dropReader closes source partition p's reader taken by reader (if any) and ends its reading.
func (s *kafkaStream) dropReader(p int, rd *kafkaReader) {
	if rd != nil {
		rd.close()
	}
	s.mu.Lock()
	delete(s.reading, p)
	s.mu.Unlock()
}

// closeReaders closes the kept readers; the caller holds s.mu.
func (s *kafkaStream) closeReaders() {
	for p, rd := range s.readers {
		rd.close()
		delete(s.readers, p)
	}
}

// readRanges consumes source partition p's ranges, keeping control records so that every
// offset up to until-1 is seen even in transactional topics, and emits the data records as
// batches of the source's schema. A range with from = until reads nothing but keeps its
// topic-partition assigned to the partition's reader. The reader (kafkaReader) is reused when
// this epoch starts where the last one ended and closed otherwise or on failure, so a restart
// or a replayed epoch reads exactly its offsets. A fetch making no progress for
// kafkaConsumer.pollTimeoutMs fails the read. A topic-partition whose range is complete (or
// empty) is paused for the rest of the read, so that its new records do not pile up while the
// epoch waits for a slower one; a kept reader resumes them all (its background fetch then holds
// at most one buffered fetch per broker until the next epoch polls it).
func (s *kafkaStream) readRanges(ctx context.Context, p int, ranges []kafkaRange, emit func(arrow.RecordBatch) error) error {
	ranges, err := s.resolveEarliest(ctx, ranges)
	if err != nil {
		return err
	}
	until := map[kafkaTopicPartition]int64{}
	remaining := 0
	for _, r := range ranges {
		if r.from < r.until {
			until[r.tp] = r.until
			remaining++
		}
	}
	if remaining == 0 {
		return nil
	}
	rd, err := s.reader(p, ranges)
	if err != nil {
		return err
	}
	kept := false
	defer func() {
		if kept {
			s.keepReader(p, rd)
		} else {
			s.dropReader(p, rd)
		}
	}()

	b := newKafkaBatch(s)
	defer b.release()
	var later []*kgo.Record // records past this epoch, kept for the next
	paused := rd.pauser()
	for tp := range rd.next {
		if _, reading := until[tp]; !reading {
			paused.pause(tp)
		}
	}
	// need is the most records the ranges still hold: what the builder reserves at most.
	need := func() int {
		n := int64(0)
		for tp, end := range until {
			n += max(0, end-rd.next[tp])
		}
		return int(min(n, int64(sources.RangeBatchRows)))
	}
	var recErr error
	progressed := false
	// reach moves tp's position to offset n (< its end), checking a gap before it for data loss.
	reach := func(tp kafkaTopicPartition, n int64) bool {
		if at := rd.next[tp]; n > at {
			lost, err := s.lostBefore(ctx, tp, at)
			if err != nil {
				recErr = err
				return false
			}
			if lost && s.opts.failOnDataLoss {
				recErr = kafkaDataLoss("Cannot fetch offset %d of %s-%d (the earliest available is later).", at, tp.Topic, tp.Partition)
				return false
			}
		}
		return true
	}
	handle := func(r *kgo.Record) {
		if recErr != nil {
			return
		}
		tp := kafkaTopicPartition{r.Topic, r.Partition}
		n, assigned := rd.next[tp]
		if !assigned || r.Offset < n {
			return
		}
		end, inEpoch := until[tp]
		if !inEpoch || n >= end {
			later = append(later, r)
			return
		}
		if r.Offset >= end {
			// Nothing of [n, end) is left (compacted or aborted away): the range is done.
			if reach(tp, min(r.Offset, end)) {
				progressed = true
				rd.next[tp] = end
				remaining--
				paused.pause(tp)
				later = append(later, r)
			}
			return
		}
		if !reach(tp, r.Offset) {
			return
		}
		progressed = true
		rd.next[tp] = r.Offset + 1
		if !r.Attrs.IsControl() {
			b.append(r)
		}
		if r.Offset+1 >= end {
			remaining--
			paused.pause(tp)
		}
		if b.rows >= sources.RangeBatchRows {
			recErr = b.flush(emit)
		}
	}
	pending := rd.pending
	rd.pending = nil
	b.bld.Reserve(min(len(pending), need()))
	for _, r := range pending {
		handle(r)
	}
	if recErr != nil {
		return recErr
	}
	lastProgress := time.Now()
	var lastErr error // the last transient fetch error since the last progress
	for remaining > 0 {
		pollCtx, cancel := context.WithTimeout(ctx, s.opts.pollTimeout)
		fetches := rd.cl.PollFetches(pollCtx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		progressed = false
		var fetchErr error
		fetches.EachError(func(t string, p int32, err error) {
			switch {
			case errors.Is(err, context.DeadlineExceeded):
			case retriableKafka(err):
				lastErr = fmt.Errorf("fetch %s-%d: %w", t, p, err) // retried until pollTimeout
			case fetchErr == nil:
				fetchErr = s.kafkaError("fetch "+t+"-"+itoa32(p), err)
			}
		})
		if fetchErr != nil {
			return fetchErr
		}
		b.bld.Reserve(min(fetches.NumRecords(), need()))
		fetches.EachRecord(handle)
		if recErr != nil {
			return recErr
		}
		if progressed {
			lastProgress, lastErr = time.Now(), nil
		} else if time.Since(lastProgress) >= s.opts.pollTimeout {
			msg := ""
			if lastErr != nil {
				msg = fmt.Sprintf("; last error: %v", lastErr)
			}
			return sparkerr.Newf(kafkaTimeoutException, "", "",
				"Cannot fetch records from Kafka (kafka.bootstrap.servers %s) within kafkaConsumer.pollTimeoutMs=%d ms%s",
				joinServers(s.opts.bootstrap), s.opts.pollTimeout.Milliseconds(), msg).Wrap(lastErr)
		}
	}
	if err := b.flush(emit); err != nil {
		return err
	}
	rd.pending = later
	paused.resumeAll()
	kept = true
	return nil
}

// fetchPauser pauses a reader's fetching of topic-partitions and resumes them.
type fetchPauser struct {
	cl     *kgo.Client
	paused map[string][]int32
}

func (rd *kafkaReader) pauser() *fetchPauser {
	return &fetchPauser{cl: rd.cl, paused: map[string][]int32{}}
}

// pause stops fetching tp: records of it already fetched are still polled, the following ones
// wait in Kafka (the client's position stays after the last polled record).
func (f *fetchPauser) pause(tp kafkaTopicPartition) {
	f.cl.PauseFetchPartitions(map[string][]int32{tp.Topic: {tp.Partition}})
	f.paused[tp.Topic] = append(f.paused[tp.Topic], tp.Partition)
}

// resumeAll fetches the paused topic-partitions again.
func (f *fetchPauser) resumeAll() {
	if len(f.paused) > 0 {
		f.cl.ResumeFetchPartitions(f.paused)
		f.paused = map[string][]int32{}
	}
}

// resolveEarliest replaces the ranges' earliest (-2) starts by the partitions' earliest
// offsets and drops the ranges starting past their end.
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
		if r.from <= r.until {
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
	var listed kadm.ListedOffsets
	err := retryKafka(ctx, func() error {
		var err error
		listed, err = s.adm.ListStartOffsets(ctx, tp.Topic)
		return err
	})
	if err != nil {
		return false, s.retriesExhausted("listOffsets", s.opts.apiTimeout, "default.api.timeout.ms", s.kafkaError("listOffsets", err))
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
