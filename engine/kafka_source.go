package engine

import (
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/logical"
)

// Batch reads of Kafka (spark.read.format("kafka")): the analyzer takes the fixed Kafka schema
// from sources.KafkaBatchSchema (which refuses the options Spark refuses for batch reads); the
// planner runs one sources.KafkaBatch on every partition, which resolve the start and end
// positions once and read their share of the topic-partitions in parallel.

// kafkaFormat is the Kafka data source's name.
const kafkaFormat = "kafka"

// kafkaBatchSource plans a batch read of Kafka.
func (s *Session) kafkaBatchSource(scan *logical.SourceScan) (flow.Source, int, error) {
	options, err := sources.CheckKafkaStoreFiles(s.files, scan.Options)
	if err != nil {
		return nil, 0, err
	}
	b, err := sources.NewKafkaBatch(options, s.timeZone())
	if err != nil {
		return nil, 0, err
	}
	return b, max(2, flow.DefaultParallelism()), nil
}
