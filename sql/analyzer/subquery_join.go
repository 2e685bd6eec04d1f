package analyzer

import (
	"errors"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// The join condition of a correlated subquery: its pulled-up predicates bound over the join of
// the outer rows (left, whose columns start with the outer scope's) and the subquery's rows
// (right: its own columns, then the carried ones).

// predSide is what a predicate's binding may read.
type predSide int

const (
	bothSides predSide = iota // left++right, the right side's columns after nl left ones
	leftSide                  // the outer rows only
	rightSide                 // the subquery's rows only
)

// errOtherSide reports a reference to the side a one-sided binding may not read.
var errOtherSide = errors.New("reads the other join side")

// correlatedCondition adds s's correlated predicates to j: `outer = inner` comparisons as hash
// keys, the others ANDed to the residual. nl is the width of j's left side.
func (a *Analyzer) correlatedCondition(j *logical.Join, s *subquery, nl int) error {
	if s.domain != nil {
		for k, i := range s.domain.outer {
			j.LeftKeys = append(j.LeftKeys, s.scope.outer.ref(i))
			j.RightKeys = append(j.RightKeys, s.res.ref(s.pos[carriedKey{nil, k}]))
		}
		return nil
	}
	for _, p := range s.preds {
		lk, rk, ok, err := a.correlatedKey(p, s)
		if err != nil {
			return err
		}
		if ok {
			j.LeftKeys = append(j.LeftKeys, lk)
			j.RightKeys = append(j.RightKeys, rk)
			continue
		}
		x, err := a.bindCorrelated(p, s, nl, bothSides, p.cond)
		if err != nil {
			return err
		}
		if err := checkBoolean(x); err != nil {
			return err
		}
		if j.Residual == nil {
			j.Residual = x
		} else if j.Residual, err = expr.Bind("and", []expr.Expr{j.Residual, x}, a.Options); err != nil {
			return err
		}
	}
	return nil
}

// correlatedKey splits p into a left and a right key when it is `outer = inner` (either order)
// and the sides have a common type.
func (a *Analyzer) correlatedKey(p *corrPred, s *subquery) (expr.Expr, expr.Expr, bool, error) {
	inner := func(i int) (*expr.Column, error) {
		pos, ok := s.pos[carriedKey{p.marker, i}]
		if !ok {
			return nil, sparkerr.Internal("analyzer: correlated predicate reads a column that was not carried")
		}
		c := s.res.cols[pos]
		return &expr.Column{Index: pos, Name: c.name, T: c.typ, Null: c.nullable}, nil
	}
	outer := func(i int) (*expr.Column, error) { return s.scope.outer.ref(i), nil }
	refuse := func(int) (*expr.Column, error) { return nil, errOtherSide }
	rk, lk, ok, err := a.splitKey(p, inner, outer, refuse)
	return lk, rk, ok, err
}

// splitKey splits p into an inner key (reading inner columns only) and an outer one when it is
// `inner = outer` (either order) and the sides have a common type.
func (a *Analyzer) splitKey(p *corrPred, inner, outer, refuse func(int) (*expr.Column, error)) (expr.Expr, expr.Expr, bool, error) {
	if !p.equality {
		return nil, nil, false, nil
	}
	call, _ := asCall(p.cond)
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		ik, err := a.bindPredicate(p, p.outer, inner, refuse, call.Args[order[0]])
		if errors.Is(err, errOtherSide) {
			continue
		}
		if err != nil {
			return nil, nil, false, err
		}
		ok, err := a.bindPredicate(p, p.outer, refuse, outer, call.Args[order[1]])
		if errors.Is(err, errOtherSide) {
			continue
		}
		if err != nil {
			return nil, nil, false, err
		}
		if !ik.Type().Equal(ok.Type()) {
			t, found := expr.CommonType(ik.Type(), ok.Type())
			if !found {
				return nil, nil, false, nil // the residual's binding reports the mismatch
			}
			if ik, err = a.castIfNeeded(ik, t); err != nil {
				return nil, nil, false, err
			}
			if ok, err = a.castIfNeeded(ok, t); err != nil {
				return nil, nil, false, err
			}
		}
		return ik, ok, true, nil
	}
	return nil, nil, false, nil
}

// bindCorrelated binds e, part of predicate p, for the join: names resolve in the predicate's
// own scope first (an inner column, read at its carried position), then in the outer scope.
func (a *Analyzer) bindCorrelated(p *corrPred, s *subquery, nl int, side predSide, e plan.Expr) (expr.Expr, error) {
	off := 0
	if side == bothSides {
		off = nl
	}
	inner := func(i int) (*expr.Column, error) {
		if side == leftSide {
			return nil, errOtherSide
		}
		pos, ok := s.pos[carriedKey{p.marker, i}]
		if !ok {
			return nil, sparkerr.Internal("analyzer: correlated predicate reads a column that was not carried")
		}
		c := s.res.cols[pos]
		return &expr.Column{Index: off + pos, Name: c.name, T: c.typ, Null: c.nullable}, nil
	}
	outer := func(i int) (*expr.Column, error) {
		if side == rightSide {
			return nil, errOtherSide
		}
		return s.scope.outer.ref(i), nil
	}
	return a.bindPredicate(p, p.outer, inner, outer, e)
}

// bindPredicate binds e, part of predicate p, reading an inner column i (of p's scope) as
// inner(i) and an outer one as outer(i).
func (a *Analyzer) bindPredicate(p *corrPred, outerScope *resolved, inner, outer func(i int) (*expr.Column, error), e plan.Expr) (expr.Expr, error) {
	b := a.binderOver(p.scope)
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		ref, ok := asColumnRef(x)
		if !ok {
			return nil, false, nil
		}
		scope, read := p.scope, inner
		idx, rest, found := a.lookup(p.scope, ref)
		if !found {
			scope, read = outerScope, outer
			if idx, rest, found = a.lookup(outerScope, ref); !found {
				return nil, true, unresolvedColumn(ref.Name, candidateNames(p.scope.cols))
			}
		}
		if len(idx) > 1 {
			return nil, true, ambiguousReference(ref.Name, scope, idx)
		}
		c, err := read(idx[0])
		if err != nil {
			return nil, true, err
		}
		bound, err := withFields(c, rest)
		return bound, true, err
	}
	return b.bind(e)
}

// withFields applies struct field accesses to a column, named after the last one as Spark names
// a dotted field access.
func withFields(c *expr.Column, rest []string) (expr.Expr, error) {
	x, err := extractFields(c, rest)
	if err != nil || len(rest) == 0 {
		return x, err
	}
	return &expr.Alias{Child: x, Name: rest[len(rest)-1]}, nil
}
