package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// pruneColumns drops the columns no operator reads, down to the scans (doc.go, batch 6). The
// plan's own output is kept whole.
func pruneColumns(n logical.Node, _ *Options) logical.Node {
	out, _ := prune(n, colRange(0, len(n.Schema())))
	return out
}

// identity is the mapping of a node that keeps its n columns.
func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// pruneAll keeps n's columns and prunes under it (every column of each child required), or
// leaves n intact when it is not a node the optimizer knows.
func pruneAll(n logical.Node) (logical.Node, []int) {
	m := identity(len(n.Schema()))
	if !known(n) {
		return n, m
	}
	cs := n.Children()
	ncs := make([]logical.Node, len(cs))
	for i, c := range cs {
		ncs[i] = exact(c, colRange(0, len(c.Schema())))
	}
	out, _ := withChildren(n, ncs)
	return out, m
}

// exact prunes n to exactly the columns req (in order), adding a Project when n keeps more.
func exact(n logical.Node, req map[int]bool) logical.Node {
	out, m := prune(n, req)
	width := len(out.Schema())
	if width == len(req) {
		return out
	}
	var proj []expr.Expr
	for i := range n.Schema() {
		if req[i] {
			proj = append(proj, columnRef(out, m[i]))
		}
	}
	return &logical.Project{Input: out, Exprs: proj}
}

// narrow prunes n to the columns req and, when what is left still holds more (a Filter keeps
// the columns its condition reads, a CSV scan all of its own), projects exactly req on top: a
// join's hash table and exchange then carry only what is read above them (TPC-H Q13's orders
// side kept o_comment, read only by the filter under the join).
func narrow(n logical.Node, req map[int]bool) (logical.Node, []int) {
	out, m := prune(n, req)
	if len(out.Schema()) <= len(req) {
		return out, m
	}
	var proj []expr.Expr
	nm := make([]int, len(m))
	for i := range m {
		nm[i] = -1
		if req[i] && m[i] >= 0 {
			nm[i] = len(proj)
			proj = append(proj, columnRef(out, m[i]))
		}
	}
	return &logical.Project{Input: out, Exprs: proj}, nm
}

// remapWith rewrites e (over a node's old output) over its pruned output.
func remapWith(e expr.Expr, m []int) expr.Expr {
	return expr.RemapColumns(e, func(i int) int { return m[i] })
}

// prune returns n narrowed to (at least) the columns req, and where each old column went (-1:
// dropped).
func prune(n logical.Node, req map[int]bool) (logical.Node, []int) {
	switch x := n.(type) {
	case *logical.SourceScan:
		if x.Streaming || x.Format != "parquet" || len(req) == 0 || len(req) == len(x.Out) {
			return n, identity(len(x.Out))
		}
		// Pushed filters read their columns too (the Filter above requires them anyway).
		for _, f := range x.Filters {
			expr.ColumnsOf(f, req)
		}
		m := make([]int, len(x.Out))
		c := *x
		c.Out = nil
		for i, f := range x.Out {
			m[i] = -1
			if req[i] {
				m[i] = len(c.Out)
				c.Out = append(c.Out, f)
			}
		}
		c.Filters = nil
		for _, f := range x.Filters {
			c.Filters = append(c.Filters, remapWith(f, m))
		}
		return &c, m
	case *logical.Project:
		if !allRewritable(x.Exprs) {
			return pruneAll(n)
		}
		need := map[int]bool{}
		var kept []int
		for i, e := range x.Exprs {
			if req[i] || (len(req) == 0 && i == 0) {
				kept = append(kept, i)
				expr.ColumnsOf(e, need)
			}
		}
		in, im := prune(x.Input, need)
		m := make([]int, len(x.Exprs))
		for i := range m {
			m[i] = -1
		}
		exprs := make([]expr.Expr, len(kept))
		for k, i := range kept {
			exprs[k] = remapWith(x.Exprs[i], im)
			m[i] = k
		}
		return &logical.Project{Input: in, Exprs: exprs}, m
	case *logical.Filter:
		if !expr.Rewritable(x.Cond) {
			return pruneAll(n)
		}
		need := copySet(req)
		expr.ColumnsOf(x.Cond, need)
		in, im := prune(x.Input, need)
		return &logical.Filter{Input: in, Cond: remapWith(x.Cond, im)}, im
	case *logical.Sort:
		need := copySet(req)
		for _, k := range x.Keys {
			if !expr.Rewritable(k.Expr) {
				return pruneAll(n)
			}
			expr.ColumnsOf(k.Expr, need)
		}
		in, im := prune(x.Input, need)
		c := *x
		c.Input = in
		c.Keys = make([]logical.SortKey, len(x.Keys))
		for i, k := range x.Keys {
			k.Expr = remapWith(k.Expr, im)
			c.Keys[i] = k
		}
		return &c, im
	case *logical.Limit:
		in, im := prune(x.Input, req)
		c := *x
		c.Input = in
		return &c, im
	case *logical.Aggregate:
		return pruneAggregate(x)
	case *logical.Join:
		return pruneJoin(x, req)
	}
	return pruneAll(n)
}

