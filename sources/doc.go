// Package sources holds Weir's flow sources: leaves of a flow graph that produce flow-event
// batches for one partition each (flow.Source).
//
// Batch sources: Range (spark.range) and LocalData (inline rows, or a live table's snapshot),
// which end after their data; the runtime then sends EndOfData.
//
// Stream sources (stream.go) implement StreamSource: an unbounded source read epoch by epoch.
// The query's coordinator asks for Latest, decides each epoch's range (start, end] of JSON
// offsets, and hands it to an EpochSource (epoch.go), the flow.Source that makes every
// partition read exactly that range and then emit Barrier{epoch}. Replayable sources (rate,
// rate-micro-batch) produce the same rows for the same range, which is what exactly-once
// recovery builds on; socket is not replayable, as in Spark. Formats register themselves with
// RegisterStream: "rate", "rate-micro-batch", "socket", and the file formats "parquet",
// "json", "csv" and "text" (file_stream.go).
//
// Files: a file stream keeps a log of the files it has seen (persisted through
// StreamEnv.Metadata); offsets are {"logOffset": n}, the log's batch index. FileBatch reads the
// files of a path for spark.read. A directory written by the file sink is read through its commit
// log (_spark_metadata, Spark's FileStreamSinkLog format, file_log.go), so only committed files
// are seen. Partition discovery (file_partition.go): files in Hive-style directories
// col=value (Spark's escaping, __HIVE_DEFAULT_PARTITION__ for null) get those columns from the
// directory names; without a user schema their types are inferred (int, bigint, double, date,
// else string) and appended to the data columns; a user schema decides the types of the
// partition columns it names.
//
// File access: every path a read names is checked with the file-access policy (FileBatch.Files,
// FileBatchSchema's policy, StreamEnv.Files; package fileaccess) before anything is read: the
// path itself (a glob's directory), each glob match, the commit log directory and each file it
// lists; links inside a listed directory are not followed. Kafka's PEM store locations go
// through CheckKafkaStoreFiles.
//
// Bounds (file_lines.go): text, JSON and CSV lines are read through a reader holding at most
// MaxLineBytesConf bytes of a line (default 64 MiB; a longer line fails the read with
// FAILED_READ_FILE naming the file and the conf); a batch holds at most fileBatchRows rows or
// fileBatchBytes bytes of lines, counted in the query's flow.MemoryBudget when the reader's
// allocator is one. A path that is neither a regular file nor a directory (a device such as
// /dev/zero, a FIFO, a socket) is refused when listed or opened, since Spark would read it as
// an empty file of length 0 and reading it as a stream would never end.
//
// Ownership: an EpochSource's partitions run in goroutines owned by the flow runner; the source
// itself (connections, reader goroutines) is closed by whoever opened it (the query) after the
// job ended.
package sources
