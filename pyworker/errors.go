package pyworker

import "github.com/weirhq/weir/sparkerr"

// PythonExceptionClass is the Java class PySpark maps to pyspark.errors.PythonException.
const PythonExceptionClass = "org.apache.spark.api.python.PythonException"

// PythonException is Spark's error for an exception raised inside a Python worker
// (PythonException with error class PYTHON_EXCEPTION, message "<msg>: <traceback>").
func PythonException(msg, traceback string) *sparkerr.Error {
	return sparkerr.Newf(PythonExceptionClass, "PYTHON_EXCEPTION", "38000", "%s: %s", msg, traceback).
		WithParams("msg", msg, "traceback", traceback)
}

// workerFailure is the error for a worker that failed outside the protocol (it crashed, closed its
// socket, or could not start).
func workerFailure(format string, args ...any) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkException, "", "", format, args...)
}

// Faulthandler confs: Spark quotes a crashed worker's faulthandler traceback only when
// FaultHandlerConf (falling back to WorkerFaultHandlerConf, default false) is true; otherwise its
// error suggests turning them on.
const (
	FaultHandlerConf       = "spark.sql.execution.pyspark.udf.faulthandler.enabled"
	WorkerFaultHandlerConf = "spark.python.worker.faulthandler.enabled"
)

// crashFailure is the error of a worker that exited unexpectedly: with faulthandler on, the
// traceback its faulthandler wrote (log, when there is one); off, Spark's advice to turn it on
// (PythonRunner's message, its missing space included).
func crashFailure(prefix string, faultHandler bool, log string, err error) error {
	if !faultHandler {
		return workerFailure("%s exited unexpectedly (crashed). Consider setting '%s' or'%s' configuration to 'true' for the better Python traceback.",
			prefix, FaultHandlerConf, WorkerFaultHandlerConf)
	}
	if log != "" {
		return workerFailure("%s exited unexpectedly (crashed): %s", prefix, log)
	}
	if err != nil {
		return workerFailure("%s exited unexpectedly (crashed): %v", prefix, err)
	}
	return workerFailure("%s exited unexpectedly (crashed)", prefix)
}
