package optimizer

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// movable reports whether e may be moved to another place in the plan or rewritten.
func movable(e expr.Expr) bool { return expr.IsDeterministic(e) && expr.Rewritable(e) }

// within reports whether every column e reads is in [lo, hi).
func within(e expr.Expr, lo, hi int) bool {
	for c := range expr.ColumnsOf(e, nil) {
		if c < lo || c >= hi {
			return false
		}
	}
	return true
}

// readsColumns reports whether e reads any input column.
func readsColumns(e expr.Expr) bool { return len(expr.ColumnsOf(e, nil)) > 0 }

// sameExpr reports whether a and b are the same expression: the same rendering over the same
// columns in the same places.
func sameExpr(a, b expr.Expr) bool {
	return a.String() == b.String() && columnTrace(a) == columnTrace(b)
}

// columnTrace lists the column indices e reads, in tree order.
func columnTrace(e expr.Expr) string {
	var b strings.Builder
	var walk func(expr.Expr)
	walk = func(x expr.Expr) {
		if c, ok := x.(*expr.Column); ok {
			b.WriteString(strconv.Itoa(c.Index))
			b.WriteByte(',')
			return
		}
		b.WriteByte('(')
		for _, ch := range x.Children() {
			walk(ch)
		}
		b.WriteByte(')')
	}
	walk(e)
	return b.String()
}

// columnRef is a reference to field i of schema s.
func columnRef(n logical.Node, i int) *expr.Column {
	f := n.Schema()[i]
	return &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
}

// stripAlias is e without its aliases.
func stripAlias(e expr.Expr) expr.Expr {
	for {
		a, ok := e.(*expr.Alias)
		if !ok {
			return e
		}
		e = a.Child
	}
}

// filterOver is a Filter of conds (conjuncts) over n, or n when conds is empty.
func filterOver(n logical.Node, conds []expr.Expr) logical.Node {
	if len(conds) == 0 {
		return n
	}
	return &logical.Filter{Input: n, Cond: expr.AndAll(conds)}
}
