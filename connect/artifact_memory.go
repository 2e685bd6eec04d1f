package connect

import (
	"fmt"
	"sync/atomic"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// artifactMemory bounds the bytes that the artifacts of all sessions hold in memory: chunked
// uploads being received (until they are complete) and cached local relations ("cache/…", kept
// in memory for the session's life). An upload that would pass the limit fails with Spark's
// UNABLE_TO_ACQUIRE_MEMORY and is dropped; the server and the other sessions go on. The limit is
// the server's (WithArtifactMemoryLimit; default a quarter of the memory the process may use).
type artifactMemory struct {
	limit int64
	used  atomic.Int64
}

// reserve counts n more bytes, or refuses them (counting nothing).
func (m *artifactMemory) reserve(n int64) error {
	if m == nil || n <= 0 {
		return nil
	}
	for {
		used := m.used.Load()
		if m.limit > 0 && used+n > m.limit {
			return sparkerr.Newf(flow.SparkOutOfMemoryError, "UNABLE_TO_ACQUIRE_MEMORY", "53200",
				"Unable to acquire %d bytes of memory, got 0. The server's artifacts (uploads being received "+
					"and cached local relations of all sessions) hold %d bytes of their limit of %d bytes; release "+
					"sessions that are done, or send smaller local relations.", n, used, m.limit).
				WithParams("requestedBytes", fmt.Sprint(n), "receivedBytes", "0")
		}
		if m.used.CompareAndSwap(used, used+n) {
			return nil
		}
	}
}

// release returns n reserved bytes.
func (m *artifactMemory) release(n int64) {
	if m != nil && n > 0 {
		m.used.Add(-n)
	}
}
