package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// pushFilters moves Filter conjuncts as far down as they validly go, turns outer joins that a
// filter above makes inner into inner joins, extracts join keys and pushes single-side join
// conditions (see doc.go, batch 2).
func pushFilters(n logical.Node, _ *Options) logical.Node {
	return transformUp(n, func(n logical.Node) logical.Node {
		switch x := n.(type) {
		case *logical.Filter:
			return push(x.Input, expr.Conjuncts(x.Cond))
		case *logical.Join:
			return pushJoinCondition(x)
		}
		return n
	})
}

// push returns n with conds (conjuncts over n's output) applied, each as deep under n as it
// may validly go.
func push(n logical.Node, conds []expr.Expr) logical.Node {
	if len(conds) == 0 {
		return n
	}
	conds = factorDisjunctions(conds)
	// Conjuncts that may not move, and those reading no column (folded by simplify, and
	// pushing them under an aggregation would change a global aggregate's one row), stay.
	var stay, move []expr.Expr
	for _, c := range conds {
		if movable(c) && readsColumns(c) {
			move = append(move, c)
		} else {
			stay = append(stay, c)
		}
	}
	if len(move) == 0 {
		return filterOver(n, stay)
	}
	streaming := logical.IsStreaming(n)
	below, above := move, []expr.Expr(nil)
	var out logical.Node
	switch x := n.(type) {
	case *logical.Filter:
		inner := expr.Conjuncts(x.Cond)
		for _, c := range inner {
			if !movable(c) {
				// The rows a nondeterministic condition sees must not change.
				return filterOver(n, conds)
			}
		}
		return filterOver(push(x.Input, append(inner, move...)), stay)
	case *logical.Project:
		for _, e := range x.Exprs {
			if !expr.IsDeterministic(e) {
				// The rows a nondeterministic projection sees must not change.
				return filterOver(n, conds)
			}
		}
		below, above = nil, nil
		for _, c := range move {
			if s, ok := substituteProject(c, x.Exprs); ok {
				below = append(below, s)
			} else {
				above = append(above, c)
			}
		}
		out = &logical.Project{Input: push(x.Input, below), Exprs: x.Exprs}
	case *logical.Union:
		ins := make([]logical.Node, len(x.Inputs))
		for i, in := range x.Inputs {
			var cs []expr.Expr
			for _, c := range move {
				cs = append(cs, expr.ReplaceColumns(c, func(col *expr.Column) expr.Expr { return columnRef(in, col.Index) }))
			}
			ins[i] = push(in, cs)
		}
		out = &logical.Union{Inputs: ins, Out: x.Out}
	case *logical.SourceScan:
		c := *x
		c.Filters = append([]expr.Expr(nil), x.Filters...)
		for _, m := range move {
			if !containsExpr(c.Filters, m) {
				c.Filters = append(c.Filters, m)
			}
		}
		// The scan's filters are advisory: the Filter stays.
		return filterOver(&c, conds)
	default:
		if streaming {
			return filterOver(n, conds)
		}
		out = pushBatch(n, move)
		if out == nil {
			return filterOver(n, conds)
		}
		return filterOver(out, stay)
	}
	return filterOver(filterOver(out, above), stay)
}

