package engine

import (
	"context"
	"strconv"
	"testing"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/query"
)

// graphRecorder is a JobRunner that remembers the graphs it starts.
type graphRecorder struct {
	flow.JobRunner
	graphs []*flow.Graph
}

func (r *graphRecorder) Start(ctx context.Context, g *flow.Graph, opts flow.JobOptions) (flow.Job, error) {
	r.graphs = append(r.graphs, g)
	return r.JobRunner.Start(ctx, g, opts)
}

// TestShufflePartitionsAreTrue checks that spark.sql.shuffle.partitions reports the
// parallelism Weir uses (flow.DefaultParallelism) and that a value set is the partition count
// of a batch query's shuffle.
func TestShufflePartitionsAreTrue(t *testing.T) {
	rec := &graphRecorder{JobRunner: flow.NewLocalRunner()}
	s := NewSession(WithRunner(rec))
	if v, _ := s.Conf().Get(query.ShufflePartitionsConf); v != strconv.Itoa(flow.DefaultParallelism()) {
		t.Fatalf("%s = %s, want %d", query.ShufflePartitionsConf, v, flow.DefaultParallelism())
	}
	if v, _ := s.Conf().Get(conf.DefaultParallelismKey); v != strconv.Itoa(flow.DefaultParallelism()) {
		t.Fatalf("%s = %s, want %d", conf.DefaultParallelismKey, v, flow.DefaultParallelism())
	}
	for _, n := range []int{3, 5} {
		if err := s.Conf().Set(query.ShufflePartitionsConf, strconv.Itoa(n)); err != nil {
			t.Fatal(err)
		}
		res, err := s.Execute(context.Background(), sqlRel("SELECT id % 7 AS k, count(*) FROM range(100) GROUP BY k"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := collect(context.Background(), res); err != nil {
			t.Fatal(err)
		}
		g := rec.graphs[len(rec.graphs)-1]
		found := false
		seen := map[*flow.Node]bool{}
		var walk func(node *flow.Node)
		walk = func(node *flow.Node) {
			if seen[node] {
				return
			}
			seen[node] = true
			for _, in := range node.Inputs {
				if in.Exchange == flow.Partition {
					found = true
					if node.Parallelism != n {
						t.Errorf("shuffle into %q has %d partitions, want %d", node.Name, node.Parallelism, n)
					}
				}
				walk(in.From)
			}
		}
		walk(g.Output)
		if !found {
			t.Fatalf("no shuffle in the plan of a grouped count")
		}
	}
}
