package analyzer

import (
	"strings"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// column is one output column of a resolved node, as name resolution sees it.
type column struct {
	name      string
	qualifier []string
	// alsoQualified are further qualifiers the column answers to: the USING column of an inner
	// join is both sides' column.
	alsoQualified [][]string
	// planIDs are the plan ids of the relations this column flows out of, nearest first.
	planIDs  []int64
	typ      sqltypes.DataType
	nullable bool
	// hidden columns (a scalar subquery's value joined in) are not visible by name or star.
	hidden bool
	// udf is the Python function call whose result the (hidden) column holds, udfName the
	// call's column name (f(x)), udfKey its pythonFuncKey ("" for a nondeterministic call).
	udf     *plan.PythonUDF
	udfName string
	udfKey  string
}

// resolved is a resolved node with its scope: cols[i] describes node.Schema()[i].
type resolved struct {
	node logical.Node
	cols []column
}

// newResolved wraps a node whose columns have no qualifier and no plan ids.
func newResolved(n logical.Node) *resolved {
	s := n.Schema()
	cols := make([]column, len(s))
	for i, f := range s {
		cols[i] = column{name: f.Name, typ: f.Type, nullable: f.Nullable}
	}
	return &resolved{node: n, cols: cols}
}

// withPlanID tags every column with the plan id of the relation that produced the node.
func (r *resolved) withPlanID(id int64) *resolved {
	if id == 0 {
		return r
	}
	cols := make([]column, len(r.cols))
	for i, c := range r.cols {
		c.planIDs = append([]int64{id}, c.planIDs...)
		cols[i] = c
	}
	return &resolved{node: r.node, cols: cols}
}

// withQualifier replaces every column's qualifier.
func (r *resolved) withQualifier(q []string) *resolved {
	cols := make([]column, len(r.cols))
	for i, c := range r.cols {
		c.qualifier = q
		c.alsoQualified = nil
		cols[i] = c
	}
	return &resolved{node: r.node, cols: cols}
}

// ref is a bound reference to column i of r.
func (r *resolved) ref(i int) *expr.Column {
	c := r.cols[i]
	return &expr.Column{Index: i, Name: c.name, T: c.typ, Null: c.nullable}
}

// allRefs references every column of r, in order.
func (r *resolved) allRefs() []expr.Expr {
	out := make([]expr.Expr, len(r.cols))
	for i := range r.cols {
		out[i] = r.ref(i)
	}
	return out
}

// visibleRefs references every column of r but the hidden ones, in order.
func (r *resolved) visibleRefs() []expr.Expr {
	var out []expr.Expr
	for i, c := range r.cols {
		if !c.hidden {
			out = append(out, r.ref(i))
		}
	}
	return out
}

// project builds a Project of exprs over r; output columns that are plain references to an
// input column keep that column's qualifier and plan ids.
func (r *resolved) project(exprs []expr.Expr) *resolved {
	p := &logical.Project{Input: r.node, Exprs: exprs}
	if isIdentity(r, exprs) {
		return r
	}
	out := newResolved(p)
	for i, e := range exprs {
		if c, ok := e.(*expr.Column); ok {
			out.cols[i].qualifier = r.cols[c.Index].qualifier
			out.cols[i].alsoQualified = r.cols[c.Index].alsoQualified
			out.cols[i].planIDs = r.cols[c.Index].planIDs
		}
	}
	return out
}

// isIdentity reports whether exprs reference exactly r's columns in order under their names.
func isIdentity(r *resolved, exprs []expr.Expr) bool {
	if len(exprs) != len(r.cols) {
		return false
	}
	for i, e := range exprs {
		c, ok := e.(*expr.Column)
		if !ok || c.Index != i || c.Name != r.cols[i].name {
			return false
		}
	}
	return true
}

// nameEq compares identifiers under the analyzer's case sensitivity.
func (a *Analyzer) nameEq(x, y string) bool {
	if a.CaseSensitive {
		return x == y
	}
	return strings.EqualFold(x, y)
}

// qualifierMatches reports whether q ends with want (Spark matches a table alias, a table name
// or a longer qualified name against the column's full qualifier).
func (a *Analyzer) qualifierMatches(q, want []string) bool {
	if len(want) > len(q) {
		return false
	}
	off := len(q) - len(want)
	for i, w := range want {
		if !a.nameEq(q[off+i], w) {
			return false
		}
	}
	return true
}

// columnsCarrying lists the columns that flow out of the relation with plan id id.
func columnsCarrying(cols []column, id int64) []int {
	var out []int
	for i, c := range cols {
		if c.hidden {
			continue
		}
		for _, p := range c.planIDs {
			if p == id {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// columnsWithPlanID restricts candidate column indexes to those coming from the relation with
// plan id id, keeping the nearest occurrences. It returns nil if no column carries the id.
func columnsWithPlanID(cols []column, idx []int, id int64) []int {
	best := -1
	var out []int
	for _, i := range idx {
		for d, p := range cols[i].planIDs {
			if p != id {
				continue
			}
			switch {
			case best < 0 || d < best:
				best = d
				out = []int{i}
			case d == best:
				out = append(out, i)
			}
			break
		}
	}
	return out
}

// answersTo reports whether column c is qualified by q (any of its qualifiers).
func (a *Analyzer) answersTo(c column, q []string) bool {
	if a.qualifierMatches(c.qualifier, q) {
		return true
	}
	for _, alt := range c.alsoQualified {
		if a.qualifierMatches(alt, q) {
			return true
		}
	}
	return false
}
