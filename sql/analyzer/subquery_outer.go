package analyzer

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Outer references of correlated subqueries.
//
// A subquery is resolved by a copy of the analyzer whose sub field names the enclosing query's
// scope (the relation the subquery's rows are matched against). A column name that does not
// resolve inside the subquery is looked up there (Spark's outer reference) and bound as an
// *outerRef. A WHERE conjunct that reads outer references is not evaluated where it stands:
// it is recorded as a correlated predicate (corrPred) at a fresh Filter (its marker), and the
// rewrite (subquery_pullup.go) carries the inner columns it reads up to the subquery's output
// so that the predicate becomes part of the join condition that replaces the subquery.
// An outer reference anywhere else is refused with Spark's error.

// subqueryScope is one level of subquery nesting being resolved.
type subqueryScope struct {
	// outer is the enclosing query's scope the subquery's outer references resolve in.
	outer *resolved
	// preds are the correlated predicates found so far, in order.
	preds []*corrPred
}

// corrPred is a correlated WHERE conjunct taken out of its Filter.
type corrPred struct {
	cond plan.Expr
	// scope is the Filter's input: the inner names of cond resolve in it; outer is the
	// enclosing query's scope, where its other names resolve.
	scope, outer *resolved
	// marker is the Filter node that stands where cond was (its Cond holds the local conjuncts,
	// or is literal true); the pull-up finds it by identity.
	marker *logical.Filter
	// bound is cond bound over scope (outer references as *outerRef), for messages.
	bound expr.Expr
	// reads are the columns of scope cond reads.
	reads []int
	// equality is true when cond is inner-expression = outer-expression (a grouping key when
	// pulled through an aggregate).
	equality bool
}

// outerRef is a column of an enclosing query read inside a subquery. It only exists while a
// subquery is being resolved: the rewrite replaces it by a reference to the join's left side.
type outerRef struct {
	scope *subqueryScope
	col   *expr.Column
}

// Type implements expr.Expr.
func (o *outerRef) Type() sqltypes.DataType { return o.col.T }

// Nullable implements expr.Expr.
func (o *outerRef) Nullable() bool { return o.col.Null }

// String implements expr.Expr: Spark renders an outer reference as outer(name).
func (o *outerRef) String() string { return "outer(" + o.col.Name + ")" }

// Children implements expr.Expr: an outer reference reads no column of its own input.
func (o *outerRef) Children() []expr.Expr { return nil }

// Eval implements expr.Expr; an outer reference is never evaluated.
func (o *outerRef) Eval(*expr.Context, arrow.RecordBatch) (arrow.Array, error) {
	return nil, sparkerr.Internal("analyzer: outer reference %s left in a plan", o.col.Name)
}

// outerColumn resolves ref, which did not resolve in the subquery's own scope (err), as an
// outer reference to the enclosing query's scope. handled is false when there is no enclosing
// scope or it has no such name (as in Spark, a subquery reads its immediately enclosing query
// only: a name two levels out is UNRESOLVED_COLUMN).
func (a *Analyzer) outerColumn(ref plan.ColumnRef, err error) (x expr.Expr, handled bool, _ error) {
	if a.sub == nil || !isUnresolvedColumn(err) {
		return nil, false, nil
	}
	s := a.sub
	idx, rest, ok := a.lookup(s.outer, ref)
	if !ok {
		return nil, false, nil
	}
	if len(idx) > 1 {
		return nil, true, ambiguousReference(ref.Name, s.outer, idx)
	}
	x, err = extractFields(&outerRef{scope: s, col: s.outer.ref(idx[0])}, rest)
	if err != nil || len(rest) == 0 {
		return x, true, err
	}
	return &expr.Alias{Child: x, Name: rest[len(rest)-1]}, true, nil
}

// outerPlanID is Spark's CANNOT_RESOLVE_DATAFRAME_COLUMN for a DataFrame column of the enclosing
// query (df.k.outer() with df outside) read inside a subquery: Spark resolves a column with a
// plan id only in the relation that has it, and the name alone would find the subquery's own
// column of that name.
func (a *Analyzer) outerPlanID(r *resolved, ref plan.ColumnRef) error {
	if a.sub == nil || ref.PlanID == 0 || len(columnsCarrying(r.cols, ref.PlanID)) > 0 ||
		len(columnsCarrying(a.sub.outer.cols, ref.PlanID)) == 0 {
		return nil
	}
	name := strings.Join(ref.Name, ".")
	return sparkerr.Analysis("CANNOT_RESOLVE_DATAFRAME_COLUMN", "42704",
		"Cannot resolve dataframe column %q. It's probably because of illegal references like `df1.select(df2.col(\"a\"))`.", name).
		WithParams("name", name)
}

