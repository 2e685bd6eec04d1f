package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// kafkaTimeoutException is the Kafka client's exception for a request that timed out.
const kafkaTimeoutException = "org.apache.kafka.common.errors.TimeoutException"

// kafkaStream is the Kafka stream source. Its offset is the next offset to read of every
// topic-partition ({"topic":{"0":23}}); Latest lists the end offsets of the subscribed topics
// (discovering the topics matching subscribePattern anew each time); an epoch (start, end]
// reads [start, end) of every partition with a direct-partition consumer kept open between
// epochs (kafkaReader), partitions spread round-robin over the source partitions in (topic,
// partition) order, or split by minPartitions (kafkaPartitionRanges). A partition absent from
// start (new since) is read from its earliest offset. The resolved initial offsets persist in
// StreamEnv.Metadata so a restarted query starts where the first run did.
type kafkaStream struct {
	opts   kafkaOptions
	schema sqltypes.Schema
	mem    memory.Allocator
	tz     string
	parts  int
	meta   sources.MetadataStore

	clock clock.Clock

	mu          sync.Mutex
	closed      bool
	admin       *kgo.Client
	adm         *kadm.Client
	lastTrigger time.Time            // when minOffsetsPerTrigger last let an epoch through (zero: never)
	readers     map[int]*kafkaReader // per source partition: its consumer kept between epochs
	reading     map[int]bool         // source partitions whose reader a read holds now
	fetched     kafkaFetched         // how far the readers fetched (LocalLatest)
	partitions  *kafkaPartitionList  // the partitions of the last full end-offsets listing
	// target is Trigger.AvailableNow's data (PrepareAvailableNow; nil: none): the latest
	// offsets are taken from it instead of the cluster.
	target kafkaOffsets
	// available is the end offsets the last latest-offsets request listed, before any read
	// limit (nil: none yet): what metrics measures the consumer lag against.
	available kafkaOffsets
}

func openKafkaStream(_ context.Context, env sources.StreamEnv, options map[string]string, userSchema string) (sources.StreamSource, error) {
	options, err := CheckKafkaStoreFiles(env.Files, options)
	if err != nil {
		return nil, err
	}
	o, err := parseKafkaOptions(options, userSchema, false)
	if err != nil {
		return nil, err
	}
	s := &kafkaStream{opts: o, schema: kafkaSchema(o.headers), mem: env.Mem, tz: env.TimeZone,
		parts: max(1, env.DefaultPartitions), meta: env.Metadata, clock: env.Clock}
	if s.clock == nil {
		s.clock = clock.New()
	}
	if s.mem == nil {
		s.mem = memory.DefaultAllocator
	}
	if err := s.connect(); err != nil {
		return nil, err
	}
	return s, nil
}

// clientOpts are the options every client of the source shares: the source's timeouts, then
// the kafka.* client configuration (KafkaClientOpts), which takes precedence.
func (o kafkaOptions) clientOpts() ([]kgo.Opt, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(o.bootstrap...), kgo.DialTimeout(min(o.apiTimeout, 10e9)),
		kgo.RetryTimeout(o.apiTimeout)}
	conf, err := kafkaClientOpts(o.kafkaParams)
	if err != nil {
		return nil, err
	}
	return append(opts, conf...), nil
}

func (o kafkaOptions) readCommitted() bool {
	return strings.EqualFold(o.kafkaParams["isolation.level"], "read_committed")
}

func (s *kafkaStream) connect() error {
	opts, err := s.opts.clientOpts()
	if err != nil {
		return err
	}
	// Offsets are listed right after topics are discovered: the metadata cache must not hide
	// a topic created a moment ago.
	cl, err := kgo.NewClient(append(opts, kgo.MetadataMinAge(10*time.Millisecond))...)
	if err != nil {
		return sparkerr.IllegalArgument("Invalid Kafka client configuration: %v", err).Wrap(err)
	}
	s.admin, s.adm = cl, kadm.NewClient(cl)
	return nil
}

// Schema implements StreamSource.
func (s *kafkaStream) Schema() sqltypes.Schema { return s.schema }

