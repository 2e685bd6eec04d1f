package planner

import (
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
)

// PythonMaxWorkersConf bounds a session's concurrently busy Python workers
// (spark.weir.python.maxWorkers; operators.PythonSpec.MaxWorkers is the bound in force).
const PythonMaxWorkersConf = "spark.weir.python.maxWorkers"

// pythonNode is a planned Python node: lazy when it takes its worker only at end of data
// (grouped-map and grouped-aggregate kinds, after their whole input arrived); gang when all its
// partitions' tasks must run at once (a barrier-mode map: barrier() waits for every one).
type pythonNode struct {
	node *flow.Node
	lazy bool
	gang bool
}

// pythonWorkersNeeded is how many Python tasks of the plan must be able to run at once, which
// the planner gives the runner (operators.PythonWorkerReserver) as the plan's reservation.
//
// Each partition of a Python node holds one worker while it runs. A partition waiting for a
// worker can wait forever when a holder cannot finish: when the holder's output waits on that
// partition (two Python nodes in one pipeline), or when its input comes through an exchange
// whose producers also feed the waiting partition, which stops reading (they then stop sending
// to the holder too). So a plan needs a worker for every partition of every Python node, all at
// once — except one Python node alone in a batch plan that is lazy (each holder has its whole
// input) or whose partitions are independent pipelines from the sources (forward edges only):
// its partitions can take turns, and it needs at most MaxWorkers — unless it is a barrier-mode
// map, whose tasks all wait for each other in BarrierTaskContext.barrier().
//
// The runner reserves the need at once when the plan's first task starts (pyworker.Reservation):
// beside other plans while the session's reservations stay within MaxWorkers, or alone when the
// need is larger (the session then runs more than MaxWorkers workers, for that plan only: at
// most max(MaxWorkers, the largest plan's need) at any time). No plan is refused.
func (b *builder) pythonWorkersNeeded() int {
	max := 0
	if b.opts.Python != nil {
		max = b.opts.Python.MaxWorkers
	}
	if len(b.pythonNodes) == 1 && !b.opts.Streaming && max > 0 {
		if n := b.pythonNodes[0]; !n.gang && (n.lazy || independentPartitions(n.node)) {
			return min(n.node.Parallelism, max)
		}
	}
	need := 0
	for _, n := range b.pythonNodes {
		need += n.node.Parallelism
	}
	return need
}

// reservePythonWorkers tells the plan's runner its need (pythonWorkersNeeded).
func (b *builder) reservePythonWorkers() {
	if b.opts.Python == nil || len(b.pythonNodes) == 0 {
		return
	}
	if r, ok := b.opts.Python.Runner.(operators.PythonWorkerReserver); ok {
		r.SetNeed(b.pythonWorkersNeeded())
	}
}

// independentPartitions reports whether every partition of n is fed only by the same partition
// of its inputs, up to the sources (no exchange couples them).
func independentPartitions(n *flow.Node) bool {
	for _, in := range n.Inputs {
		if in.Exchange != flow.Forward || !independentPartitions(in.From) {
			return false
		}
	}
	return true
}
