package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// semiJoinAggregates narrows the input of a grouped Aggregate that an inner (or left semi) join
// matches on a grouping key to the rows whose key the join's other side can hold: the
// Aggregate's input gets a LEFT SEMI join with a small, join-free part of the other side that
// every value of the other side's key comes from (a filtered scan the key is read from, or
// one an equi-join or semi join ties it to). Groups the join could never match are then not
// computed at all: TPC-H Q17's decorrelated avg(l_quantity) per part aggregates only the
// lineitems of the ~200 parts of Brand#23 in MED BOX, not all 6M (Q2's and Q20's subqueries
// likewise). Groups the join does match keep all their rows, so their aggregates are
// unchanged. The copy of the small part runs twice; it is used only when its filters are
// estimated to drop at least half its scan's rows (an unfiltered scan holds every key: TPC-H
// Q18's orders hold every l_orderkey) and it to hold at most half the Aggregate's groups.
func semiJoinAggregates(n logical.Node, o *Options) logical.Node {
	if logical.IsStreaming(n) {
		return n
	}
	return transformUp(n, func(n logical.Node) logical.Node {
		j, ok := n.(*logical.Join)
		if !ok || len(j.LeftKeys) == 0 || j.LeftHint != "" || j.RightHint != "" {
			return n
		}
		switch j.Type {
		case plan.InnerJoin, plan.LeftSemiJoin:
			if r := narrowAggregateSide(j.Right, j.RightKeys, j.Left, j.LeftKeys, o); r != nil {
				c := *j
				c.Right = r
				return &c
			}
		}
		if j.Type == plan.InnerJoin {
			if l := narrowAggregateSide(j.Left, j.LeftKeys, j.Right, j.RightKeys, o); l != nil {
				c := *j
				c.Left = l
				return &c
			}
		}
		return n
	})
}

// narrowAggregateSide is side with its Aggregate's input semi-joined to a source of other's
// matching key values, or nil when no key pair allows it or it would not pay.
func narrowAggregateSide(side logical.Node, sideKeys []expr.Expr, other logical.Node, otherKeys []expr.Expr, o *Options) logical.Node {
	for i := range sideKeys {
		sk, ok1 := stripAlias(sideKeys[i]).(*expr.Column)
		ok, ok2 := stripAlias(otherKeys[i]).(*expr.Column)
		if !ok1 || !ok2 {
			continue
		}
		out := underAggregate(side, sk.Index, func(agg *logical.Aggregate, g int) logical.Node {
			in := agg.Input
			if j, ok := in.(*logical.Join); ok && j.Type == plan.LeftSemiJoin {
				return nil // narrowed already
			}
			groups := distinctValues(in, g, o)
			var best *keySource
			for _, s := range keySources(other, ok.Index, nil) {
				scan := filteredScan(s.node)
				if scan == nil || !s.node.Schema()[s.col].Type.Equal(in.Schema()[g].Type) {
					continue
				}
				// The source's filters must drop rows: an unfiltered scan holds every key
				// (TPC-H Q18's orders hold every l_orderkey, whatever the distinct estimates).
				if estimateRows(s.node, o) > estimateRows(scan, o)/2 {
					continue
				}
				if d := distinctValues(s.node, s.col, o); d <= groups/2 && (best == nil || d < distinctValues(best.node, best.col, o)) {
					best = &s
				}
			}
			if best == nil {
				return nil
			}
			semi := &logical.Join{Left: in, Right: best.node, Type: plan.LeftSemiJoin,
				LeftKeys: []expr.Expr{columnRef(in, g)}, RightKeys: []expr.Expr{columnRef(best.node, best.col)}, Out: in.Schema()}
			return pushSemiJoins(semi, o)
		})
		if out != nil {
			return out
		}
	}
	return nil
}

// underAggregate rebuilds n with the Aggregate that column col comes from (through Projects of
// columns and Filters) given the input narrow returns for it and its grouping column g (the
// input column col groups by); nil when col is not a grouping column of such an Aggregate or
// narrow returns nil.
func underAggregate(n logical.Node, col int, narrow func(agg *logical.Aggregate, g int) logical.Node) logical.Node {
	switch x := n.(type) {
	case *logical.Project:
		c, ok := stripAlias(x.Exprs[col]).(*expr.Column)
		if !ok {
			return nil
		}
		in := underAggregate(x.Input, c.Index, narrow)
		if in == nil {
			return nil
		}
		p := *x
		p.Input = in
		return &p
	case *logical.Filter:
		in := underAggregate(x.Input, col, narrow)
		if in == nil {
			return nil
		}
		f := *x
		f.Input = in
		return &f
	case *logical.Aggregate:
		if col >= len(x.Groups) {
			return nil
		}
		g, ok := stripAlias(x.Groups[col]).(*expr.Column)
		if !ok {
			return nil
		}
		in := narrow(x, g.Index)
		if in == nil {
			return nil
		}
		a := *x
		a.Input = in
		return &a
	}
	return nil
}

// keySource is a subtree and its column that holds every value a key column takes.
type keySource struct {
	node logical.Node
	col  int
}

// keySources appends the subtrees of n whose column holds every (non-NULL) value column col of
// n takes: n itself, and through Projects of columns, Filters and the sides of inner, left
// semi and (left side) left outer joins, including the other side of an equi-join key pair
// over col.
func keySources(n logical.Node, col int, out []keySource) []keySource {
	out = append(out, keySource{n, col})
	switch x := n.(type) {
	case *logical.Project:
		if c, ok := stripAlias(x.Exprs[col]).(*expr.Column); ok {
			out = keySources(x.Input, c.Index, out)
		}
	case *logical.Filter:
		out = keySources(x.Input, col, out)
	case *logical.Join:
		nl := len(x.Left.Schema())
		switch {
		case col < nl && (x.Type == plan.InnerJoin || x.Type == plan.LeftSemiJoin || x.Type == plan.LeftOuterJoin):
			out = keySources(x.Left, col, out)
			if x.Type != plan.LeftOuterJoin {
				if rc := pairedKey(x.LeftKeys, x.RightKeys, col); rc >= 0 {
					out = keySources(x.Right, rc, out)
				}
			}
		case col >= nl && x.Type == plan.InnerJoin:
			out = keySources(x.Right, col-nl, out)
			if lc := pairedKey(x.RightKeys, x.LeftKeys, col-nl); lc >= 0 {
				out = keySources(x.Left, lc, out)
			}
		}
	}
	return out
}

// pairedKey is the column of the other side paired with column col by an equi-join key pair
// of plain columns, -1: none.
func pairedKey(keys, others []expr.Expr, col int) int {
	for k := range keys {
		c, ok := stripAlias(keys[k]).(*expr.Column)
		oc, ok2 := stripAlias(others[k]).(*expr.Column)
		if ok && ok2 && c.Index == col {
			return oc.Index
		}
	}
	return -1
}

// filteredScan is the scan under n when n is a batch scan under deterministic Filters and
// Projects only (small enough to run a second time as a semi join's build side), else nil.
func filteredScan(n logical.Node) *logical.SourceScan {
	switch x := n.(type) {
	case *logical.SourceScan:
		if x.Streaming {
			return nil
		}
		return x
	case *logical.Filter:
		if !movable(x.Cond) {
			return nil
		}
		return filteredScan(x.Input)
	case *logical.Project:
		for _, e := range x.Exprs {
			if !movable(e) {
				return nil
			}
		}
		return filteredScan(x.Input)
	}
	return nil
}