// Partitions implements StreamSource.
func (s *kafkaStream) Partitions() int { return s.parts }

// Description implements StreamSource (Spark's KafkaV2[strategy]).
func (s *kafkaStream) Description() string {
	switch s.opts.strategy {
	case kafkaSubscribePattern:
		return "KafkaV2[SubscribePattern[" + strings.TrimSuffix(strings.TrimPrefix(s.opts.pattern.String(), "^(?:"), ")$") + "]]"
	case kafkaAssign:
		var parts []string
		for _, tp := range sortedPartitions(s.assignOffsets()) {
			parts = append(parts, tp.Topic+"-"+itoa32(tp.Partition))
		}
		return "KafkaV2[Assign[" + strings.Join(parts, ", ") + "]]"
	}
	return "KafkaV2[Subscribe[" + strings.Join(s.opts.topics, ",") + "]]"
}

func itoa32(n int32) string { b, _ := json.Marshal(n); return string(b) }

func (s *kafkaStream) assignOffsets() kafkaOffsets {
	out := kafkaOffsets{}
	for t, ps := range s.opts.assign {
		out[t] = map[int32]int64{}
		for _, p := range ps {
			out[t][p] = 0
		}
	}
	return out
}

// kafkaError wraps a Kafka client error as Spark reports it (a Kafka TimeoutException when
// the cluster did not answer in time).
func (s *kafkaStream) kafkaError(call string, err error) *sparkerr.Error {
	if se, ok := sparkerr.As(err); ok {
		return se
	}
	if se := KafkaSecurityError(err, s.opts.bootstrap); se != nil {
		return se
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) {
		return sparkerr.Newf(kafkaTimeoutException, "", "",
			"Timed out waiting for a node assignment. Call: %s (no answer from kafka.bootstrap.servers %s within %s: %v)",
			call, strings.Join(s.opts.bootstrap, ","), s.opts.apiTimeout, err).Wrap(err)
	}
	return sparkerr.Newf("org.apache.kafka.common.KafkaException", "", "", "Kafka %s failed: %v", call, err).Wrap(err)
}

// topics returns the topics the source reads now.
func (s *kafkaStream) topics(ctx context.Context) ([]string, error) {
	switch s.opts.strategy {
	case kafkaSubscribe:
		return s.opts.topics, nil
	case kafkaAssign:
		var ts []string
		for t := range s.opts.assign {
			ts = append(ts, t)
		}
		return ts, nil
	}
	details, err := s.adm.ListTopics(ctx)
	if err != nil {
		return nil, s.kafkaError("listTopics", err)
	}
	var ts []string
	for _, t := range details.Names() {
		if s.opts.pattern.MatchString(t) {
			ts = append(ts, t)
		}
	}
	return ts, nil
}

// listOffsets lists the start ("earliest") or end offsets of the source's partitions,
// retrying transient errors until default.api.timeout.ms.
func (s *kafkaStream) listOffsets(ctx context.Context, earliest bool) (kafkaOffsets, error) {
	return s.listOffsetsOf(ctx, earliest, nil)
}

// listOffsetsOf is listOffsets where the partitions of want must be listed: a listing lacking
// one (its topic unknown for now, as right after a broker's restart) is retried like a
// transient error; at the timeout the partitions are taken as gone.
func (s *kafkaStream) listOffsetsOf(ctx context.Context, earliest bool, want kafkaOffsets) (kafkaOffsets, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.apiTimeout)
	defer cancel()
	var out kafkaOffsets
	err := retryKafka(ctx, func() error {
		var err error
		if out, err = s.listOffsetsOnce(ctx, earliest); err == nil && missingPartitions(out, want) {
			return errKafkaPartitionsMissing
		}
		return err
	})
	switch {
	case errors.Is(err, errKafkaPartitionsMissing):
		return out, nil
	case err != nil:
		return nil, s.retriesExhausted("listOffsets", s.opts.apiTimeout, "default.api.timeout.ms", err)
	}
	return out, nil
}

