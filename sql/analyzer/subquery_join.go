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
	if !p.equality {
		return nil, nil, false, nil
	}
	call, _ := asCall(p.cond)
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		lk, err := a.bindCorrelated(p, s, 0, leftSide, call.Args[order[0]])
		if errors.Is(err, errOtherSide) {
			continue
		}
		if err != nil {
			return nil, nil, false, err
		}
		rk, err := a.bindCorrelated(p, s, 0, rightSide, call.Args[order[1]])
		if errors.Is(err, errOtherSide) {
			continue
		}
		if err != nil {
			return nil, nil, false, err
		}
		if !lk.Type().Equal(rk.Type()) {
			t, ok := expr.CommonType(lk.Type(), rk.Type())
			if !ok {
				return nil, nil, false, nil // the residual's binding reports the mismatch
			}
			if lk, err = a.castIfNeeded(lk, t); err != nil {
				return nil, nil, false, err
			}
			if rk, err = a.castIfNeeded(rk, t); err != nil {
				return nil, nil, false, err
			}
		}
		return lk, rk, true, nil
	}
	return nil, nil, false, nil
}

// bindCorrelated binds e, part of predicate p, for the join: names resolve in the predicate's
// own scope first (an inner column, read at its carried position), then in the outer scope.
func (a *Analyzer) bindCorrelated(p *corrPred, s *subquery, nl int, side predSide, e plan.Expr) (expr.Expr, error) {
	b := a.binderOver(p.scope)
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		ref, ok := asColumnRef(x)
		if !ok {
			return nil, false, nil
		}
		if idx, rest, found := a.lookup(p.scope, ref); found {
			if len(idx) > 1 {
				return nil, true, ambiguousReference(ref.Name, p.scope, idx)
			}
			if side == leftSide {
				return nil, true, errOtherSide
			}
			pos, ok := s.pos[carriedKey{p.marker, idx[0]}]
			if !ok {
				return nil, true, sparkerr.Internal("analyzer: correlated predicate reads a column that was not carried")
			}
			c := s.res.cols[pos]
			off := 0
			if side == bothSides {
				off = nl
			}
			bound, err := withFields(&expr.Column{Index: off + pos, Name: c.name, T: c.typ, Null: c.nullable}, rest)
			return bound, true, err
		}
		outer := s.scope.outer
		idx, rest, found := a.lookup(outer, ref)
		if !found {
			return nil, true, unresolvedColumn(ref.Name, candidateNames(p.scope.cols))
		}
		if len(idx) > 1 {
			return nil, true, ambiguousReference(ref.Name, outer, idx)
		}
		if side == rightSide {
			return nil, true, errOtherSide
		}
		bound, err := withFields(outer.ref(idx[0]), rest)
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
