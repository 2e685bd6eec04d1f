package connect

import (
	"github.com/weirhq/weir/sparkerr"
)

// Java classes of the errors the service itself raises (beyond sparkerr's constants).
const (
	sparkSQLException      = "org.apache.spark.SparkSQLException"
	sparkNoSuchElement     = "org.apache.spark.SparkNoSuchElementException"
	sparkSecurityException = "org.apache.spark.SparkSecurityException"
	invalidPlanInput       = "org.apache.spark.sql.connect.common.InvalidPlanInput"
)

// invalidHandle is Spark's INVALID_HANDLE.<sub> (SparkSQLException, SQLSTATE HY000).
func invalidHandle(sub, handle, detail string) *sparkerr.Error {
	return sparkerr.Newf(sparkSQLException, "INVALID_HANDLE."+sub, "HY000",
		"The handle %s is invalid. %s", handle, detail).WithParams("handle", handle)
}

func operationNotFound(opID string) *sparkerr.Error {
	return invalidHandle("OPERATION_NOT_FOUND", opID, "Operation not found.")
}

func operationAlreadyExists(opID string) *sparkerr.Error {
	return invalidHandle("OPERATION_ALREADY_EXISTS", opID, "Operation already exists.")
}

func operationNotReattachable(opID string) *sparkerr.Error {
	return invalidHandle("OPERATION_NOT_REATTACHABLE", opID, "Operation is not reattachable.")
}

func sessionNotFound(id string) *sparkerr.Error {
	return invalidHandle("SESSION_NOT_FOUND", id, "Session not found.")
}

func sessionClosed(id string) *sparkerr.Error {
	return invalidHandle("SESSION_CLOSED", id, "Session was closed.")
}

func sessionChanged(id string) *sparkerr.Error {
	return invalidHandle("SESSION_CHANGED", id,
		"The existing Spark server driver instance has restarted. Please reconnect.")
}

func handleFormat(id string) *sparkerr.Error {
	return invalidHandle("FORMAT", id,
		"Handle must be an UUID string of the format '00112233-4455-6677-8899-aabbccddeeff'")
}

// sessionOfOtherUser refuses a session_id that another user_id already owns.
func sessionOfOtherUser(id string) *sparkerr.Error {
	return sparkerr.Newf(sparkSecurityException, "INSUFFICIENT_PERMISSIONS", "42501",
		"Insufficient privileges: session %s belongs to another user.", id)
}

// cursorDisconnected is INVALID_CURSOR.DISCONNECTED: another stream took over the operation.
func cursorDisconnected(opID string) *sparkerr.Error {
	return sparkerr.New(sparkSQLException, "INVALID_CURSOR.DISCONNECTED", "HY109",
		"The cursor is invalid. The cursor has been disconnected by the server.").
		WithParams("operationId", opID)
}

// cursorPositionNotAvailable is INVALID_CURSOR.POSITION_NOT_AVAILABLE.
func cursorPositionNotAvailable(opID, responseID string) *sparkerr.Error {
	return sparkerr.Newf(sparkSQLException, "INVALID_CURSOR.POSITION_NOT_AVAILABLE", "HY109",
		"The cursor is invalid. The cursor position id %s is no longer available at index 0.", responseID).
		WithParams("operationId", opID, "responseId", responseID)
}

// operationCanceled is OPERATION_CANCELED: an interrupted or released execution.
func operationCanceled() *sparkerr.Error {
	return sparkerr.New(sparkerr.SparkException, "OPERATION_CANCELED", "HY008",
		"Operation has been canceled.")
}

// confNotFound is SQL_CONF_NOT_FOUND (SparkNoSuchElementException in PySpark).
func confNotFound(key string) *sparkerr.Error {
	q := `"` + key + `"`
	return sparkerr.Newf(sparkNoSuchElement, "SQL_CONF_NOT_FOUND", "42K0I",
		"The SQL config %s cannot be found. Please verify that the config exists.", q).
		WithParams("sqlConf", q)
}

// invalidPlan is an error in the shape of the request itself (a missing field, an unset oneof).
func invalidPlan(format string, args ...any) *sparkerr.Error {
	return sparkerr.Newf(invalidPlanInput, "", "", format, args...)
}