// listOffsetsOnce is one attempt of listOffsets.
func (s *kafkaStream) listOffsetsOnce(ctx context.Context, earliest bool) (kafkaOffsets, error) {
	topics, err := s.topics(ctx)
	if err != nil {
		return nil, err
	}
	out := kafkaOffsets{}
	if len(topics) == 0 {
		return out, nil
	}
	if !earliest {
		if out, ok := s.quickEndOffsets(ctx, topics); ok {
			return out, nil
		}
	}
	var listed kadm.ListedOffsets
	switch {
	case earliest:
		listed, err = s.adm.ListStartOffsets(ctx, topics...)
	case s.opts.readCommitted():
		listed, err = s.adm.ListCommittedOffsets(ctx, topics...)
	default:
		listed, err = s.adm.ListEndOffsets(ctx, topics...)
	}
	if err != nil {
		return nil, s.kafkaError("listOffsets", err)
	}
	var firstErr error
	listed.Each(func(l kadm.ListedOffset) {
		if l.Err != nil {
			if errors.Is(l.Err, kerr.UnknownTopicOrPartition) && s.opts.strategy != kafkaAssign {
				return // a subscribed topic that does not exist (yet) has no partitions
			}
			if firstErr == nil {
				firstErr = l.Err
			}
			return
		}
		if s.opts.strategy == kafkaAssign && !containsPartition(s.opts.assign[l.Topic], l.Partition) {
			return
		}
		if out[l.Topic] == nil {
			out[l.Topic] = map[int32]int64{}
		}
		out[l.Topic][l.Partition] = l.Offset
	})
	if firstErr != nil {
		return nil, s.kafkaError("listOffsets", firstErr)
	}
	if !earliest {
		s.keepPartitions(topics, out)
	}
	return out, nil
}

