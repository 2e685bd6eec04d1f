package query

import (
	"errors"

	"github.com/weirhq/weir/sparkerr"
)

// streamFailed wraps a query's failure as Spark's StreamingQueryException with error class
// STREAM_FAILED: "[STREAM_FAILED] Query [id = …, runId = …] terminated with exception: <cause>".
func (q *Query) streamFailed(cause error) *Exception {
	// The Spark error inside (e.g. DIVIDE_BY_ZERO under the runtime's node-name context) is
	// the cause, as Spark's task failure would carry it.
	if e, ok := sparkerr.As(cause); ok {
		cause = e
		if e.JavaClass == sparkerr.StreamingQueryException && e.Cause != nil {
			cause = e.Cause
		}
	}
	msg := causeMessage(cause)
	err := sparkerr.Newf(sparkerr.StreamingQueryException, "STREAM_FAILED", "XXKST",
		"Query [id = %s, runId = %s] terminated with exception: %s", q.id, q.runID, msg).
		WithParams("id", q.id, "runId", q.runID, "message", msg).Wrap(cause)
	return &Exception{Message: sparkerr.StreamingQueryException + ": " + err.Error(), Class: err.Class, Err: err}
}

// causeMessage is the cause's getMessage: a Spark error's "[CLASS] message SQLSTATE: …", else the
// error text.
func causeMessage(cause error) string {
	if cause == nil {
		return ""
	}
	return cause.Error()
}

// causeString is Utils.exceptionString of the cause, without a stack: "<JavaClass>: <message>".
func causeString(cause error) string {
	if e, ok := sparkerr.As(cause); ok {
		jc := e.JavaClass
		if jc == "" {
			jc = sparkerr.SparkException
		}
		return jc + ": " + e.Error()
	}
	return sparkerr.SparkException + ": " + causeMessage(cause)
}

// causeClass is the cause's error class, "" if it has none.
func causeClass(cause error) string {
	var e *sparkerr.Error
	if errors.As(cause, &e) {
		return e.Class
	}
	return ""
}
