package sparkerr

import "fmt"

// SparkOutOfMemoryError is the Java class of Spark's refused memory acquisitions.
const SparkOutOfMemoryError = "org.apache.spark.memory.SparkOutOfMemoryError"

// UnableToAcquireMemory is Spark's SparkOutOfMemoryError UNABLE_TO_ACQUIRE_MEMORY (SQLSTATE
// 53200) for requested bytes of which only received could be had; detail says what holds the
// memory and what raises the limit. Every memory bound of Weir refuses with it (a query's
// budget, one value's size, the server's artifacts).
func UnableToAcquireMemory(requested, received int64, detail string) *Error {
	return Newf(SparkOutOfMemoryError, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
		"Unable to acquire %d bytes of memory, got %d. %s", requested, received, detail).
		WithParams("requestedBytes", fmt.Sprint(requested), "receivedBytes", fmt.Sprint(received))
}