func containsPartition(ps []int32, p int32) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// Initial implements StreamSource: the start position (startingOffsets, startingTimestamp or
// startingOffsetsByTimestamp) resolved against the cluster.
func (s *kafkaStream) Initial(ctx context.Context) (sources.Offset, error) {
	if s.meta != nil {
		data, ok, err := s.meta.Get()
		if err != nil {
			return nil, err
		}
		if ok {
			return sources.Offset(data), nil
		}
	}
	init, err := s.resolveLimit(ctx, s.opts.start, true)
	if err != nil {
		return nil, err
	}
	o := encodeKafkaOffsets(init)
	if s.meta != nil {
		if err := s.meta.Put(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Latest implements StreamSource: the end offsets of every partition now.
func (s *kafkaStream) Latest(ctx context.Context) (sources.Offset, error) {
	latest, err := s.listOffsets(ctx, false)
	if err != nil {
		return nil, err
	}
	s.noteAvailable(latest)
	return encodeKafkaOffsets(latest), nil
}

// LatestFrom implements StartRelative: the end offsets, capped at maxOffsetsPerTrigger past
// start; with minOffsetsPerTrigger, start itself (no epoch) while fewer offsets than that are
// available and maxTriggerDelay has not passed since the last epoch (delayEpoch). Partitions that vanished since start keep their start offset (the epoch reads
// nothing of them); with failOnDataLoss that is an error, as in Spark.
func (s *kafkaStream) LatestFrom(ctx context.Context, start sources.Offset) (sources.Offset, error) {
	latest, _, err := s.LatestAndAvailable(ctx, start)
	return latest, err
}

// LatestAndAvailable implements RateLimited: LatestFrom's offsets and the end offsets before
// minOffsetsPerTrigger and maxOffsetsPerTrigger apply (partitions that vanished since start
// at their start offset). After PrepareAvailableNow the end offsets are the target's, and
// minOffsetsPerTrigger does not delay an epoch (availableNow reads all of its target).
func (s *kafkaStream) LatestAndAvailable(ctx context.Context, start sources.Offset) (sources.Offset, sources.Offset, error) {
	from, err := decodeKafkaOffsets(start)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	target := s.target
	s.mu.Unlock()
	var latest kafkaOffsets
	if target != nil {
		latest = cappedKafkaTarget(target, from)
	} else if latest, err = s.endOffsetsFrom(ctx, from); err != nil {
		return nil, nil, err
	}
	s.noteAvailable(latest)
	available := encodeKafkaOffsets(latest)
	if target == nil && s.opts.minOffsets > 0 && s.delayEpoch(from, latest) {
		return start, available, nil
	}
	if s.opts.maxOffsets > 0 {
		var earliest kafkaOffsets
		newStart := func(tp kafkaTopicPartition) int64 {
			if earliest == nil {
				if earliest, err = s.listOffsets(ctx, true); err != nil {
					earliest = kafkaOffsets{}
				}
			}
			return earliest[tp.Topic][tp.Partition]
		}
		latest = rateLimitKafka(s.opts.maxOffsets, from, latest, newStart)
		if err != nil {
			return nil, nil, err
		}
		return encodeKafkaOffsets(latest), available, nil
	}
	return available, available, nil
}

// endOffsetsFrom lists the end offsets of the source's partitions for an epoch starting at
// from: partitions that vanished since from keep their offset there (with failOnDataLoss that
// is an error, as in Spark).
func (s *kafkaStream) endOffsetsFrom(ctx context.Context, from kafkaOffsets) (kafkaOffsets, error) {
	var want kafkaOffsets
	if s.opts.failOnDataLoss && s.opts.strategy != kafkaSubscribePattern {
		want = from // a partition missing from the listing would be data loss: wait for it
	}
	latest, err := s.listOffsetsOf(ctx, false, want)
	if err != nil {
		return nil, err
	}
	for _, tp := range sortedPartitions(from) {
		if _, ok := latest[tp.Topic][tp.Partition]; ok {
			continue
		}
		if s.opts.failOnDataLoss && s.opts.strategy != kafkaSubscribePattern {
			return nil, kafkaDataLoss("Partition %s-%d's offset was changed from %d to <deleted>, some data may have been missed.",
				tp.Topic, tp.Partition, from[tp.Topic][tp.Partition])
		}
		if latest[tp.Topic] == nil {
			latest[tp.Topic] = map[int32]int64{}
		}
		latest[tp.Topic][tp.Partition] = from[tp.Topic][tp.Partition]
	}
	return latest, nil
}

// delayEpoch is Spark's KafkaMicroBatchStream.delayBatch: an epoch waits while fewer than
// minOffsetsPerTrigger offsets are available past from, unless maxTriggerDelay has passed since
// the last epoch was let through (the first call always lets one through). Time is the
// source's clock.
func (s *kafkaStream) delayEpoch(from, latest kafkaOffsets) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if s.lastTrigger.IsZero() || now.Sub(s.lastTrigger) >= s.opts.maxDelay {
		s.lastTrigger = now
		return false
	}
	var available int64
	for _, tp := range sortedPartitions(latest) {
		available += latest[tp.Topic][tp.Partition] - from[tp.Topic][tp.Partition]
	}
	if available < s.opts.minOffsets {
		return true
	}
	s.lastTrigger = now
	return false
}

// kafkaDataLoss is Spark's error when data the query was to read is gone.
func kafkaDataLoss(format string, args ...any) *sparkerr.Error {
	return sparkerr.Newf(sources.IllegalStateException, "", "", format+" Some data may have been lost because they are not "+
		"available in Kafka any more; either the data was aged out by Kafka or the topic may have been deleted before "+
		"all the data in the topic was processed. If you want your streaming query to continue on such cases, set the "+
		"source option \"failOnDataLoss\" to \"false\".", args...)
}

// Read implements StreamSource: partition p's share of the topic-partitions' offsets
// [start, end) (kafkaPartitionRanges).
func (s *kafkaStream) Read(ctx context.Context, p int, start, end sources.Offset, emit func(arrow.RecordBatch) error) error {
	from, err := decodeKafkaOffsets(start)
	if err != nil {
		return err
	}
	to, err := decodeKafkaOffsets(end)
	if err != nil {
		return err
	}
	ranges := kafkaPartitionRanges(p, s.parts, s.opts.minPartitions, from, to)
	if len(ranges) == 0 {
		return nil
	}
	return s.readRanges(ctx, p, ranges, emit)
}

// Close implements StreamSource.
func (s *kafkaStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.admin.Close()
		s.closeReaders()
	}
	return nil
}
