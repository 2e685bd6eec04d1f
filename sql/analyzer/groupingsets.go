package analyzer

import (
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// resolveGroupingSets expands ROLLUP, CUBE and GROUPING SETS into a Union of one Aggregate per
// grouping set, the rolled-up grouping expressions reading as NULL.
func (a *Analyzer) resolveGroupingSets(in *resolved, n *plan.Aggregate) (*resolved, error) {
	grouping := n.Grouping
	if n.Type == plan.GroupingSets && len(grouping) == 0 {
		for _, s := range n.Sets {
			grouping = append(grouping, s...)
		}
	}
	spec := groupSpec{grouping: grouping, aggs: n.Aggs}
	in, err := a.pythonBelowAggregate(in, spec)
	if err != nil {
		return nil, err
	}
	base, err := a.newAggBuild(in, spec, nil)
	if err != nil {
		return nil, err
	}
	all := make([]int, len(base.groups))
	for i := range all {
		all[i] = i
	}
	var sets [][]int
	switch n.Type {
	case plan.GroupRollup:
		for k := len(all); k >= 0; k-- {
			sets = append(sets, all[:k])
		}
	case plan.GroupCube:
		sets = cubeSets(all)
	case plan.GroupingSets:
		b := a.binderOver(in)
		for _, s := range n.Sets {
			var set []int
			for _, e := range s {
				x, err := b.bind(e)
				if err != nil {
					return nil, err
				}
				i, ok := base.groupKeys[exprKey(x)]
				if !ok {
					return nil, sparkerr.Internal("analyzer: grouping set expression %s is not a grouping expression", x)
				}
				set = append(set, i)
			}
			sets = append(sets, set)
		}
	}
	if len(sets) == 0 {
		return nil, sparkerr.Analysis("", "", "GROUPING SETS needs at least one grouping set.")
	}
	var branches []logical.Node
	var out []column
	for _, set := range sets {
		nulled := map[int]bool{}
		for i := range all {
			nulled[i] = true
		}
		for _, i := range set {
			delete(nulled, i)
		}
		b, err := a.newAggBuild(in, spec, nulled)
		if err != nil {
			return nil, err
		}
		if err := b.bindOutputs(); err != nil {
			return nil, err
		}
		if err := b.finish(); err != nil {
			return nil, err
		}
		r := b.agg.project(b.outputs)
		if out == nil {
			out = append([]column{}, r.cols...)
		} else {
			for i := range out {
				out[i].nullable = out[i].nullable || r.cols[i].nullable
			}
		}
		branches = append(branches, r.node)
	}
	u := &logical.Union{Inputs: branches, Out: branches[0].Schema()}
	u.Out = append(u.Out[:0:0], u.Out...)
	for i := range u.Out {
		u.Out[i].Nullable = out[i].nullable
	}
	return newResolved(u), nil
}

// cubeSets lists CUBE's grouping sets in Spark's order: cube(a, b) = (a, b), (a), (b), ().
func cubeSets(idx []int) [][]int {
	if len(idx) == 0 {
		return [][]int{{}}
	}
	rest := cubeSets(idx[1:])
	out := make([][]int, 0, 2*len(rest))
	for _, s := range rest {
		out = append(out, append([]int{idx[0]}, s...))
	}
	return append(out, rest...)
}
