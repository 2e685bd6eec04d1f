package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// pushSemiJoins moves a batch LEFT SEMI / LEFT ANTI join (IN and EXISTS subqueries) below the
// deterministic Project and the inner (or, to its left side, left outer) join under it, to the
// side that holds every left column the semi join reads: Spark's PushDownLeftSemiAntiJoin and
// PushLeftSemiLeftAntiThroughJoin. Rows a semi join drops then never reach the joins and
// aggregations above it (TPC-H Q18: the orders of more than 300 units are picked before
// lineitem joins orders, not after). It goes below a join only when that join is estimated to
// keep at least as many rows as the side it goes to: below a join that filters its side (TPC-H
// Q21's nation), the semi join would probe more rows than where it is.
func pushSemiJoins(n logical.Node, o *Options) logical.Node {
	if logical.IsStreaming(n) {
		return n
	}
	return transformUp(n, func(n logical.Node) logical.Node {
		j, ok := n.(*logical.Join)
		if !ok || !semiOrAnti(j.Type) || j.Residual != nil && !movable(j.Residual) {
			return n
		}
		for _, k := range j.LeftKeys {
			if !movable(k) {
				return n
			}
		}
		if out := semiBelow(j, o); out != nil {
			return out
		}
		return n
	})
}

// semiBelow is j moved below its left input, or nil when it cannot move.
func semiBelow(j *logical.Join, o *Options) logical.Node {
	nl := len(j.Left.Schema())
	switch x := j.Left.(type) {
	case *logical.Project:
		for _, e := range x.Exprs {
			if !movable(e) {
				return nil
			}
		}
		in := len(x.Input.Schema())
		over := func(e expr.Expr) expr.Expr {
			return expr.ReplaceColumns(e, func(c *expr.Column) expr.Expr {
				if c.Index < nl {
					return stripAlias(x.Exprs[c.Index])
				}
				return expr.ShiftColumns(c, in-nl)
			})
		}
		s := semiOver(j, x.Input, over)
		p := *x
		p.Input = pushSemiJoins(s, o)
		return &p
	case *logical.Join:
		if x.LeftHint != "" || x.RightHint != "" {
			return nil
		}
		ll := len(x.Left.Schema())
		reads := leftColumnsRead(j, nl)
		toLeft := x.Type == plan.InnerJoin || x.Type == plan.CrossJoin || x.Type == plan.LeftOuterJoin
		toRight := x.Type == plan.InnerJoin || x.Type == plan.CrossJoin
		rows := estimateRows(x, o)
		switch {
		case toLeft && allIn(reads, 0, ll) && rows >= estimateRows(x.Left, o):
			c := *x
			c.Left = pushSemiJoins(semiOver(j, x.Left, func(e expr.Expr) expr.Expr {
				return expr.RemapColumns(e, func(i int) int {
					if i < nl {
						return i
					}
					return i - nl + ll
				})
			}), o)
			return &c
		case toRight && allIn(reads, ll, nl) && rows >= estimateRows(x.Right, o):
			rl := nl - ll
			c := *x
			c.Right = pushSemiJoins(semiOver(j, x.Right, func(e expr.Expr) expr.Expr {
				return expr.RemapColumns(e, func(i int) int {
					if i < nl {
						return i - ll
					}
					return i - nl + rl
				})
			}), o)
			return &c
		}
	}
	return nil
}

// semiOver is j with left as its left input; remap moves an expression over j's left++right
// columns onto left++right.
func semiOver(j *logical.Join, left logical.Node, remap func(expr.Expr) expr.Expr) *logical.Join {
	s := &logical.Join{Left: left, Right: j.Right, Type: j.Type, RightKeys: j.RightKeys, Out: left.Schema(),
		LeftHint: j.LeftHint, RightHint: j.RightHint}
	for _, k := range j.LeftKeys {
		s.LeftKeys = append(s.LeftKeys, remap(k))
	}
	if j.Residual != nil {
		s.Residual = remap(j.Residual)
	}
	return s
}

// leftColumnsRead are the columns of j's left input (below nl) its keys and residual read.
func leftColumnsRead(j *logical.Join, nl int) map[int]bool {
	reads := map[int]bool{}
	for _, k := range j.LeftKeys {
		for c := range expr.ColumnsOf(k, nil) {
			reads[c] = true
		}
	}
	if j.Residual != nil {
		for c := range expr.ColumnsOf(j.Residual, nil) {
			if c < nl {
				reads[c] = true
			}
		}
	}
	return reads
}

func allIn(cols map[int]bool, lo, hi int) bool {
	for c := range cols {
		if c < lo || c >= hi {
			return false
		}
	}
	return true
}