// outerRefsIn lists the outer references e reads.
func outerRefsIn(e expr.Expr) []*outerRef {
	var out []*outerRef
	var walk func(expr.Expr)
	walk = func(x expr.Expr) {
		if o, ok := x.(*outerRef); ok {
			out = append(out, o)
			return
		}
		for _, c := range x.Children() {
			walk(c)
		}
	}
	walk(e)
	return out
}

// columnsRead lists the input columns e reads (outer references excluded), without repeats.
func columnsRead(e expr.Expr) []int {
	var out []int
	seen := map[int]bool{}
	var walk func(expr.Expr)
	walk = func(x expr.Expr) {
		switch c := x.(type) {
		case *outerRef:
			return
		case *expr.Column:
			if !seen[c.Index] {
				seen[c.Index] = true
				out = append(out, c.Index)
			}
			return
		}
		for _, ch := range x.Children() {
			walk(ch)
		}
	}
	walk(e)
	return out
}

// correlatedFilter resolves Filter(conds) over in inside a subquery when some conjunct reads
// outer references: those become correlated predicates of the subquery, the others the
// Filter's condition. handled is false when no conjunct is correlated (the caller binds the
// condition as usual).
func (a *Analyzer) correlatedFilter(in *resolved, conds []plan.Expr) (r *resolved, handled bool, err error) {
	if a.sub == nil {
		return nil, false, nil
	}
	var local []expr.Expr
	var corr []*corrPred
	for _, c := range conds {
		x, err := a.bindCondition(in, c)
		if err != nil {
			return nil, false, nil // the caller's binding reports it (or resolves it otherwise)
		}
		refs := outerRefsIn(x)
		if len(refs) == 0 {
			local = append(local, x)
			continue
		}
		if err := checkCorrelatedType(refs); err != nil {
			return nil, true, err
		}
		eq, err := a.isEqualityCorrelation(in, c)
		if err != nil {
			return nil, true, err
		}
		corr = append(corr, &corrPred{cond: c, scope: in, outer: a.sub.outer, bound: x, reads: columnsRead(x), equality: eq})
	}
	if len(corr) == 0 {
		return nil, false, nil
	}
	var cond expr.Expr = expr.NewLiteral(true, sqltypes.BooleanType)
	for i, x := range local {
		if i == 0 {
			cond = x
			continue
		}
		if cond, err = expr.Bind("and", []expr.Expr{cond, x}, a.Options); err != nil {
			return nil, true, err
		}
	}
	marker := &logical.Filter{Input: in.node, Cond: cond}
	for _, p := range corr {
		p.marker = marker
		a.sub.preds = append(a.sub.preds, p)
	}
	return a.keepScope(in, marker), true, nil
}

// isEqualityCorrelation reports whether c is `inner = outer` (either order): one side reads
// only outer references, the other only columns of in.
func (a *Analyzer) isEqualityCorrelation(in *resolved, c plan.Expr) (bool, error) {
	call, ok := asCall(c)
	if !ok || len(call.Args) != 2 || (call.Name != "=" && call.Name != "==") {
		return false, nil
	}
	var outer [2]bool
	for i, arg := range call.Args {
		x, err := a.binderOver(in).bind(arg)
		if err != nil {
			return false, err
		}
		o, l := len(outerRefsIn(x)) > 0, len(columnsRead(x)) > 0
		if o == l {
			return false, nil
		}
		outer[i] = o
	}
	return outer[0] != outer[1], nil
}

// checkCorrelatedType is Spark's UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE: an outer
// reference compared for grouping must have an orderable, hashable type (not a map).
func checkCorrelatedType(refs []*outerRef) error {
	for _, o := range refs {
		if o.col.T.Kind == sqltypes.Map {
			return sparkerr.Analysis("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_CORRELATED_REFERENCE_DATA_TYPE", "0A000",
				"Unsupported subquery expression: Correlated column reference '%s' cannot be %s type.", o.String(), o.col.T.SQL()).
				WithParams("expr", o.String(), "dataType", o.col.T.SQL())
		}
	}
	return nil
}
