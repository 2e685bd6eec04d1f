package planner

import (
	"strconv"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// PythonMaxWorkersConf bounds a session's concurrently busy Python workers
// (spark.weir.python.maxWorkers; operators.PythonSpec.MaxWorkers is the bound in force).
const PythonMaxWorkersConf = "spark.weir.python.maxWorkers"

// pythonNode is a planned Python node: lazy when it takes its worker only at end of data
// (grouped-map and grouped-aggregate kinds, after their whole input arrived).
type pythonNode struct {
	node *flow.Node
	lazy bool
}

// checkPythonWorkers refuses a plan that could wait forever for Python workers. Each partition
// of a Python node holds one worker while it runs, and the pool makes a partition wait while
// MaxWorkers are busy; the wait ends when a holder finishes. A holder cannot finish when its
// output waits on a Python node's partition that waits for a worker (two Python nodes in one
// pipeline), or when its input comes through an exchange whose producers also feed a waiting
// partition, which stops reading (they then stop sending to the holder too). So a plan's
// Python nodes may have at most MaxWorkers partitions in all, except one Python node alone in a
// batch plan that is lazy (each holder has its whole input) or whose partitions are independent
// pipelines from the sources (forward edges only).
func (b *builder) checkPythonWorkers() error {
	max := 0
	if b.opts.Python != nil {
		max = b.opts.Python.MaxWorkers
	}
	if max <= 0 || len(b.pythonNodes) == 0 {
		return nil
	}
	if len(b.pythonNodes) == 1 && !b.opts.Streaming {
		if n := b.pythonNodes[0]; n.lazy || independentPartitions(n.node) {
			return nil
		}
	}
	need := 0
	for _, n := range b.pythonNodes {
		need += n.node.Parallelism
	}
	if need <= max {
		return nil
	}
	return sparkerr.IllegalArgument("The query runs %d Python operator(s) with %d partitions in all, each holding a Python worker "+
		"while it runs, but %s = %d: it could wait forever for a worker. Raise %s (before the session's first Python function "+
		"runs) or use fewer partitions (spark.sql.shuffle.partitions, repartition(n), a source's partitions).",
		len(b.pythonNodes), need, PythonMaxWorkersConf, max, PythonMaxWorkersConf).
		WithParams("workersNeeded", strconv.Itoa(need), "maxWorkers", strconv.Itoa(max))
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