// pushBatch pushes conds under a node of a batch plan; nil when n is not one it pushes under.
func pushBatch(n logical.Node, conds []expr.Expr) logical.Node {
	switch x := n.(type) {
	case *logical.Sort:
		return &logical.Sort{Input: push(x.Input, conds), Keys: x.Keys, Global: x.Global}
	case *logical.Repartition:
		c := *x
		c.Input = push(x.Input, conds)
		return &c
	case *logical.Distinct:
		below, above := split(conds, func(c expr.Expr) bool {
			if x.Keys == nil {
				return true
			}
			for col := range expr.ColumnsOf(c, nil) {
				if !containsInt(x.Keys, col) {
					return false
				}
			}
			return true
		})
		c := *x
		c.Input = push(x.Input, below)
		return filterOver(&c, above)
	case *logical.Aggregate:
		for _, a := range x.Aggs {
			for _, e := range a.Args() {
				if !expr.IsDeterministic(e) {
					return nil
				}
			}
		}
		var below, above []expr.Expr
		for _, c := range conds {
			if s, ok := substituteAggregate(c, x); ok {
				below = append(below, s)
			} else {
				above = append(above, c)
			}
		}
		c := *x
		c.Input = push(x.Input, below)
		return filterOver(&c, above)
	case *logical.Generate:
		nin := len(x.Input.Schema())
		below, above := split(conds, func(c expr.Expr) bool { return within(c, 0, nin) })
		c := *x
		c.Input = push(x.Input, below)
		return filterOver(&c, above)
	case *logical.PythonEval:
		nin := len(x.Input.Schema())
		below, above := split(conds, func(c expr.Expr) bool { return within(c, 0, nin) })
		c := *x
		c.Input = push(x.Input, below)
		return filterOver(&c, above)
	case *logical.Join:
		return pushIntoJoin(x, conds)
	}
	return nil
}

// substituteProject rewrites c, over a Project's output, over its input: each column
// replaced by the projected expression; false when one of those may not move.
func substituteProject(c expr.Expr, exprs []expr.Expr) (expr.Expr, bool) {
	for col := range expr.ColumnsOf(c, nil) {
		if !movable(exprs[col]) {
			return nil, false
		}
	}
	return expr.ReplaceColumns(c, func(col *expr.Column) expr.Expr { return stripAlias(exprs[col.Index]) }), true
}

// substituteAggregate rewrites c, over an Aggregate's output, over its input when it reads
// grouping columns only (a grouped aggregation: a filter on a global aggregate's one row
// stays above).
func substituteAggregate(c expr.Expr, a *logical.Aggregate) (expr.Expr, bool) {
	if len(a.Groups) == 0 || !within(c, 0, len(a.Groups)) {
		return nil, false
	}
	return substituteProject(c, a.Groups)
}

// split partitions conds by pred.
func split(conds []expr.Expr, pred func(expr.Expr) bool) (yes, no []expr.Expr) {
	for _, c := range conds {
		if pred(c) {
			yes = append(yes, c)
		} else {
			no = append(no, c)
		}
	}
	return yes, no
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func containsExpr(es []expr.Expr, e expr.Expr) bool {
	for _, x := range es {
		if sameExpr(x, e) {
			return true
		}
	}
	return false
}

// factorDisjunctions rewrites each conjunct (A AND B) OR (A AND C) as A AND (B OR C): the
// conjuncts every disjunct shares come out (so that a shared join equality becomes a key,
// TPC-H Q19).
func factorDisjunctions(conds []expr.Expr) []expr.Expr {
	var out []expr.Expr
	for _, c := range conds {
		if !expr.IsOr(c) || !movable(c) {
			out = append(out, c)
			continue
		}
		ds := expr.Disjuncts(c)
		sets := make([][]expr.Expr, len(ds))
		for i, d := range ds {
			sets[i] = expr.Conjuncts(d)
		}
		var common []expr.Expr
		for _, x := range sets[0] {
			shared := !containsExpr(common, x)
			for _, s := range sets[1:] {
				shared = shared && containsExpr(s, x)
			}
			if shared {
				common = append(common, x)
			}
		}
		if len(common) == 0 {
			out = append(out, c)
			continue
		}
		out = append(out, common...)
		var rest []expr.Expr
		trivial := false
		for _, s := range sets {
			var left []expr.Expr
			for _, x := range s {
				if !containsExpr(common, x) {
					left = append(left, x)
				}
			}
			if len(left) == 0 {
				// One disjunct is just the common part: the OR adds nothing.
				trivial = true
				break
			}
			rest = append(rest, expr.AndAll(left))
		}
		if !trivial {
			out = append(out, expr.OrAll(rest))
		}
	}
	return out
}
