package optimizer

import (
	"context"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// Options configure a run of the optimizer.
type Options struct {
	// Stats, when set, returns a scan's row count (from file metadata); ok false when unknown.
	Stats func(*logical.SourceScan) (rows int64, ok bool)
	// Distinct, when set, returns an upper bound of the distinct values of a scan's column
	// col (from file metadata: an integer column's min and max); ok false when unknown.
	Distinct func(scan *logical.SourceScan, col int) (n int64, ok bool)
	// Expr is the statement's evaluation context, for constant folding (time zone, ANSI);
	// nil: nothing is folded.
	Expr *expr.Context
	// BroadcastThreshold is spark.sql.autoBroadcastJoinThreshold: a batch join whose right
	// side is estimated at most this many bytes broadcasts it (≤ 0: never).
	BroadcastThreshold int64
}

// rule rewrites a plan; it returns n itself when it has nothing to change.
type rule func(n logical.Node, o *Options) logical.Node

// batch is a list of rules run in order, repeated until the plan stops changing (or once).
type batch struct {
	name  string
	rules []rule
	once  bool
}

// maxIterations bounds a fixed-point batch; a batch still changing the plan past it is a bug
// in a rule (two rules undoing each other).
const maxIterations = 100

var batches = []batch{
	{name: "join hints", rules: []rule{joinHints}, once: true},
	{name: "simplify", rules: []rule{simplify}},
	{name: "pushdown", rules: []rule{pushFilters, pushSemiJoins, simplify}},
	{name: "reorder", rules: []rule{reorderJoins}, once: true},
	{name: "pushdown after reorder", rules: []rule{pushFilters, simplify}},
	{name: "semi joins into aggregates", rules: []rule{semiJoinAggregates}, once: true},
	{name: "prune", rules: []rule{pruneColumns}, once: true},
	{name: "broadcast build side", rules: []rule{broadcastBuildSide, buildSemiLeft, autoBroadcast}, once: true},
	{name: "collation keys", rules: []rule{collationKeys}, once: true},
}

// Optimize returns a plan equivalent to n (same schema, same rows) for the planner.
// A rule that panics (a bug) fails the query with an internal error instead of the server.
func Optimize(ctx context.Context, n logical.Node, opts Options) (out logical.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, sparkerr.Internal("optimizer: %v", r)
		}
	}()
	for _, b := range batches {
		for i := 0; ; i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			before := n
			for _, r := range b.rules {
				n = r(n, &opts)
			}
			if b.once || n == before || logical.TreeString(n) == logical.TreeString(before) {
				break
			}
			if i == maxIterations {
				return nil, sparkerr.Internal("optimizer batch %s did not reach a fixed point", b.name)
			}
		}
	}
	return n, nil
}
