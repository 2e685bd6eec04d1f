// Package connect is Weir's Spark Connect front door: a gRPC server implementing
// spark.connect.SparkConnectService for stock Spark Connect clients (PySpark 3.5 to 4.3, the Go
// client; README's compatibility table).
//
// Contract:
//   - NewServer(opts...) builds a server; Serve(ctx, listener) runs it until ctx ends, then
//     cancels running executions and stops gracefully.
//   - With WithToken, every RPC must carry "authorization: Bearer <t>" for one of the server's
//     tokens (several may be configured, one per client); tokens are compared in constant time.
//   - Sessions are keyed by session_id and owned by the user_id and the token that created
//     them: any other user id or token naming the session gets INSUFFICIENT_PERMISSIONS
//     (SparkSecurityException) from every RPC, and the session is left as it was. Each has a stable
//     server_side_session_id (a UUID), its own engine session, its executions, recent errors
//     (for FetchErrorDetails) and artifacts. Idle sessions expire.
//   - ExecutePlan runs each operation in its own goroutine that produces responses into a
//     bounded replay buffer; the RPC stream (and any ReattachExecute) consumes that buffer, so a
//     cut stream loses nothing. Every response carries session_id, server_side_session_id,
//     operation_id and a unique response_id; a stream ends with ResultComplete.
//   - Query results are sent as ExecutePlanResponse.arrow_batch messages, each a complete Arrow
//     IPC stream holding one record batch of at most spark.sql.execution.arrow.maxRecordsPerBatch
//     rows and about 4 MiB, with contiguous start_offset.
//   - While an operation's batch jobs run, ExecutePlan sends ExecutionProgress every
//     spark.connect.progress.reportInterval (2s; ≤ 0 disables), as Spark 4 does (progress.go):
//     stages are the jobs' flow nodes, tasks their partitions (flow.Tracker); a last report
//     with every stage done precedes ResultComplete when any was sent.
//   - WithMetrics (metrics.go) counts RPCs, errors by Spark error class and message bytes,
//     reports sessions and operations at each scrape, and adds the metrics' query listener to
//     every new session's query manager (package metrics).
//   - WithUI (ui.go) adds the web UI's history listener to every new session's query manager;
//     UIBackend gives package ui a principal's sessions, operations (with their flow.Tracker
//     progress) and active queries, and its cancel and stop: cancel is the Interrupt handler
//     called as the session's owner, and neither ever creates a session.
//   - Limits at the edge: a request message above WithMaxInboundMessageSize (Spark's
//     spark.connect.grpc.maxInboundMessageSize, 128 MiB) fails with gRPC's RESOURCE_EXHAUSTED
//     before it is read; a result whose Arrow batches (or a SQL command's rows) add up to more
//     than the session's spark.driver.maxResultSize (1g; 0 is no limit) fails with Spark's
//     "Total size of serialized results of N tasks (X) is bigger than
//     spark.driver.maxResultSize (Y)" SparkException and its job is stopped (N counts batches).
//   - df.persist()/cache() (AnalyzePlan Persist) persists the relation in the engine session under
//     its persist key (persist_key.go: the relation's bytes with plan ids renumbered and call
//     sites cleared), so a DataFrame built the same way is the same cached data; every later
//     plan of the session marks its parts with a persisted key (protoconv.Converter.Persisted)
//     for the analyzer to read from the cache. Unpersist and storageLevel use the same key.
//   - df.checkpoint()/localCheckpoint() (CheckpointCommand, checkpoint.go) has the engine hold the
//     relation's rows as a new DataFrame id of the session and answers a CachedRemoteRelation of
//     it; RemoveCachedRemoteRelationCommand (the client dropped the DataFrame) releases them.
//   - Every error leaves the server through one mapping (toStatus): a *sparkerr.Error becomes a
//     gRPC status with a google.rpc.ErrorInfo PySpark converts into the matching Python
//     exception; anything else becomes an INTERNAL_ERROR SparkException. Panics in handlers are
//     recovered into internal errors.
//   - File access: NewServer builds one fileaccess.Policy from the state dir, the process's
//     working and home directories and WithDataRoots, and the default engine sessions carry
//     it (engine.WithFileAccess); artifacts are written only inside the session's artifact
//     directory (fileaccess.ResolveWithin).
//
// RPCs served: ExecutePlan, ReattachExecute, ReleaseExecute, AnalyzePlan, Config, Interrupt,
// ReleaseSession, FetchErrorDetails, AddArtifacts, ArtifactStatus, GetStatus; CloneSession
// answers a Spark-shaped UNSUPPORTED_FEATURE error. Cached local relations (createDataFrame
// of large data) are replaced by LocalRelations from the session's artifacts before plan
// conversion, so protoconv stays a pure function of the proto.
//
// Streaming (streaming.go, listenerbus.go), served when the engine session is a
// StreamingEngine (*engine.Session is):
//   - WriteStreamOperationStart starts a query (engine StartStream) and answers
//     WriteStreamOperationStartResult{query_id, name}, with query_started_event_json only while
//     the session has a listener-bus stream.
//   - StreamingQueryCommand finds the session's query by id and run id (unknown id or run id
//     mismatch: IllegalArgumentException with Spark's messages) and answers one
//     StreamingQueryCommandResult echoing query_id (result unset for stop and
//     process_all_available; exception unset for a healthy query). Waits (await_termination,
//     process_all_available, await_any_termination) end when the operation is cancelled; a query
//     failure surfaces as a StreamingQueryException.
//   - StreamingQueryManagerCommand serves spark.streams. A 3.5 client's add_listener carries a
//     pickled listener, run on the server in PySpark's listener worker (listener_worker.go) fed
//     from a queue; remove and list serve those listeners by id. onQueryStarted is posted by
//     WriteStreamOperationStart, and a starting query's other events wait for it.
//   - The streaming workers' protocols follow the PySpark release of --python
//     (pyworker.InterpreterPySpark): 3.5's listener worker answers nothing per event, 4.x's a
//     status; 4.3's foreachBatch worker reads the session to run each batch in (Weir sends the
//     query's own session, where the batch is cached). Workers join their session with a URL
//     whose token travels as x-weir-worker-token metadata, which every release sends in plaintext.
//   - StreamingQueryListenerBusCommand: add keeps its ExecutePlan open, sends
//     listener_bus_listener_added and then one events result per query event, and completes when
//     a later remove arrives; nothing else travels on that stream.
//   - writeStream.foreachBatch (foreach_batch.go): the query's PySpark foreachBatch worker is
//     started with the query; each epoch's output is cached in the engine session under a fresh
//     id (CachedRemoteRelation, dropped after the call or on RemoveCachedRemoteRelationCommand)
//     and the worker reads it over the worker endpoint (worker_endpoint.go: loopback, no TLS,
//     admitting only per-worker tokens that authenticate as their session's owner); Serve runs
//     the endpoint and stops it after every session.
//   - Closing a session (ReleaseSession, expiry, shutdown) stops its queries and Python workers.
//
// Errors of Spark's _LEGACY_ERROR_* classes are shown without the "[CLASS] " prefix, as Spark
// shows them.
//
// gRPC and protobuf types stop here: below connect/ only package plan, engine and sparkerr
// types flow.
package connect
