// Package pyworker starts and owns PySpark's own Python worker processes, the way Spark's
// PythonWorkerFactory and StreamingPythonRunner do, and speaks their framing.
//
// Start runs `Python -m Module` in its own process group with PYTHON_WORKER_FACTORY_PORT and
// PYTHON_WORKER_FACTORY_SECRET set, accepts the worker's connect-back on a loopback listener
// (pyspark.util.local_connect_and_auth: the worker sends its secret length-prefixed, the server
// answers the UTF string "ok"), then reads the pid the worker sends
// (pyspark.worker_util.get_sock_file_to_executor). The Worker gives buffered big-endian framing
// as pyspark/serializers.py writes it (ints, longs, length-prefixed bytes and UTF strings,
// SpecialLengths) and turns a worker's PYTHON_EXCEPTION_THROWN (-2) + traceback into Spark's
// PythonException (error class PYTHON_EXCEPTION).
//
// Ownership: the Worker owns its process, its socket and one goroutine that reaps the process.
// Every blocking call takes a context; when it is done the socket is closed (the worker cannot be
// used any more, its framing may be cut mid-message). Close closes the socket (a PySpark worker
// exits when its socket closes), kills the whole process group if the process has not exited
// within a short grace, and waits for it: no zombie, no orphan, no goroutine left.
//
// Imports: the standard library and sparkerr only.
package pyworker
