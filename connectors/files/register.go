package files

import (
	"context"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The file formats: each reads as a stream and a batch and writes as a streaming sink (append
// only, as Spark's file sink) and a batch, with partitionBy.
func init() {
	for _, name := range fileFormats {
		format := name
		connectors.Register(connectors.Format{
			Name: format,
			Stream: func(ctx context.Context, env sources.StreamEnv, options map[string]string, userSchema string) (sources.StreamSource, error) {
				return openFileStream(ctx, format, env, options, userSchema)
			},
			StreamSchema: func(options map[string]string, userSchema string) (sqltypes.Schema, error) {
				s, _, err := streamFileSchema(format, options, userSchema)
				return s, err
			},
			BatchSchema: func(env connectors.BatchEnv, options map[string]string, paths []string, userSchema string) (sqltypes.Schema, error) {
				return FileBatchSchema(env.Files, format, options, paths, userSchema)
			},
			BatchRead: func(env connectors.BatchEnv, options map[string]string, paths []string, schema sqltypes.Schema) (flow.Source, int, error) {
				return FileBatch{Format: format, Options: options, Paths: sources.ReadPaths(options, paths), Schema: schema,
					TimeZone: env.TimeZone, Files: env.Files, MaxLineBytes: env.MaxLineBytes, Filters: env.Filters}, env.DefaultPartitions, nil
			},
			Sink: func(env sinks.Env, options map[string]string) (sinks.Sink, error) {
				return newFileSink(format, env, options)
			},
			OutputModes: []flow.OutputMode{flow.OutputAppend},
			BatchSink: func(ctx context.Context, env sinks.Env, mode sinks.SaveMode, options map[string]string) (sinks.BatchSink, error) {
				return newFileBatchSink(ctx, format, env, mode, options)
			},
			Partitions: true,
			Files:      true,
			Recover:    RecoverOverwrites,
		})
	}
}
