package query

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/weirhq/weir/flow"
)

// stateMetricsLog collects the metrics stateful operator instances report at each barrier
// (flow.Checkpointing.OnStateMetrics, called from the instances' goroutines) until the epoch's
// progress takes them. Every instance reports before forwarding its barrier, so once the sink's
// barrier of an epoch reached the query, the epoch's metrics are complete.
type stateMetricsLog struct {
	mu     sync.Mutex
	epochs map[int64]map[string]*flow.StateMetrics
}

func newStateMetricsLog() *stateMetricsLog {
	return &stateMetricsLog{epochs: map[int64]map[string]*flow.StateMetrics{}}
}

// record adds one instance's metrics: rows and memory add up over partitions, the commit time
// is the slowest partition's.
func (l *stateMetricsLog) record(node string, _ int, epoch int64, m flow.StateMetrics) {
	l.mu.Lock()
	defer l.mu.Unlock()
	nodes := l.epochs[epoch]
	if nodes == nil {
		nodes = map[string]*flow.StateMetrics{}
		l.epochs[epoch] = nodes
	}
	acc := nodes[node]
	if acc == nil {
		acc = &flow.StateMetrics{}
		nodes[node] = acc
	}
	acc.NumRowsTotal += m.NumRowsTotal
	acc.NumRowsUpdated += m.NumRowsUpdated
	acc.NumRowsRemoved += m.NumRowsRemoved
	acc.MemoryUsedBytes += m.MemoryUsedBytes
	acc.SpillBytes += m.SpillBytes
	acc.CommitTime = max(acc.CommitTime, m.CommitTime)
}

// take returns epoch's metrics per stateful node in plan order (the planner numbers nodes
// bottom-up, "Aggregate#7") and forgets epochs up to it.
func (l *stateMetricsLog) take(epoch int64) []flow.StateMetrics {
	l.mu.Lock()
	defer l.mu.Unlock()
	nodes := l.epochs[epoch]
	for e := range l.epochs {
		if e <= epoch {
			delete(l.epochs, e)
		}
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return nodeNumber(names[i]) < nodeNumber(names[j]) })
	out := make([]flow.StateMetrics, len(names))
	for i, n := range names {
		out[i] = *nodes[n]
	}
	return out
}

// nodeNumber is the planner's sequence number at the end of a node name ("Aggregate#7" → 7).
func nodeNumber(name string) int {
	i := strings.LastIndexByte(name, '#')
	if i < 0 {
		return 0
	}
	n, _ := strconv.Atoi(name[i+1:])
	return n
}
