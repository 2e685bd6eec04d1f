package parser

import (
	"strings"

	"github.com/weirhq/weir/sql/plan"
)

// rewriteExpr rewrites e top-down: f returns (replacement, true) to replace a node (its
// children are not visited), or (nil, false) to keep it and visit its children. Relations inside
// subquery expressions are not visited.
func rewriteExpr(e plan.Expr, f func(plan.Expr) (plan.Expr, bool)) plan.Expr {
	if e == nil {
		return nil
	}
	if r, ok := f(e); ok {
		return r
	}
	rw := func(x plan.Expr) plan.Expr { return rewriteExpr(x, f) }
	all := func(xs []plan.Expr) []plan.Expr {
		if xs == nil {
			return nil
		}
		out := make([]plan.Expr, len(xs))
		for i, x := range xs {
			out[i] = rw(x)
		}
		return out
	}
	sorts := func(xs []plan.SortOrder) []plan.SortOrder {
		if xs == nil {
			return nil
		}
		out := make([]plan.SortOrder, len(xs))
		for i, s := range xs {
			s.Child = rw(s.Child)
			out[i] = s
		}
		return out
	}
	bound := func(b *plan.FrameBound) *plan.FrameBound {
		if b == nil {
			return nil
		}
		c := *b
		c.Offset = rw(c.Offset)
		return &c
	}
	switch x := e.(type) {
	case plan.Call:
		x.Args = all(x.Args)
		x.Filter = rw(x.Filter)
		if x.WithinGroup != nil {
			ws := make([]plan.SortOrder, len(x.WithinGroup))
			for i, s := range x.WithinGroup {
				ws[i] = s
				ws[i].Child = rw(s.Child)
			}
			x.WithinGroup = ws
		}
		return x
	case plan.Alias:
		x.Child = rw(x.Child)
		return x
	case plan.Cast:
		x.Child = rw(x.Child)
		return x
	case plan.SortOrder:
		x.Child = rw(x.Child)
		return x
	case plan.ExtractValue:
		x.Child = rw(x.Child)
		x.Extraction = rw(x.Extraction)
		return x
	case plan.Lambda:
		x.Body = rw(x.Body)
		return x
	case plan.InSubquery:
		x.Values = all(x.Values)
		return x
	case plan.Window:
		x.Func = rw(x.Func)
		x.PartitionBy = all(x.PartitionBy)
		x.OrderBy = sorts(x.OrderBy)
		if x.Frame != nil {
			fr := *x.Frame
			fr.Lower, fr.Upper = bound(fr.Lower), bound(fr.Upper)
			x.Frame = &fr
		}
		return x
	}
	return e
}

// bindLambdaVars turns references to params in body into lambda variables. Nested lambdas
// were bound first, so their own parameters are already LambdaVars.
func bindLambdaVars(body plan.Expr, params []string) plan.Expr {
	isParam := func(n string) bool {
		for _, p := range params {
			if strings.EqualFold(p, n) {
				return true
			}
		}
		return false
	}
	return rewriteExpr(body, func(e plan.Expr) (plan.Expr, bool) {
		ref, ok := e.(plan.ColumnRef)
		if !ok || ref.PlanID != 0 || !isParam(ref.Name[0]) {
			return nil, false
		}
		var out plan.Expr = plan.LambdaVar{Name: ref.Name[0]}
		for _, f := range ref.Name[1:] {
			out = plan.ExtractValue{Child: out, Extraction: stringLiteral(f)}
		}
		return out, true
	})
}

// containsCall reports whether e calls one of names (lower-case), outside window functions
// and subqueries.
func containsCall(e plan.Expr, names map[string]bool) bool {
	found := false
	rewriteExpr(e, func(e plan.Expr) (plan.Expr, bool) {
		switch x := e.(type) {
		case plan.Window:
			// The window function itself is not a grouping aggregate, but its arguments
			// (sum(sum(x)) OVER …) and partition/order keys may contain aggregates.
			if c, ok := x.Func.(plan.Call); ok {
				for _, a := range c.Args {
					found = found || containsCall(a, names)
				}
			}
			for _, a := range x.PartitionBy {
				found = found || containsCall(a, names)
			}
			for _, s := range x.OrderBy {
				found = found || containsCall(s.Child, names)
			}
			return e, true
		case plan.Call:
			if names[strings.ToLower(x.Name)] {
				found = true
				return e, true
			}
		}
		return nil, false
	})
	return found
}

// RewriteExpr is rewriteExpr for other packages: it rewrites e top-down, f returning
// (replacement, true) to replace a node or (nil, false) to visit its children.
func RewriteExpr(e plan.Expr, f func(plan.Expr) (plan.Expr, bool)) plan.Expr {
	return rewriteExpr(e, f)
}
