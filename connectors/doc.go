// Package connectors is the format registry: one Format per data source format, declared once
// by the connector that implements it, saying what the format can do (open a stream and give
// its schema, plan a batch read and give its schema, build a streaming sink for some output
// modes, build a batch sink, accept partitionBy, name files, recover at server start). The
// engine (spark.read, df.write, analysis of spark.readStream), the query start
// (writeStream.start: sinks and stream sources) and the server's start reach formats only
// through it: OpenStream, StreamSchema, BatchSchema, BatchRead, NewSink, NewBatchSink,
// Recover. An unknown format is Spark's DATA_SOURCE_NOT_FOUND, built
// in Lookup only; a known format asked for what it cannot do gets Spark's error for that
// (a batch scan of a stream-only source, a batch write of a streaming-only sink, an output
// mode or partitionBy the sink does not accept).
//
// The connectors live in the folders below, one per external system: files (parquet, json,
// csv, text), kafka, rate (rate, rate-micro-batch), socket, memory (memory, console, noop).
// Each registers its formats in its register.go; connectors/all imports them all and is what
// cmd/weir and tests over real formats import. sinktest holds the sink test harness.
//
// Imports: this package imports the contracts (sources, sinks) and flow, fileaccess,
// sqltypes, sparkerr, never a connector. A connector imports this package, the contracts and
// toolkit of sources and sinks, and shared non-connector packages; never another connector,
// and sources and sinks import no connector (imports_test.go checks all three).
package connectors
