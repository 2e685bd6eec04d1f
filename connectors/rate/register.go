package rate

import "github.com/weirhq/weir/connectors"

// The rate sources are stream sources only.
func init() {
	connectors.Register(connectors.Format{Name: "rate", Stream: openRate, StreamSchema: rateSchemaFunc})
	connectors.Register(connectors.Format{Name: "rate-micro-batch", Stream: openRateMicroBatch, StreamSchema: rateMicroBatchSchemaFunc})
}
