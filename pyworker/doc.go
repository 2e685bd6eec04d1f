// Package pyworker runs PySpark's own Python worker processes, the way Spark's
// PythonWorkerFactory, PythonRunner / ArrowPythonRunner and StreamingPythonRunner do, and speaks
// their protocols.
//
// Start runs one `Python -m Module` worker (foreachBatch, streaming listeners) in its own process
// group with PYTHON_WORKER_FACTORY_PORT and PYTHON_WORKER_FACTORY_SECRET set, accepts the
// worker's connect-back on a loopback listener (pyspark.util.local_connect_and_auth: the worker
// sends its secret length-prefixed, the server answers the UTF string "ok"), then reads the pid
// the worker sends (pyspark.worker_util.get_sock_file_to_executor). The Worker gives buffered
// big-endian framing as pyspark/serializers.py writes it (ints, longs, length-prefixed bytes and
// UTF strings, SpecialLengths) and turns a worker's PYTHON_EXCEPTION_THROWN (-2) + traceback into
// Spark's PythonException (error class PYTHON_EXCEPTION).
//
// InterpreterPySpark (pyspark_version.go) reads the PySpark release an interpreter imports,
// once per interpreter, without importing the package: the streaming workers' protocols differ
// between releases, and the caller speaks the one of the PySpark it runs.
//
// Pool runs UDF tasks (Task: an eval type, its UDFs' pickled commands, the runner conf) on
// workers forked by one `python -m pyspark.daemon` (daemon.go describes its protocol), reused
// after a task that ended cleanly (spark.python.worker.reuse). Workers are granted by
// reservation (reservation.go), first come first served: Pool.Open reserves one per task; a
// Reservation reserves one plan's need at once when its first task starts and gives it back when
// its last running task ends. Reservations run side by side within MaxWorkers; one larger than
// MaxWorkers is granted alone, so at most max(MaxWorkers, the largest reservation) workers are
// busy at once, and at most MaxWorkers are kept idle.
// A Stream writes worker.py's task header (task_header.go) with its first input, frames each
// input unit (Group) and decodes the output as the eval type's family says (family.go; the
// Arrow kinds in arrow_families.go, the pickled kinds SQL_BATCHED_UDF and NON_UDF (foreach
// writers) in pickle_families.go, the table functions SQL_TABLE_UDF and SQL_ARROW_TABLE_UDF
// (@udtf: one result batch per eval call, then terminate's) in udtf_families.go, where the
// wire format of each is described), and reads the
// end section (timing data, accumulators, END_OF_STREAM). Callers see flat Arrow batches: the
// struct wrapping of the map kinds and the pickling of rows and results (package pickle) are the
// package's business. Task.LocalProperties are the TaskContext local properties (a foreach
// writer's epoch id, BatchIDProperty). A Task with a Barrier is one task of a barrier stage: its
// TaskContext is a BarrierTaskContext whose barrier() and allGather() the Barrier serves on a
// loopback port for the stage's tasks (barrier.go), as Spark's PythonRunner and
// BarrierCoordinator do.
//
// A Pool whose PoolConfig.Module is AnalyzeUDTFModule forks pyspark.sql.worker.analyze_udtf
// workers instead: AnalyzeUDTF runs a Python UDTF's static analyze method on one (Spark's
// PythonPlannerRunner exchange, udtf_analyze.go), reusing it after a clean answer.
//
// Ownership: the Worker owns its process, its socket and one goroutine that reaps the process.
// Every blocking call takes a context; when it is done the socket is closed (the worker cannot be
// used any more, its framing may be cut mid-message). Close closes the socket (a PySpark worker
// exits when its socket closes), kills the whole process group if the process has not exited
// within a short grace, and waits for it: no zombie, no orphan, no goroutine left. The Pool owns
// the daemon (its stdin is a pipe of ours: when this process dies, even by kill -9, the daemon
// and its workers exit), its stdout/stderr copies and its workers; a Stream owns the goroutine
// that reads its worker's output into a queue (so sending all input before receiving never
// deadlocks). A context done during Send or Recv kills that worker; Pool.Close kills every
// worker, then the daemon, and reaps them. A Barrier owns its listener, its parked connections
// and their goroutines while any task has joined it; the last task to leave stops them.
//
// Imports: the standard library, Arrow, sparkerr, sql/types (the input_type eval conf) and
// pyworker/pickle.
package pyworker