// pruneAggregate keeps the aggregate's output and narrows its input to what its groups and
// aggregate arguments read.
func pruneAggregate(x *logical.Aggregate) (logical.Node, []int) {
	need := map[int]bool{}
	if !allRewritable(x.Groups) {
		return pruneAll(x)
	}
	for _, g := range x.Groups {
		expr.ColumnsOf(g, need)
	}
	for _, a := range x.Aggs {
		if !allRewritable(a.Args()) {
			return pruneAll(x)
		}
		for _, e := range a.Args() {
			expr.ColumnsOf(e, need)
		}
	}
	if len(need) == 0 && len(x.Input.Schema()) > 0 {
		need[0] = true // keep one column: the rows still count
	}
	in, im := prune(x.Input, need)
	c := *x
	c.Input = in
	c.Groups = make([]expr.Expr, len(x.Groups))
	for i, g := range x.Groups {
		c.Groups[i] = remapWith(g, im)
	}
	c.Aggs = make([]expr.AggFunc, len(x.Aggs))
	for i, a := range x.Aggs {
		args := make([]expr.Expr, len(a.Args()))
		for k, e := range a.Args() {
			args[k] = remapWith(e, im)
		}
		c.Aggs[i] = expr.AggWithArgs(a, args)
	}
	return &c, identity(len(x.Schema()))
}

// pruneJoin narrows each side to the output columns required and the columns its keys and the
// residual read. A stream-stream join keeps its sides whole (their rows are its state).
func pruneJoin(x *logical.Join, req map[int]bool) (logical.Node, []int) {
	if logical.IsStreaming(x.Left) && logical.IsStreaming(x.Right) {
		return pruneAll(x)
	}
	if !allRewritable(x.LeftKeys) || !allRewritable(x.RightKeys) || (x.Residual != nil && !expr.Rewritable(x.Residual)) {
		return pruneAll(x)
	}
	nl := len(x.Left.Schema())
	nr := len(x.Right.Schema())
	needL, needR := map[int]bool{}, map[int]bool{}
	all := copySet(req)
	if x.Residual != nil {
		expr.ColumnsOf(x.Residual, all)
	}
	for i := range all {
		if i < nl {
			needL[i] = true
		} else {
			needR[i-nl] = true
		}
	}
	for _, k := range x.LeftKeys {
		expr.ColumnsOf(k, needL)
	}
	for _, k := range x.RightKeys {
		expr.ColumnsOf(k, needR)
	}
	if len(needL) == 0 && nl > 0 {
		needL[0] = true
	}
	if len(needR) == 0 && nr > 0 {
		needR[0] = true
	}
	l, lm := narrow(x.Left, needL)
	r, rm := narrow(x.Right, needR)
	nlNew := len(l.Schema())
	// m covers both sides (a semi or anti join's residual reads the right side too); the
	// output mapping is its first len(x.Out) entries.
	m := make([]int, nl+nr)
	for i := range m {
		switch {
		case i < nl:
			m[i] = lm[i]
		case lmOK(rm, i-nl):
			m[i] = rm[i-nl] + nlNew
		default:
			m[i] = -1
		}
	}
	c := *x
	c.Left, c.Right = l, r
	c.LeftKeys = make([]expr.Expr, len(x.LeftKeys))
	c.RightKeys = make([]expr.Expr, len(x.RightKeys))
	for i := range x.LeftKeys {
		c.LeftKeys[i] = remapWith(x.LeftKeys[i], lm)
		c.RightKeys[i] = remapWith(x.RightKeys[i], rm)
	}
	if x.Residual != nil {
		c.Residual = remapWith(x.Residual, m)
	}
	// The output is the kept columns (every column of the new sides), with the join's
	// nullability.
	m = m[:len(x.Out)]
	outFields := make(sqltypes.Schema, 0)
	for i := range m {
		if m[i] >= 0 {
			outFields = append(outFields, x.Out[i])
		}
	}
	c.Out = outFields
	return &c, m
}

func lmOK(m []int, i int) bool { return i < len(m) && m[i] >= 0 }

func copySet(s map[int]bool) map[int]bool {
	out := make(map[int]bool, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

func allRewritable(es []expr.Expr) bool {
	for _, e := range es {
		if !expr.Rewritable(e) {
			return false
		}
	}
	return true
}
