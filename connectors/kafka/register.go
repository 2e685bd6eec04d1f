package kafka

import (
	"context"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Kafka reads as a stream and a batch (a batch read resolves its start and end positions once
// and reads its share of the topic-partitions on every partition) and writes as a streaming
// sink in every output mode and as a batch.
func init() {
	connectors.Register(connectors.Format{
		Name: "kafka",
		Stream: func(ctx context.Context, env sources.StreamEnv, options map[string]string, userSchema string) (sources.StreamSource, error) {
			return openKafkaStream(ctx, env, options, userSchema)
		},
		StreamSchema: func(options map[string]string, userSchema string) (sqltypes.Schema, error) {
			o, err := parseKafkaOptions(options, userSchema, false)
			if err != nil {
				return nil, err
			}
			return kafkaSchema(o.headers), nil
		},
		BatchSchema: func(_ connectors.BatchEnv, options map[string]string, _ []string, userSchema string) (sqltypes.Schema, error) {
			return KafkaBatchSchema(options, userSchema)
		},
		BatchRead: func(env connectors.BatchEnv, options map[string]string, _ []string, _ sqltypes.Schema) (flow.Source, int, error) {
			options, err := CheckKafkaStoreFiles(env.Files, options)
			if err != nil {
				return nil, 0, err
			}
			b, err := NewKafkaBatch(options, env.TimeZone)
			if err != nil {
				return nil, 0, err
			}
			return b, max(2, env.DefaultPartitions), nil
		},
		Sink:        newKafkaSink,
		OutputModes: []flow.OutputMode{flow.OutputAppend, flow.OutputUpdate, flow.OutputComplete},
		BatchSink:   newKafkaBatchSink,
	})
}
