// Package sources holds the contracts of Weir's flow sources and the toolkit the connectors
// share; the sources themselves live in connectors/<system> (package connectors).
//
// Batch sources of the engine itself: Range (spark.range) and LocalData (inline rows, or a
// live table's snapshot), which end after their data; the runtime then sends EndOfData. A
// Range partition reuses the id buffers its consumers released (range_buffers.go; builds with
// the weirpoison tag overwrite them so tests catch a reader without a reference).
//
// Stream sources (stream.go) implement StreamSource: an unbounded source read epoch by epoch.
// The query's coordinator asks for Latest, decides each epoch's range (start, end] of JSON
// offsets, and hands it to an EpochSource (epoch.go), the flow.Source that makes every
// partition read exactly that range and then emit Barrier{epoch}. Replayable sources (rate,
// rate-micro-batch, Kafka, the file sources) produce the same rows for the same range, which is
// what exactly-once recovery builds on; socket is not replayable, as in Spark. Optional
// capabilities a source may implement: StartRelative and RateLimited (an epoch's end depends on
// its start; read limits), AvailableNow (Trigger.AvailableNow), LocalLatest and OffsetJoiner
// (continuous reads planned from what open readers fetched), MicroBatchOnly.
//
// Toolkit: option parsing with Spark's exceptions (stream_options.go: OptionLong, OptionInt,
// OptionBool, TimeStringAs, Positive, NoUserSchema, EnvDefaults, LongOffset), offset order
// (CompareOffsets), byte sizes (ParseByteSize), the text line bound (MaxLineBytesConf), the
// paths a read names (ReadPaths), RandomID. sourcetest holds helpers the source tests share.
//
// Ownership: an EpochSource's partitions run in goroutines owned by the flow runner; the source
// itself (connections, reader goroutines) is closed by whoever opened it (the query) after the
// job ended.
//
// Imports: flow, fileaccess, sqltypes, sparkerr and libraries; never a connector (checked by
// connectors/imports_test.go).
package sources
