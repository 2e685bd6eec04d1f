package plan

// PythonFunction is a Python function as a Spark Connect client sends it (PythonUDF without its
// output type): its pickled payload, the client's Python version and Spark's PythonEvalType.
// foreachBatch functions, foreach writers and UDFs carry one.
type PythonFunction struct {
	// Command is the client's cloudpickled payload, passed to a PySpark worker unchanged.
	Command []byte
	// PythonVer is the client's Python "major.minor"; a worker of another version refuses it.
	PythonVer string
	// EvalType is pyspark.util.PythonEvalType.
	EvalType int32
	// Includes are the client's additional Python includes (artifact names).
	Includes []string
}

// CachedRemoteRelation is a DataFrame the server holds for a client under an id (Spark Connect's
// CachedRemoteRelation): foreachBatch's epoch output, read by the function's worker.
type CachedRemoteRelation struct {
	RelCommon
	ID string
}
