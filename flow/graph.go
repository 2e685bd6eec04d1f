package flow

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ExchangeKind says how an edge routes batches from a producer's partitions to a consumer's.
type ExchangeKind uint8

// Exchange kinds.
const (
	// Forward sends producer partition i to consumer partition i (equal parallelism).
	Forward ExchangeKind = iota
	// Partition splits each batch across consumer partitions with a Partitioner.
	Partition
	// Broadcast sends every batch to every consumer partition.
	Broadcast
	// Gather sends every batch to consumer partition 0.
	Gather
)

// Partitioner splits a data batch into one batch per consumer partition (nil or empty entries
// send nothing there). It must not release rec; the returned batches belong to the caller.
type Partitioner interface {
	Split(env Env, rec arrow.RecordBatch, n int) ([]arrow.RecordBatch, error)
}

// Input is an edge into a node.
type Input struct {
	From        *Node
	Exchange    ExchangeKind
	Partitioner Partitioner // for Partition
}

// Node is a vertex of a graph: a Source (leaf) or an Operator factory with inputs.
type Node struct {
	// Name labels the node in errors and explain output.
	Name string
	// Parallelism is the number of partitions (≥ 1).
	Parallelism int
	// Schema is the node's output schema in flow-event form.
	Schema *arrow.Schema
	// Source, for a leaf.
	Source Source
	// NewOperator builds partition p's operator, for an inner node.
	NewOperator func(env Env) (Operator, error)
	// Inputs of an inner node, in the order Process sees them (`in`).
	Inputs []Input
}

// Graph is a dataflow DAG whose Output node's batches are the job's result.
type Graph struct {
	Output *Node
}

// nodes lists the graph's nodes, producers before consumers.
func (g *Graph) nodes() ([]*Node, error) {
	var order []*Node
	state := map[*Node]int{} // 1 visiting, 2 done
	var visit func(n *Node) error
	visit = func(n *Node) error {
		switch state[n] {
		case 1:
			return fmt.Errorf("flow: cycle at node %q", n.Name)
		case 2:
			return nil
		}
		state[n] = 1
		if n.Parallelism < 1 {
			return fmt.Errorf("flow: node %q has parallelism %d", n.Name, n.Parallelism)
		}
		if (n.Source == nil) == (n.NewOperator == nil) {
			return fmt.Errorf("flow: node %q needs exactly one of Source and NewOperator", n.Name)
		}
		for _, in := range n.Inputs {
			if in.Exchange == Forward && in.From.Parallelism != n.Parallelism {
				return fmt.Errorf("flow: forward edge %q→%q joins parallelism %d and %d",
					in.From.Name, n.Name, in.From.Parallelism, n.Parallelism)
			}
			if in.Exchange == Partition && in.Partitioner == nil {
				return fmt.Errorf("flow: partition edge into %q has no partitioner", n.Name)
			}
			if err := visit(in.From); err != nil {
				return err
			}
		}
		state[n] = 2
		order = append(order, n)
		return nil
	}
	if g.Output == nil {
		return nil, fmt.Errorf("flow: graph has no output")
	}
	return order, visit(g.Output)
}
