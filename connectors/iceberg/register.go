package iceberg

import (
	"context"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// FormatName is the format's name (USING iceberg, format("iceberg")).
const FormatName = "iceberg"

// The Iceberg format: a batch and stream source, an append streaming sink and a batch sink,
// with identity partitions (partitionBy).
func init() {
	connectors.Register(connectors.Format{
		Name:   FormatName,
		Stream: openStream,
		StreamSchema: func(options map[string]string, userSchema string) (sqltypes.Schema, error) {
			s, _, err := streamSchema(sources.StreamEnv{}, options, userSchema)
			return s, err
		},
		BatchSchema: func(env connectors.BatchEnv, options map[string]string, paths []string, userSchema string) (sqltypes.Schema, error) {
			return batchSchema(env, options, paths)
		},
		BatchRead:   batchRead,
		Sink:        newSink,
		OutputModes: []flow.OutputMode{flow.OutputAppend},
		BatchSink: func(ctx context.Context, env sinks.Env, mode sinks.SaveMode, options map[string]string) (sinks.BatchSink, error) {
			return newBatchSink(ctx, env, mode, options)
		},
		Partitions: true,
	})
}
