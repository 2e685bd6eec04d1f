// Package metastore is Weir's persistent catalog: the databases, tables and persistent views of
// the one catalog "spark_catalog", shared by every session of a server and kept across
// restarts (Spark's session catalog over its Hive metastore, without Hive).
//
// On disk it is one JSON document, <state>/catalog/catalog.json, rewritten whole on every
// change: written to a temporary file in the same directory, synced, renamed over the old one
// and the directory synced. A change is therefore atomic (a crash leaves the old catalog or
// the new one, never a mix), including those that touch two entries (RENAME, DROP DATABASE
// CASCADE). A catalog is small (names, schemas, properties; not data), so rewriting it whole
// costs little; the server keeps no Pebble handle for metadata (Pebble stores are per
// streaming query, in checkpoint locations), and opening one for a few kilobytes would hold a
// lock and a WAL for nothing. A Store opened on "" keeps its catalog in memory only.
//
// The store holds what the catalog says, not the data: a table's Location is where its files
// are, which the engine reads and writes through the file-access policy. Names are kept
// lower-cased (Spark's session catalog is case-insensitive). The database "default" always
// exists and cannot be dropped.
//
// Errors are Spark's: SCHEMA_NOT_FOUND, SCHEMA_ALREADY_EXISTS, SCHEMA_NOT_EMPTY,
// TABLE_OR_VIEW_NOT_FOUND, TABLE_OR_VIEW_ALREADY_EXISTS, with names quoted as Spark 4.2 quotes
// them (`spark_catalog`.`db`.`t`). A Store is safe for concurrent use.
package metastore
