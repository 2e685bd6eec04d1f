package planner

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// MaxPartitionsConf bounds the partitions of any node of a planned query
// (spark.weir.maxPartitions). Weir runs every partition of every node as its own task (a
// goroutine with its inbox, operator and, at a partitioned exchange, a bucket in every
// producer's split), so a partition count costs memory and time whether or not the
// partitions hold rows: repartition(100000) of ten rows took ≈ 1.3 GB and 30 s before this
// bound. Spark schedules such partitions as a queue of tasks on a few executor cores; Weir
// does not, so it refuses a count above the bound with an error naming it.
const MaxPartitionsConf = "spark.weir.maxPartitions"

// DefaultMaxPartitions is MaxPartitionsConf's default: 4096 partitions take tens of MB and a
// fraction of a second (bench/RESULTS.md), ten times the count of Spark's most common
// explicit settings (200 shuffle partitions, 1000-partition repartitions).
const DefaultMaxPartitions = 4096

// maxPartitions reads MaxPartitionsConf (the default without a conf).
func maxPartitions(conf func(string) (string, bool)) (int, error) {
	if conf == nil {
		return DefaultMaxPartitions, nil
	}
	v, ok := conf(MaxPartitionsConf)
	if !ok || strings.TrimSpace(v) == "" {
		return DefaultMaxPartitions, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		// Spark's message for a conf of the wrong type (ConfigBuilder's converter).
		return 0, sparkerr.IllegalArgument("%s should be int, but was %s", MaxPartitionsConf, v).Wrap(err)
	}
	if n <= 0 {
		return 0, sparkerr.IllegalArgument("%s must be positive, but was %s", MaxPartitionsConf, v)
	}
	return n, nil
}

// checkPartitions refuses a graph with a node of more partitions than max.
func checkPartitions(g *flow.Graph, max int) error {
	seen := map[*flow.Node]bool{}
	var visit func(n *flow.Node) error
	visit = func(n *flow.Node) error {
		if seen[n] {
			return nil
		}
		seen[n] = true
		// Inputs first: the error names the node the partitions come from (a range or a
		// repartition), not one that inherited them (a partial aggregate, a projection).
		for _, in := range n.Inputs {
			if err := visit(in.From); err != nil {
				return err
			}
		}
		if n.Parallelism > max {
			return sparkerr.IllegalArgument("The query needs %d partitions (at %s), more than %s = %d allows: "+
				"use fewer partitions (e.g. a smaller repartition(n) or range numPartitions) or raise %s.",
				n.Parallelism, n.Name, MaxPartitionsConf, max, MaxPartitionsConf).
				WithParams("numPartitions", strconv.Itoa(n.Parallelism), "maxPartitions", strconv.Itoa(max))
		}
		return nil
	}
	return visit(g.Output)
}
