package engine

import (
	"runtime"

	"github.com/weirhq/weir/connectors/kafka"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/logical"
)

// Batch reads of Kafka (spark.read.format("kafka")): the analyzer takes the fixed Kafka schema
// from kafka.KafkaBatchSchema (which refuses the options Spark refuses for batch reads); the
// planner runs one kafka.KafkaBatch on every partition, which resolve the start and end
// positions once and read their share of the topic-partitions in parallel.

// kafkaFormat is the Kafka data source's name.
const kafkaFormat = "kafka"

// kafkaBatchSource plans a batch read of Kafka.
func (s *Session) kafkaBatchSource(scan *logical.SourceScan) (flow.Source, int, error) {
	options, err := kafka.CheckKafkaStoreFiles(s.files, scan.Options)
	if err != nil {
		return nil, 0, err
	}
	b, err := kafka.NewKafkaBatch(options, s.timeZone())
	if err != nil {
		return nil, 0, err
	}
	return b, max(2, runtime.NumCPU()), nil
}
