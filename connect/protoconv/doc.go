// Package protoconv translates Spark Connect protobuf messages (package sparkconnectpb, generated
// from pyspark-client 4.2.0) into Weir's unresolved plan language (package plan), and converts
// data types both ways. It is pure: no gRPC, no I/O, no sessions, no catalog. The connect service
// calls it once per request; the analyzer resolves what it returns.
//
// Entry points:
//   - Relation, Command and Expression translate a plan message; Literal translates a literal.
//     Converter does the same with a chosen Arrow allocator (the package functions use
//     memory.DefaultAllocator) for LocalRelation data.
//   - DataTypeFromProto, DataTypeToProto and SchemaToProto convert types. ParseJSONType and
//     JSONType read and write Spark's JSON type strings (StructType.json(), which PySpark sends
//     as the schema of createDataFrame); ParseSchema reads a LocalRelation schema string (JSON,
//     else DDL through parser.ParseTableSchema).
//   - SplitIdentifier splits "a.`b.c`" into name parts as Spark's parseAttributeName does.
//   - ReleaseRecords releases the Arrow records of a translated plan that is dropped unexecuted.
//
// Plan ids: every relation carries the client's plan id (RelationCommon.plan_id) in
// plan.RelCommon.PlanID, and column and star references carry the plan id they are pinned to
// (df["col"]), all shifted by one: client id n is stored as n+1, so that PySpark's first plan
// (id 0) differs from "no plan id" (0). PlanIDFromClient and ClientPlanID convert.
//
// Translation follows Spark Connect's server (SparkConnectPlanner) where the proto leaves
// room: Range's start defaults to 0 and an unset step to 1; Sort is global unless is_global is
// false; an unspecified sort direction is ascending and unspecified null ordering follows the
// direction (ASC NULLS FIRST, DESC NULLS LAST); WithColumnsRenamed uses the ordered renames
// field, else the deprecated map in key order; a decimal literal's type is its own precision and
// scale widened by the ones sent, or the literal's data_type (Spark 4 clients), rounding half up
// to that scale; nested literals take their types from the enclosing data_type when they carry
// none. SQL text (SQL relations, SqlCommand) is passed through unparsed as plan.SQLQuery (inside
// plan.Query for commands); expression strings, DDL schemas and unparsed type strings go to
// package parser. DataFrame subqueries (WithRelations + SubqueryExpression) become
// plan.ScalarSubquery, plan.Exists and plan.InSubquery.
//
// Python functions: a CommonInlineUserDefinedFunction holding a PythonUDF becomes a
// *plan.PythonUDF (pickled command, eval type, declared output type, Python version; keyword
// arguments from NamedArgumentExpression, positional ones after them UNEXPECTED_POSITIONAL_ARGUMENT,
// a repeated keyword DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT); MapPartitions (mapInPandas,
// mapInArrow), GroupMap (applyInPandas, applyInArrow) and CoGroupMap (cogroup().applyInPandas /
// applyInArrow) become plan.MapInPython, plan.GroupMapInPython and plan.CoGroupMapInPython; the
// RegisterFunction command (spark.udf.register) plan.RegisterPythonFunction. A Python UDTF call
// (CommonInlineUserDefinedTableFunction) used as a relation becomes plan.PythonTableFunction and
// the RegisterTableFunction command (spark.udtf.register) plan.RegisterPythonTableFunction (a
// returnType string is parsed as DDL, "a: int, b: string"); LateralJoin whose right side is
// such a call (optionally aliased) is a plan.PythonTableFunction over the left side (a left
// join with a condition, and any other right side, refused); df.asTable() as a UDTF argument
// (SubqueryExpression TABLE_ARG with its partitionBy / withSinglePartition / orderBy options)
// is a plan.TableArgument; PyArrow-native UDTFs
// (@arrow_udtf) are refused. Scala and Java UDFs, the stateful GroupMap forms and sorting expressions are
// refused.
//
// Ownership: a plan.LocalRelation owns its decoded Arrow records (each retained once); whoever
// consumes the plan last releases them. When a translation fails, records decoded so far are
// released before the error is returned. Decoding is bounded: the IPC stream's metadata is
// checked before arrow-go reads it, and its buffers may use at most 16 times the data size, so a
// corrupt stream is an error rather than an enormous allocation.
//
// Errors are *sparkerr.Error: malformed or incomplete messages give an IllegalArgumentException
// "Invalid plan: …" naming the missing or invalid field (Spark's InvalidPlanInput); messages Weir
// does not support give sparkerr.Unsupported naming the relation, expression, command or type
// ("relation type Transpose is not supported"). No input, however malformed, makes these functions
// panic.
//
// DataFrame API relations: CollectMetrics (observe) becomes plan.CollectMetrics; HtmlString
// becomes plan.ShowString with HTML set; Transpose becomes plan.Transpose; StatCorr,
// StatCov, StatApproxQuantile, StatDescribe and StatSummary (both plan.StatSummary; describe's
// statistics are count, mean, stddev, min, max; summary's default Spark's eight), StatCrosstab,
// StatFreqItems (support defaults to 1%) and StatSampleBy become plan.StatFunction (corr's method
// defaults to "pearson"); Unpivot becomes plan.Unpivot (values unset: nil, every non-id column); NAReplace
// (na.replace) becomes plan.NAReplace (old and new literals, pairwise).
// UnresolvedTableValuedFunction (spark.tvf.name(…)) becomes plan.Range for range (integer
// literals), else a table function call plan.Generate{TableFunction: true} over one empty row.
// The UpdateFields expression (Column.withField / dropFields) becomes plan.UpdateFields. The
// analyzer computes them as Spark does. LiteralToProto converts a value back to a literal
// (observed metrics sent to the client).
//
// Not supported: the relations and expressions README.md's "What Weir refuses" lists (kept equal
// to what these functions refuse by refused_test.go); CachedLocalRelation and
// ChunkedCachedLocalRelation are replaced by the connect service first; LateralJoin of anything
// but a Python UDTF call, spark.sql with DataFrame arguments, Scala user-defined functions (Java
// ones: Spark's "Can not load class", as no class is on Weir's classpath), NamedArgumentExpression
// outside a Python function call, table-argument subqueries outside a Python UDTF call (the
// analyzer refuses them), column regexes other than ".*" or a plain name; literals of calendar
// interval and time; data types calendar interval, time, geometry, geography and user-defined types; every command except SqlCommand,
// CreateDataFrameViewCommand, RegisterFunction (of a Python function), RegisterTableFunction
// (of a Python UDTF) and WriteStreamOperationStart (StreamingQueryCommand,
// StreamingQueryManagerCommand and StreamingQueryListenerBusCommand are not plan commands: the
// connect service reads them itself); the real-time streaming trigger.
//
// Streaming: WriteStreamOperationStart becomes *plan.WriteStream with the trigger's interval
// string as sent (trimmed; the engine parses it), and foreach / foreachBatch only flagged.
package protoconv
