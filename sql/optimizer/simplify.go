package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// simplify folds constants and simplifies boolean logic in Filter conditions, join residuals
// and Project expressions (a changed projection keeps its column name through an alias), and
// removes Filters on true.
func simplify(n logical.Node, o *Options) logical.Node {
	return transformUp(n, func(n logical.Node) logical.Node {
		switch x := n.(type) {
		case *logical.Filter:
			c := simplifyExpr(x.Cond, o)
			if v, ok := expr.BoolValue(c); ok && v {
				return x.Input
			}
			if c == x.Cond {
				return x
			}
			return &logical.Filter{Input: x.Input, Cond: c}
		case *logical.Join:
			if x.Residual == nil {
				return x
			}
			r := simplifyExpr(x.Residual, o)
			if v, ok := expr.BoolValue(r); ok && v {
				r = nil
			}
			if r == x.Residual {
				return x
			}
			c := *x
			c.Residual = r
			return &c
		case *logical.Project:
			if inner, ok := x.Input.(*logical.Project); ok {
				if merged, ok := collapseProjects(x, inner); ok {
					return merged
				}
			}
			var out []expr.Expr
			for i, e := range x.Exprs {
				s := simplifyExpr(e, o)
				if s == e {
					continue
				}
				if out == nil {
					out = append([]expr.Expr(nil), x.Exprs...)
				}
				if _, isAlias := s.(*expr.Alias); !isAlias {
					s = &expr.Alias{Child: s, Name: expr.OutputName(e)}
				}
				out[i] = s
			}
			if out == nil {
				return x
			}
			return &logical.Project{Input: x.Input, Exprs: out}
		}
		return n
	})
}

// simplifyExpr folds e's constant subtrees and simplifies its boolean operators, bottom-up.
func simplifyExpr(e expr.Expr, o *Options) expr.Expr {
	if !expr.Rewritable(e) {
		return e
	}
	return expr.Transform(e, func(x expr.Expr) expr.Expr {
		switch {
		case expr.IsAnd(x), expr.IsOr(x):
			if s, ok := simplifyLogic(x); ok {
				return s
			}
		case expr.IsNot(x):
			if v, ok := expr.BoolValue(x.Children()[0]); ok {
				return boolLit(!v)
			}
		}
		// Children are simplified first, so a constant child is a literal by now: only a node
		// over literals can fold, which keeps the walk linear on deep trees (50,000 ANDs).
		if o.Expr != nil && childrenAreLiterals(x) && expr.IsDeterministic(x) {
			if f, ok := expr.Fold(o.Expr, x); ok {
				return f
			}
		}
		return x
	})
}

// childrenAreLiterals reports whether every direct child of x is a literal (true for a leaf).
func childrenAreLiterals(x expr.Expr) bool {
	for _, c := range x.Children() {
		if _, ok := c.(*expr.Literal); !ok {
			return false
		}
	}
	return true
}

// simplifyLogic applies x AND true = x, x AND false = false, x OR true = true, x OR false = x
// (NULL operands are left alone: NULL AND false is false but NULL AND true is NULL).
func simplifyLogic(x expr.Expr) (expr.Expr, bool) {
	cs := x.Children()
	and := expr.IsAnd(x)
	for i, c := range cs {
		v, ok := expr.BoolValue(c)
		if !ok {
			continue
		}
		other := cs[1-i]
		switch {
		case and && v, !and && !v:
			// The identity: the other operand decides, but its type must be boolean.
			if other.Type().Kind == sqltypes.Boolean {
				return other, true
			}
		case and && !v:
			return boolLit(false), true
		default:
			return boolLit(true), true
		}
	}
	return x, false
}

func boolLit(v bool) expr.Expr { return expr.NewLiteral(v, sqltypes.BooleanType) }

// collapseProjects merges a Project that only selects columns into the Project under it.
func collapseProjects(outer, inner *logical.Project) (logical.Node, bool) {
	exprs := make([]expr.Expr, len(outer.Exprs))
	names := inner.Schema()
	for i, e := range outer.Exprs {
		c, ok := e.(*expr.Column)
		if !ok || c.Name != names[c.Index].Name {
			return nil, false
		}
		exprs[i] = inner.Exprs[c.Index]
	}
	return &logical.Project{Input: inner.Input, Exprs: exprs}, true
}
