// Package engine is where a plan becomes rows: the server-side Spark session (configuration,
// temp views) and the one pipeline every query takes —
//
//	plan.Relation → analyzer.Resolve → logical.Node → optimizer.Optimize → planner.Build → flow.Graph → JobRunner → rows
//
// (see Session.Execute). Front doors (connect/) hand it package plan's types and get back a
// Result of Arrow record batches holding user columns only; they never see flow-event columns.
// Once drained, Result.ObservedMetrics has the metrics of the query's df.observe nodes.
//
// Configuration: Conf is spark.conf over one typed registry (conf_keys.go): each key Weir
// reads or reports once, with its kind, default, Spark's validation and a doc line. Set checks
// a registered key's value as Spark does (INVALID_CONF_VALUE.TIME_ZONE for a zone
// expr.LoadZone cannot resolve; IllegalArgumentException or NumberFormatException with Spark's
// ConfigBuilder messages for booleans, numbers and their ranges, sizes, durations and enums;
// CANNOT_MODIFY_CONFIG for static keys) and keeps the previous value when it refuses one;
// unknown keys take any value. Defaults derive from the registry; All (spark.conf.getAll, SET)
// lists every registered key, Undefined for one without a default. docs/configuration.md is
// rendered from the registry (go generate ./engine; TestConfigurationDoc fails when stale).
//
// Streaming: data source reads resolve through the stream source registry (spark.readStream;
// batch reads exist for the file formats parquet, json, csv and text, read when the query runs
// and through a file sink's commit log, and are refused for other sources). Batch actions on a plan that reads a stream fail
// with Spark's AnalysisException (_LEGACY_ERROR_TEMP_3102). Each session owns a query.Manager
// (Streams) whose memory-sink tables become its temp views; StartStream turns a
// plan.WriteStream into a query.Spec (parsing the output mode and trigger interval strings) and
// starts it there, where every check of a streaming write lives (query's validate); Close stops
// the session's queries.
//
// Persisted DataFrames (persisted_plans.go): Persist(key, rel, level) keeps rel's optimized plan
// under the key of its client plan (df.cache()/persist()); plans that contain that key read it
// through an InMemoryTableScan (explain shows InMemoryTableScan over InMemoryRelation, as
// Spark). Its rows are produced by the first query that reads it and held in the server's
// PersistStore (persist_store.go) until Unpersist or the session's end, under one memory
// budget for the server (PersistMemoryBudgetConf): the least recently read rows leave memory
// first, to an Arrow IPC spill file in the state directory's scratch area for levels with disk,
// away for memory-only levels (their next reader recomputes them). A query pins the rows it
// reads before it is planned. Checkpoints (checkpoint_relations.go) are held the same way as
// DataFrame ids of the session (CachedRemoteRelation) and are never recomputed once held.
//
// Batch writes: df.write (plan.Write, RunCommand) plans its input as a batch query and puts the
// format's sinks.BatchSink on top; the sink's operators write the rows as one epoch when their
// input ends and Finish completes the write (write.go). Save modes, _SUCCESS and Spark's errors
// are the sink's.
//
// Tables (tables.go, table_ddl.go, table_write.go): the server's metastore.Store (WithMetastore;
// <state>/catalog, shared by every session; default one in memory) holds databases, file tables
// (parquet, json, csv, text) and persistent views; the session keeps its current database.
// Names resolve as in Spark's session catalog: a temp view first, then the current database's
// table or view, db.t, spark_catalog.db.t (a view's text in the database it was created in);
// global_temp.v is a global temporary view (global_views.go: the server's, WithGlobalTempViews,
// shared by its sessions, never found by an unqualified name). A
// table reads as a data source read of its location with its stored schema (streaming for
// readStream.table). SQL DDL and INSERT, saveAsTable/insertInto, writeTo().create() and
// writeStream.toTable (which creates a missing table, then is the file sink of its location)
// write through the table format's sinks with the table's partition columns; rows are cast to
// the table's types (by position for INSERT and insertInto, by name for saveAsTable's append).
// Managed tables live in the warehouse (WithWarehouse; the policy's, <state>/warehouse under a
// server); DROP TABLE, DROP DATABASE CASCADE and saveAsTable's overwrite delete a managed
// table's directory only when it lies strictly inside the warehouse and the policy allows
// replacing it; an external table's files are never deleted. Errors are Spark 4.2's
// (TABLE_OR_VIEW_NOT_FOUND, TABLE_OR_VIEW_ALREADY_EXISTS, SCHEMA_NOT_FOUND, SCHEMA_NOT_EMPTY,
// and the v1-table refusals of REPLACE and of DataFrameWriterV2 appends). Iceberg tables also
// take DELETE, UPDATE and MERGE INTO (SQL and df.mergeInto) as copy-on-write overwrite
// snapshots (table_dml.go, table_merge.go), and CREATE OR REPLACE TABLE / writeTo().replace as
// Iceberg's REPLACE TABLE, keeping their history (table_iceberg.go).
// An Iceberg REST catalog configured under spark.sql.catalog.NAME (server --conf, WithConf, or
// the session's conf; table_rest.go) is a second store of the same shape: NAME.db names its
// namespace and NAME.db.t its table, resolved by storeOfName/storeOfNamespace, and the DDL,
// writers and DML above run on it through the tableStore interface.
//
// File access: the session's fileaccess.Policy (WithFileAccess; nil: the always-on rules)
// travels with every path a client names: batch reads and schema inference (sourceSchemas,
// the file connector's batch read), streaming file source paths (checked at analysis and again when the
// source opens), sinks.Env.Files for file sinks, query.Env.Files for checkpoints, and an
// overwrite's target (CheckReplace) before anything is written.
//
// Memory: every query (batch, write, and each streaming query) runs under its own
// flow.MemoryBudget of QueryMemoryBudget bytes (spark.weir.query.memoryBudgetBytes, default a
// quarter of the memory the process may use; query_memory.go): the budget is the allocator of
// its evaluation context and tasks, and a query that outgrows it fails with Spark's
// UNABLE_TO_ACQUIRE_MEMORY while the session and server go on.
//
// Python (python.go): WithPython names the interpreter of the session's Python workers and
// WithPythonRunner sets what starts them (operators.PythonRunner); batch and streaming plans
// get it with Spark's runner conf (session time zone, spark.sql.execution.arrow.
// maxRecordsPerBatch, convertToArrowArraySafely, groupedMap.assignColumnsByName) through
// planner.Options.Python. spark.udf.register of a Python function (plan.RegisterPythonFunction)
// keeps it in the session by lower-cased name for the analyzer's SQL calls; spark.udtf.register
// of a Python UDTF (plan.RegisterPythonTableFunction) likewise for calls in FROM.
// spark.weir.python.maxWorkers bounds the session's running workers: its value when the
// session's pool starts (the first plan calling Python) is the pool's size for the session's
// life, and the planner's PythonSpec.MaxWorkers. Each plan (each pythonSpec call) runs on its
// own pyworker.Reservation, sized by the planner: plans run side by side within the bound, and
// a plan needing more workers than the bound at once (say 30 Python operators × 2 partitions in
// one select) runs alone with as many, so the session runs at most max(maxWorkers, its largest
// plan's need) workers at any time, and keeps at most maxWorkers idle ones.
package engine
