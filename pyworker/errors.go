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
