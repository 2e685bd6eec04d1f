package connect

import (
	"fmt"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// artifactMemory bounds the bytes that the artifacts of all sessions hold in memory: chunked
// uploads being received (until they are complete) and cached local relations ("cache/…", kept
// in memory for the session's life). It counts with a flow.MemoryBudget (nothing is allocated
// through it) and refuses an upload that would pass the limit with Spark's
// UNABLE_TO_ACQUIRE_MEMORY, phrased for artifacts; the upload is dropped, the server and the
// other sessions go on. The limit is the server's (WithArtifactMemoryLimit; default a quarter
// of the memory the process may use; ≤ 0: counted, not limited).
type artifactMemory struct{ budget *flow.MemoryBudget }

func newArtifactMemory(limit int64) *artifactMemory {
	return &artifactMemory{budget: flow.NewMemoryBudget(nil, limit)}
}

// reserve counts n more bytes, or refuses them (counting nothing).
func (m *artifactMemory) reserve(n int64) error {
	if m == nil {
		return nil
	}
	if err := m.budget.Reserve(n); err != nil {
		return sparkerr.UnableToAcquireMemory(n, 0, fmt.Sprintf("The server's artifacts (uploads being received "+
			"and cached local relations of all sessions) hold %d bytes of their limit of %d bytes; release "+
			"sessions that are done, or send smaller local relations.", m.budget.Used(), m.budget.Limit()))
	}
	return nil
}

// release returns n reserved bytes.
func (m *artifactMemory) release(n int64) {
	if m != nil {
		m.budget.Release(n)
	}
}

// used is the bytes currently held.
func (m *artifactMemory) used() int64 { return m.budget.Used() }
