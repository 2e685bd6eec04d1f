package kafka

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// KafkaBatch is a batch read of Kafka (spark.read.format("kafka")): the offsets from
// startingOffsets (default earliest) to endingOffsets (default latest), resolved once when the
// first partition runs and shared by all, topic-partitions spread over the partitions
// round-robin as in the stream source. Build it with NewKafkaBatch; the planner runs one value
// for every partition.
type KafkaBatch struct {
	opts kafkaOptions
	tz   string

	once       sync.Once
	start, end sources.Offset
	err        error
}

// KafkaBatchSchema validates a batch read's options (Spark's messages) and returns its schema;
// a user schema is refused (the Kafka schema is fixed).
func KafkaBatchSchema(options map[string]string, userSchema string) (sqltypes.Schema, error) {
	o, err := parseKafkaOptions(sources.NormalizeOptions(options), userSchema, true)
	if err != nil {
		return nil, err
	}
	return kafkaSchema(o.headers), nil
}

// NewKafkaBatch validates a batch read's options (with Spark's messages) and its kafka.*
// client configuration.
func NewKafkaBatch(options map[string]string, timeZone string) (*KafkaBatch, error) {
	o, err := parseKafkaOptions(sources.NormalizeOptions(options), "", true)
	if err != nil {
		return nil, err
	}
	if _, err := o.clientOpts(); err != nil {
		return nil, err
	}
	return &KafkaBatch{opts: o, tz: timeZone}, nil
}

// Schema is the rows' schema.
func (b *KafkaBatch) Schema() sqltypes.Schema { return kafkaSchema(b.opts.headers) }

// resolve fixes the batch's offset range.
func (b *KafkaBatch) resolve(ctx context.Context, s *kafkaStream) {
	b.once.Do(func() {
		var from, until kafkaOffsets
		if from, until, b.err = s.resolveRange(ctx, b.opts.start, b.opts.end); b.err == nil {
			b.start, b.end = encodeKafkaOffsets(from), encodeKafkaOffsets(until)
		}
	})
}

// Run implements flow.Source.
func (b *KafkaBatch) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	s := &kafkaStream{opts: b.opts, schema: kafkaSchema(b.opts.headers), mem: env.Mem, tz: b.tz,
		parts: max(1, env.Partitions)}
	if err := s.connect(); err != nil {
		return err
	}
	defer s.Close()
	b.resolve(ctx, s)
	if b.err != nil {
		return b.err
	}
	return s.Read(ctx, env.Partition, b.start, b.end, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		return out.Emit(ctx, flow.NewDataBatch(env.Mem, env.OutSchema, rec.Columns(), nil))
	})
}
