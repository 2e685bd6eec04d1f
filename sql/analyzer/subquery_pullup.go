package analyzer

import (
	"context"
	"errors"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Pulling correlated predicates up (Spark's PullupCorrelatedPredicates): the subquery's plan is
// rebuilt so that every inner column a correlated predicate reads is an extra output column
// after the subquery's own ones. On the way up a Project passes them through, an Aggregate
// groups by them (only equality predicates may cross an aggregate: grouping by the inner side
// of `inner = outer` gives one row per outer value; other predicates below an aggregate take
// the domain route of subquery_domain.go), Filter and Sort keep them. Other operators above a
// correlated predicate are refused as Spark refuses them.

// subquery is a resolved subquery: its plan, and when it is correlated the predicates that join
// it to the outer query with the columns they read carried to its output.
type subquery struct {
	res *resolved
	// raw is the subquery's plan as resolved, before the pull-up.
	raw *resolved
	// width is the number of the subquery's own output columns (res may have more: carried).
	width int
	preds []*corrPred
	scope *subqueryScope
	// pos maps a carried column (marker, index in the marker's scope) to res's column.
	pos map[carriedKey]int
	// domain is set when the predicates were evaluated against the outer values
	// (subquery_domain.go); the subquery then joins on them.
	domain *domain
	// agg is the Aggregate the predicates were pulled through (nil if none), with its original
	// grouping expressions and the rebuilt output's layout for the count bug (subquery_scalar.go).
	agg *pulledAggregate
}

type carriedKey struct {
	marker *logical.Filter
	idx    int
}

// pulledAggregate records the Aggregate correlated predicates were pulled through.
type pulledAggregate struct {
	orig *logical.Aggregate
	// above are the operators between the subquery's top and the Aggregate, top first.
	above []logical.Node
}

// correlated reports whether the subquery reads outer columns.
func (s *subquery) correlated() bool { return len(s.preds) > 0 }

// resolveSubquery resolves a subquery of the query whose scope is outer; names that do not
// resolve inside it are outer references, and correlated predicates are pulled up.
func (a *Analyzer) resolveSubquery(ctx context.Context, outer *resolved, rel plan.Relation) (*subquery, error) {
	return a.resolveSubqueryFor(ctx, outer, rel, false)
}

// resolveSubqueryFor is resolveSubquery; exists says only whether the subquery has rows matters
// (EXISTS), so a LIMIT above its correlated predicates can be dropped.
func (a *Analyzer) resolveSubqueryFor(ctx context.Context, outer *resolved, rel plan.Relation, exists bool) (*subquery, error) {
	sa := *a
	sa.sub = &subqueryScope{outer: outer}
	r, err := sa.resolve(ctx, rel)
	a.steps = sa.steps
	if err != nil {
		return nil, err
	}
	s := &subquery{res: r, raw: r, width: len(r.cols), preds: sa.sub.preds, scope: sa.sub}
	if s.correlated() {
		if err := a.pullUp(s, exists, false); err != nil {
			return nil, err
		}
	}
	if refs := strayOuterRefs(s.res.node); len(refs) > 0 {
		list := strings.Join(refs, ",")
		return nil, sparkerr.Analysis("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE", "0A000",
			"Unsupported subquery expression: Expressions referencing the outer query are not supported outside of WHERE/HAVING clauses: %s.", list).
			WithParams("sqlExprs", list)
	}
	return s, nil
}

// pullUp rebuilds s's plan with the carried columns (see the comment above); with domain, or
// when a non-equality predicate is below an aggregate, by the domain route.
func (a *Analyzer) pullUp(s *subquery, exists, domain bool) error {
	markers := map[*logical.Filter][]*corrPred{}
	for _, p := range s.preds {
		markers[p.marker] = append(markers[p.marker], p)
	}
	pu := &puller{markers: markers, exists: exists, a: a}
	if domain {
		if len(markers) != 1 {
			return sparkerr.Unsupported("a subquery correlated by predicates other than equalities in more than one WHERE")
		}
		pu.domain = a.newDomain(s)
	}
	node, carried, err := pu.rebuild(s.raw.node)
	if errors.Is(err, errNeedsDomain) && !domain {
		return a.pullUp(s, exists, true)
	}
	if err != nil {
		return err
	}
	s.domain = pu.domain
	s.pos = map[carriedKey]int{}
	for _, c := range carried {
		s.pos[c.key] = c.pos
	}
	out := newResolved(node)
	copy(out.cols, s.raw.cols)
	s.res = out
	s.agg = pu.agg
	return nil
}

type carriedCol struct {
	key carriedKey
	pos int
}

type puller struct {
	a       *Analyzer
	markers map[*logical.Filter][]*corrPred
	// domain, when set, replaces the (single) correlated Filter by an inner join with the
	// outer values (subquery_domain.go).
	domain *domain
	agg    *pulledAggregate
	// exists: only whether the subquery has rows matters, so a LIMIT n > 0 goes.
	exists bool
	// path are the operators above the node being rebuilt, top first.
	path []logical.Node
}

// hasMarker reports whether n's subtree holds a correlated predicate.
func (pu *puller) hasMarker(n logical.Node) bool {
	if f, ok := n.(*logical.Filter); ok && pu.markers[f] != nil {
		return true
	}
	for _, c := range n.Children() {
		if pu.hasMarker(c) {
			return true
		}
	}
	return false
}

// rebuild returns n with the carried columns appended to its output, and where they are.
func (pu *puller) rebuild(n logical.Node) (logical.Node, []carriedCol, error) {
	if !pu.hasMarker(n) {
		return n, nil, nil
	}
	pu.path = append(pu.path, n)
	defer func() { pu.path = pu.path[:len(pu.path)-1] }()
	switch n := n.(type) {
	case *logical.Filter:
		child, cs, err := pu.rebuild(n.Input)
		if err != nil {
			return nil, nil, err
		}
		preds := pu.markers[n]
		if preds == nil {
			return &logical.Filter{Input: child, Cond: n.Cond}, cs, nil
		}
		if pu.domain != nil {
			return pu.a.domainJoin(child, n.Cond, preds, pu.domain)
		}
		var out logical.Node = child
		if !isTrueLiteral(n.Cond) {
			out = &logical.Filter{Input: child, Cond: n.Cond}
		}
		seen := map[int]bool{}
		for _, p := range preds {
			for _, i := range p.reads {
				if !seen[i] {
					seen[i] = true
					cs = append(cs, carriedCol{key: carriedKey{n, i}, pos: i})
				}
			}
		}
		return out, cs, nil
	case *logical.Project:
		child, cs, err := pu.rebuild(n.Input)
		if err != nil {
			return nil, nil, err
		}
		exprs := append([]expr.Expr{}, n.Exprs...)
		schema := child.Schema()
		out := make([]carriedCol, len(cs))
		for k, c := range cs {
			f := schema[c.pos]
			exprs = append(exprs, &expr.Column{Index: c.pos, Name: f.Name, T: f.Type, Null: f.Nullable})
			out[k] = carriedCol{key: c.key, pos: len(exprs) - 1}
		}
		return &logical.Project{Input: child, Exprs: exprs}, out, nil
	case *logical.Aggregate:
		return pu.rebuildAggregate(n)
	case *logical.Sort:
		child, cs, err := pu.rebuild(n.Input)
		if err != nil {
			return nil, nil, err
		}
		return &logical.Sort{Input: child, Keys: n.Keys, Global: n.Global}, cs, nil
	case *logical.Limit:
		if pu.exists && n.N > 0 && n.Offset == 0 {
			return pu.rebuild(n.Input)
		}
	case *logical.Distinct:
		if n.Keys == nil && !n.WithinWatermark {
			child, cs, err := pu.rebuild(n.Input)
			if err != nil {
				return nil, nil, err
			}
			return &logical.Distinct{Input: child}, cs, nil
		}
	}
	return nil, nil, sparkerr.Analysis("UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED", "0A000",
		"Unsupported subquery expression: Accessing outer query column is not allowed in this location:\n%s", logical.TreeString(n)).
		WithParams("treeNode", logical.TreeString(n))
}

// rebuildAggregate groups an Aggregate by the carried columns too, keeping its output's order
// (groups, aggregates) with the carried columns after them.
func (pu *puller) rebuildAggregate(n *logical.Aggregate) (logical.Node, []carriedCol, error) {
	child, cs, err := pu.rebuild(n.Input)
	if err != nil {
		return nil, nil, err
	}
	if len(cs) == 0 {
		return &logical.Aggregate{Input: child, Groups: n.Groups, Aggs: n.Aggs, Names: n.Names}, nil, nil
	}
	for _, c := range cs {
		for _, p := range pu.markers[c.key.marker] {
			if !p.equality && pu.domain == nil {
				return nil, nil, errNeedsDomain
			}
		}
	}
	if pu.agg != nil {
		return nil, nil, sparkerr.Unsupported("correlated predicates pulled through two aggregates in one subquery")
	}
	pu.agg = &pulledAggregate{orig: n, above: append([]logical.Node{}, pu.path[:len(pu.path)-1]...)}
	groups := append([]expr.Expr{}, n.Groups...)
	schema := child.Schema()
	for _, c := range cs {
		f := schema[c.pos]
		groups = append(groups, &expr.Column{Index: c.pos, Name: f.Name, T: f.Type, Null: f.Nullable})
	}
	agg := &logical.Aggregate{Input: child, Groups: groups, Aggs: n.Aggs, Names: n.Names}
	aggSchema := agg.Schema()
	g, na, nc := len(n.Groups), len(n.Aggs), len(cs)
	order := make([]int, 0, g+na+nc)
	for i := 0; i < g; i++ {
		order = append(order, i)
	}
	for i := 0; i < na; i++ {
		order = append(order, g+nc+i)
	}
	for i := 0; i < nc; i++ {
		order = append(order, g+i)
	}
	exprs := make([]expr.Expr, len(order))
	for k, i := range order {
		f := aggSchema[i]
		exprs[k] = &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
	}
	out := make([]carriedCol, nc, nc+1)
	for k, c := range cs {
		out[k] = carriedCol{key: c.key, pos: g + na + k}
	}
	exprs = append(exprs, &expr.Alias{Child: expr.NewLiteral(true, sqltypes.BooleanType), Name: "alwaysTrue"})
	out = append(out, carriedCol{key: matchedKey, pos: len(exprs) - 1})
	return &logical.Project{Input: agg, Exprs: exprs}, out, nil
}

// isTrueLiteral reports whether e is the literal true.
func isTrueLiteral(e expr.Expr) bool {
	l, ok := e.(*expr.Literal)
	if !ok {
		return false
	}
	v, ok := l.Value.(bool)
	return ok && v
}

// strayOuterRefs renders the outer references left in n's operators (not pulled up).
func strayOuterRefs(n logical.Node) []string {
	var out []string
	for _, e := range nodeExprs(n) {
		for _, o := range outerRefsIn(e) {
			out = append(out, `"`+o.col.Name+`"`)
		}
	}
	for _, c := range n.Children() {
		out = append(out, strayOuterRefs(c)...)
	}
	return out
}

// nodeExprs lists the expressions an operator evaluates (for the operators a subquery's
// select list, grouping, ordering and joins produce).
func nodeExprs(n logical.Node) []expr.Expr {
	switch n := n.(type) {
	case *logical.Project:
		return n.Exprs
	case *logical.Filter:
		return []expr.Expr{n.Cond}
	case *logical.Aggregate:
		out := append([]expr.Expr{}, n.Groups...)
		for _, ag := range n.Aggs {
			out = append(out, ag.Args()...)
		}
		return out
	case *logical.Sort:
		out := make([]expr.Expr, len(n.Keys))
		for i, k := range n.Keys {
			out[i] = k.Expr
		}
		return out
	case *logical.Join:
		out := append(append([]expr.Expr{}, n.LeftKeys...), n.RightKeys...)
		if n.Residual != nil {
			out = append(out, n.Residual)
		}
		return out
	case *logical.Repartition:
		return n.Keys
	}
	return nil
}
