package analyzer

import (
	"errors"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The domain route (Spark's DecorrelateInnerQuery with a DomainJoin), for a correlated
// predicate that is not `inner = outer` below an aggregate (`SELECT max(w) FROM i WHERE
// i.k > o.k`): grouping by inner columns would not give one row per outer row. Instead the
// subquery's correlated Filter becomes an inner join with the distinct values of the outer
// columns the predicates read (the domain), those values are carried up (grouped by at the
// aggregate), and the subquery joins the outer rows on them. An outer row whose domain value
// is NULL finds no group: it gets the subquery's value over no rows, which is right unless a
// predicate holds for a NULL outer value (`i.w > coalesce(o.v, 0)`).

// errNeedsDomain reports a non-equality correlated predicate below an aggregate.
var errNeedsDomain = errors.New("analyzer: a correlated predicate below an aggregate needs the domain route")

// domain is the distinct values of the outer columns a subquery's predicates read.
type domain struct {
	// outer are the outer scope's columns, in order; index maps one to its domain column.
	outer []int
	index map[int]int
	node  logical.Node
}

// newDomain builds the domain of s's predicates over the outer scope's rows.
func (a *Analyzer) newDomain(s *subquery) *domain {
	d := &domain{index: map[int]int{}}
	var refs []expr.Expr
	for _, p := range s.preds {
		for _, o := range outerRefsIn(p.bound) {
			if _, ok := d.index[o.col.Index]; ok {
				continue
			}
			d.index[o.col.Index] = len(d.outer)
			d.outer = append(d.outer, o.col.Index)
			refs = append(refs, s.scope.outer.ref(o.col.Index))
		}
	}
	d.node = &logical.Distinct{Input: &logical.Project{Input: s.scope.outer.node, Exprs: refs}}
	return d
}

// domainJoin replaces a correlated Filter (local condition cond) over child by child joined
// with the domain on the predicates; the domain's columns follow child's and are carried.
func (a *Analyzer) domainJoin(child logical.Node, cond expr.Expr, preds []*corrPred, d *domain) (logical.Node, []carriedCol, error) {
	left := child.Schema()
	nl := len(left)
	dSchema := d.node.Schema()
	j := &logical.Join{Left: child, Right: d.node, Type: plan.InnerJoin, Out: append(append(sqltypes.Schema{}, left...), dSchema...)}
	col := func(i int, off int) *expr.Column {
		f := dSchema[d.index[i]]
		return &expr.Column{Index: off + d.index[i], Name: f.Name, T: f.Type, Null: f.Nullable}
	}
	innerCol := func(i int) (*expr.Column, error) {
		f := left[i]
		return &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}, nil
	}
	refuse := func(int) (*expr.Column, error) { return nil, errOtherSide }
	for _, p := range preds {
		if lk, rk, ok, err := a.splitKey(p, innerCol, func(i int) (*expr.Column, error) { return col(i, 0), nil }, refuse); err != nil {
			return nil, nil, err
		} else if ok {
			j.LeftKeys, j.RightKeys = append(j.LeftKeys, lk), append(j.RightKeys, rk)
			continue
		}
		x, err := a.bindPredicate(p, p.outer, innerCol, func(i int) (*expr.Column, error) { return col(i, nl), nil }, p.cond)
		if err != nil {
			return nil, nil, err
		}
		if err := checkBoolean(x); err != nil {
			return nil, nil, err
		}
		if j.Residual == nil {
			j.Residual = x
		} else if j.Residual, err = expr.Bind("and", []expr.Expr{j.Residual, x}, a.Options); err != nil {
			return nil, nil, err
		}
	}
	var out logical.Node = j
	if !isTrueLiteral(cond) {
		out = &logical.Filter{Input: j, Cond: cond}
	}
	cs := make([]carriedCol, len(d.outer))
	for k := range d.outer {
		cs[k] = carriedCol{key: carriedKey{nil, k}, pos: nl + k}
	}
	return out, cs, nil
}
