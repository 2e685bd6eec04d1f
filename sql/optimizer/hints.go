package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// joinHints moves every ResolvedHint into the join above it (Join.LeftHint / RightHint),
// looking through the single-input nodes between them, and drops the hints no join takes: Spark's
// EliminateResolvedHint. Joins are visited bottom-up, so a hint goes to the nearest join above
// it; of two hints over one side the outer one wins (HintInfo.merge).
func joinHints(n logical.Node, _ *Options) logical.Node {
	pulled := transformUp(n, func(n logical.Node) logical.Node {
		j, ok := n.(*logical.Join)
		if !ok || j.LeftHint != "" || j.RightHint != "" {
			return n
		}
		l, lh := extractHint(j.Left)
		r, rh := extractHint(j.Right)
		if lh == "" && rh == "" {
			return n
		}
		c := *j
		c.Left, c.Right, c.LeftHint, c.RightHint = l, r, lh, rh
		return &c
	})
	return transformUp(pulled, func(n logical.Node) logical.Node {
		if h, ok := n.(*logical.ResolvedHint); ok {
			return h.Input
		}
		return n
	})
}

// extractHint takes the ResolvedHints off n and the single-input nodes under it, returning
// the plan without them and the outermost strategy ("" when none).
func extractHint(n logical.Node) (logical.Node, string) {
	if h, ok := n.(*logical.ResolvedHint); ok {
		in, _ := extractHint(h.Input)
		return in, h.Strategy
	}
	cs := n.Children()
	if len(cs) != 1 || !known(n) {
		return n, ""
	}
	in, strategy := extractHint(cs[0])
	if strategy == "" {
		return n, ""
	}
	out, _ := withChildren(n, []logical.Node{in})
	return out, strategy
}

// broadcastBuildSide swaps the sides of an inner (or right outer) join whose left side alone
// is hinted for broadcast, so that the hinted side is the one built (the right), with a
// projection restoring the join's column order: Spark's BuildLeft for those joins.
func broadcastBuildSide(n logical.Node, _ *Options) logical.Node {
	return transformUp(n, func(n logical.Node) logical.Node {
		j, ok := n.(*logical.Join)
		if !ok || j.LeftHint != "broadcast" || j.RightHint == "broadcast" ||
			j.Type != plan.InnerJoin && j.Type != plan.CrossJoin && j.Type != plan.RightOuterJoin {
			return n
		}
		nl, nr := len(j.Left.Schema()), len(j.Right.Schema())
		// In the swapped join the right side's columns come first.
		toSwapped := func(i int) int {
			if i < nl {
				return i + nr
			}
			return i - nl
		}
		s := &logical.Join{Left: j.Right, Right: j.Left, Type: j.Type, LeftKeys: j.RightKeys, RightKeys: j.LeftKeys,
			LeftHint: j.RightHint, RightHint: j.LeftHint}
		if j.Type == plan.RightOuterJoin {
			s.Type = plan.LeftOuterJoin
		}
		if j.Residual != nil {
			s.Residual = expr.RemapColumns(j.Residual, toSwapped)
		}
		s.Out = append(append(s.Out, j.Out[nl:]...), j.Out[:nl]...)
		proj := make([]expr.Expr, len(j.Out))
		for i, f := range j.Out {
			proj[i] = &expr.Column{Index: toSwapped(i), Name: f.Name, T: f.Type, Null: f.Nullable}
		}
		return &logical.Project{Input: s, Exprs: proj}
	})
}

// buildSemiLeft marks the batch LEFT SEMI / LEFT ANTI equi-joins whose left side is estimated
// at most a quarter of their right side's rows, and whose right side is too large to
// broadcast, to build their hash table over the left side (Join.BuildLeft): the big right side
// then streams past a small table instead of being held in one (TPC-H Q21's EXISTS and NOT
// EXISTS over lineitem for a few thousand late lineitems of one nation's suppliers; Q4's).
func buildSemiLeft(n logical.Node, o *Options) logical.Node {
	if logical.IsStreaming(n) {
		return n
	}
	return transformUp(n, func(n logical.Node) logical.Node {
		j, ok := n.(*logical.Join)
		if !ok || len(j.LeftKeys) == 0 || j.LeftHint != "" || j.RightHint != "" || j.BroadcastRight ||
			(j.Type != plan.LeftSemiJoin && j.Type != plan.LeftAntiJoin) {
			return n
		}
		right := estimateRows(j.Right, o)
		if estimateRows(j.Left, o)*4 > right || right*float64(rowSize(j.Right.Schema())) <= float64(o.BroadcastThreshold) {
			return n
		}
		c := *j
		c.BuildLeft = true
		return &c
	})
}

// autoBroadcast marks the batch equi-joins whose right side is estimated at most
// Options.BroadcastThreshold bytes (rows × the columns' default sizes) for a broadcast hash
// join, as Spark's JoinSelection does under spark.sql.autoBroadcastJoinThreshold: the left side
// keeps its partitions instead of being hash-partitioned on the keys. Joins with a strategy
// hint keep it; joins that emit unmatched right rows are not broadcast.
func autoBroadcast(n logical.Node, o *Options) logical.Node {
	if o.BroadcastThreshold <= 0 || logical.IsStreaming(n) {
		return n
	}
	return transformUp(n, func(n logical.Node) logical.Node {
		j, ok := n.(*logical.Join)
		if !ok || len(j.LeftKeys) == 0 || j.LeftHint != "" || j.RightHint != "" || j.BroadcastRight || j.BuildLeft {
			return n
		}
		switch j.Type {
		case plan.InnerJoin, plan.CrossJoin, plan.LeftOuterJoin, plan.LeftSemiJoin, plan.LeftAntiJoin:
		default:
			return n
		}
		if estimateRows(j.Right, o)*float64(rowSize(j.Right.Schema())) > float64(o.BroadcastThreshold) {
			return n
		}
		c := *j
		c.BroadcastRight = true
		return &c
	})
}
