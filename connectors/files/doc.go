// Package files is the file connector: the formats parquet, json, csv and text, read as
// streams (stream.go: a log of seen files persisted through sources.StreamEnv.Metadata, offsets
// {"logOffset": n}) and as batches (FileBatch, FileBatchSchema for spark.read), and written by
// the streaming file sink (sink.go, exactly once through the _spark_metadata commit log,
// metadata_log.go, Spark's FileStreamSinkLog format) and by batch writes (batch_write.go:
// Spark's part-… files and _SUCCESS, save modes, overwrite.go's crash-safe replacement of the
// target journalled under the state directory and recovered by RecoverOverwrites). Its
// formats are registered in register.go.
//
// A directory written by the file sink is read through its commit log, so only committed files
// are seen. Other files a stream admits into its log only once settled (settle.go: not empty,
// unchanged for 20 ms), so a file listed while its writer is still writing it in place is read
// whole once written; processAllAvailable, Trigger.Once and Trigger.AvailableNow wait for the
// files unsettled when they look, so a file written before them is theirs. Partition discovery (partition_discovery.go) gives files in Hive-style directories
// col=value (Spark's escaping, __HIVE_DEFAULT_PARTITION__ for null) those columns; partitioned
// writes (partition_write.go) write such directories without the partition columns in the
// files.
//
// Parquet batch reads (parquet_scan.go) read only the column chunks of the scan's columns
// (matched by name), keep the Arrow types the file and the schema share (Date32, Decimal128,
// integers, timestamps) as read, spread a file's row groups over the partitions when files are
// fewer than partitions, and skip row groups whose min/max statistics and null counts prove
// that no row passes one of the scan's pushed-down filters (rowgroup_pruning.go, over
// expr.RangeTerms: comparisons of a column with constants, IN, IS [NOT] NULL, AND). The filters
// are advisory: rows read are not filtered here.
//
// VARIANT columns (parquet_variant.go) are written as Spark 4.2 writes them, a group annotated
// with the Parquet VARIANT logical type holding binary metadata and value (top-level columns;
// unshredded); reads take that layout and Spark's shredded one (typed_value columns,
// reassembled by parquet_variant_unshred.go with the bytes Spark reads back).
//
// Every batch a read emits (batch or stream) carries the file it was read from in its batch
// environment (flow.EnvSchema; expr.InputFile: the file's URI, block start 0 and the file's
// listed size, a whole-file block as Spark's for files under spark.sql.files.maxPartitionBytes),
// which input_file_name(), input_file_block_start() and input_file_block_length() read.
//
// File access: every path a read or write names is checked with the file-access policy
// (package fileaccess) before anything is read or written, and the resolved path is the one
// used: the path itself (a glob's directory), each glob match, the commit log directory and
// each file it lists; links inside a listed directory are not followed.
//
// Bounds (lines.go): text, JSON and CSV lines are read through a reader holding at most
// sources.MaxLineBytesConf bytes of a line; a batch holds at most fileBatchRows rows or
// fileBatchBytes bytes of lines, counted in the query's flow.MemoryBudget when the reader's
// allocator is one. A path that is neither a regular file nor a directory is refused.
//
// Imports: connectors (its registration, register.go), the contracts and toolkit of sources and
// sinks, fileaccess, flow, expr, plan and sql (user schemas), sqltypes, sparkerr; never another
// connector.
package files
