// Package iceberg is the Apache Iceberg connector: format "iceberg", through
// github.com/apache/iceberg-go (local files only: no cloud file IO is imported).
//
// A table is a directory with a Hadoop-style catalog of its own (catalog.go): its metadata
// versions are <location>/metadata/v<N>.metadata.json, a commit links the next version into
// place and loses to a concurrent one with table.ErrCommitFailed. Weir's metastore maps table
// names to these locations; Spark's HadoopTables and PyIceberg's StaticTable read them as they
// are. Every location is checked with the file-access policy, and so is every data file a
// read opens.
//
// A REST catalog (rest.go: iceberg-go's catalog/rest) holds the tables of a catalog the engine
// configures as Iceberg's Spark runtime does (spark.sql.catalog.NAME = SparkCatalog, type
// rest, uri, warehouse, prefix, token, credential, scope, oauth2-server-uri, header.*): the
// catalog keeps names and metadata and takes the commits; the data and manifest files go
// where its table location says, which must be a local path. The engine binds each REST
// table's location (resolved by the file-access policy) to the catalog and identifier when it
// resolves the table's name; from then on Load, Exists, Replace and every commit below at
// that location go through the catalog (a table loaded from it commits through it), so reads,
// writes, the streaming sink's exactly-once check, the stream source and copy-on-write
// rewrites work on REST tables unchanged. DROP TABLE leaves the files, as Iceberg's catalogs
// do without PURGE. Errors are the exceptions of Iceberg's REST client (NoSuchTableException,
// AlreadyExistsException, CommitFailedException, RESTException, ...).
//
// Contract:
//   - Batch reads (read.go) read one snapshot, fixed when the read is planned: the current one
//     or the one the "snapshot-id" / "as-of-timestamp" (ms) / VersionAsOfOption (a snapshot
//     id or a branch or tag name) options name (the engine's VERSION AS OF / TIMESTAMP AS
//     OF), with the errors of Iceberg's Spark runtime for a snapshot not there. Columns are projected by the read's schema; the scan's advisory
//     filters (BatchEnv.Filters) that are range terms over columns are given to Iceberg, which
//     skips data files by partition values and column statistics; the plan still filters rows.
//   - Writes (write.go, sink.go) commit one snapshot per epoch (a batch write is epoch 0):
//     every sink partition writes its rows of the epoch as Parquet data files when the epoch
//     ends (rows are held in memory until then), the last partition commits them. Batch modes:
//     append; overwrite replaces every data file, or with the partitionOverwriteMode option
//     "dynamic" only those of the partitions written; errorifexists and ignore by the table's
//     existence. A write to a location without a table creates it from the rows' schema with
//     identity partitions on partitionBy. TINYINT and SMALLINT are stored as INT; intervals
//     are refused.
//   - The streaming sink (append mode) is exactly once: each epoch's snapshot records the query
//     id and epoch (QueryIDProperty, EpochProperty) in its summary; an epoch at or below the
//     newest one the table holds for the query is a replay and writes nothing. A commit lost
//     to another writer is made again on the newest metadata.
//   - Replace (REPLACE TABLE [AS SELECT]: CREATE OR REPLACE TABLE, writeTo().replace/createOrReplace) makes a new schema
//     and spec current in the same metadata and removes the main branch; the snapshots before
//     stay readable with their own schema.
//   - A batch overwrite with BaseSnapshotOption is a copy-on-write rewrite (the engine's
//     DELETE, UPDATE and MERGE INTO): its rows replace every data file of that snapshot, refused with
//     ValidationException once the table's current snapshot is another.
//   - The stream source reads the rows the append snapshots add, oldest first; an offset is a
//     snapshot's sequence number (ordered, unlike snapshot ids). Replace snapshots add
//     nothing; an overwrite or delete snapshot fails the stream (IllegalStateException, as
//     Iceberg's SparkMicroBatchStream) unless streaming-skip-overwrite-snapshots /
//     streaming-skip-delete-snapshots is "true".
package iceberg
