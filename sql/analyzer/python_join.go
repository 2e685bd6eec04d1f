package analyzer

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// Python functions in a join condition, placed as Spark's ExtractPythonUDFs and
// ExtractPythonUDFFromJoinCondition place them: a call that reads one side's columns (or none)
// is evaluated on that side, below the join, as a hidden column the condition reads; a
// conjunct with a call reading both sides cannot be evaluated by the join: for an inner or
// cross join it becomes a Filter over the join of the other conjuncts (a cartesian product
// when none is left: spark.sql.crossJoin.enabled=false makes that Spark's "Detected implicit
// cartesian product" error), for any other join type it is Spark's
// UNSUPPORTED_FEATURE.PYTHON_UDF_IN_ON_CLAUSE. The hidden columns are projected away.

// resolveJoinWithPythonUDFs resolves a join whose condition cond calls Python functions.
func (a *Analyzer) resolveJoinWithPythonUDFs(left, right *resolved, n *plan.Join, cond plan.Expr) (*resolved, error) {
	both := &resolved{cols: append(append([]column{}, left.cols...), right.cols...)}
	nl := len(left.cols)
	var kept, lifted []plan.Expr
	var leftCalls, rightCalls []plan.Expr
	for _, c := range conjuncts(cond) {
		var l, r []plan.Expr
		crossing := false
		var err error
		walkPlanExpr(c, func(x plan.Expr) bool {
			u, ok := asPythonUDF(x)
			if !ok || err != nil {
				return err == nil
			}
			var s joinSide
			if s, err = a.planSide(both, nl, u); err != nil {
				return false
			}
			switch s {
			case sideBoth:
				crossing = true
			case sideRight:
				r = append(r, u)
			default:
				l = append(l, u)
			}
			return false
		})
		if err != nil {
			return nil, err
		}
		if crossing {
			lifted = append(lifted, c)
			continue
		}
		kept = append(kept, c)
		leftCalls, rightCalls = append(leftCalls, l...), append(rightCalls, r...)
	}
	if len(lifted) > 0 && n.Type != plan.InnerJoin && n.Type != plan.CrossJoin {
		jt := joinTypeSQL(n.Type)
		return nil, sparkerr.Analysis("UNSUPPORTED_FEATURE.PYTHON_UDF_IN_ON_CLAUSE", "0A000",
			"The feature is not supported: Python UDF in the ON clause of a %s JOIN. In case of an INNER JOIN consider rewriting to a CROSS JOIN with a WHERE clause.", jt).
			WithParams("joinType", jt)
	}
	wideLeft, wideRight := left, right
	var err error
	if len(leftCalls) > 0 {
		if wideLeft, err = a.withPythonUDFs(left, leftCalls); err != nil {
			return nil, err
		}
	}
	if len(rightCalls) > 0 {
		if wideRight, err = a.withPythonUDFs(right, rightCalls); err != nil {
			return nil, err
		}
	}
	j := &logical.Join{Left: wideLeft.node, Right: wideRight.node, Type: n.Type}
	if len(kept) > 0 {
		wideBoth := &resolved{cols: append(append([]column{}, wideLeft.cols...), wideRight.cols...)}
		if err := a.splitCondition(j, wideLeft, wideRight, wideBoth, andAll(kept)); err != nil {
			return nil, err
		}
	} else if j.Type == plan.InnerJoin {
		if a.NoImplicitCartesian {
			return nil, implicitCartesian(j)
		}
		j.Type = plan.CrossJoin
	}
	joined := a.joinOutput(j, wideLeft, wideRight)
	if len(lifted) > 0 {
		cond := andAll(lifted)
		wide, err := a.withPythonUDFs(joined, []plan.Expr{cond})
		if err != nil {
			return nil, err
		}
		x, err := a.bindCondition(wide, cond)
		if err != nil {
			return nil, err
		}
		joined = a.keepScope(wide, &logical.Filter{Input: wide.node, Cond: x})
	}
	refs := make([]expr.Expr, 0, len(left.cols)+len(right.cols))
	for i := range left.cols {
		refs = append(refs, joined.ref(i))
	}
	if n.Type != plan.LeftSemiJoin && n.Type != plan.LeftAntiJoin {
		for i := range right.cols {
			refs = append(refs, joined.ref(len(wideLeft.cols)+i))
		}
	}
	return joined.project(refs), nil
}

// planSide tells which join input the columns read by the unresolved expression e come from
// (sideNone for none), resolving its column references over both (left's nl columns, then
// right's).
func (a *Analyzer) planSide(both *resolved, nl int, e plan.Expr) (joinSide, error) {
	s := sideNone
	var err error
	walkPlanExpr(e, func(x plan.Expr) bool {
		ref, ok := asColumnRef(x)
		if !ok || err != nil {
			return err == nil
		}
		var i int
		if i, _, err = a.locateColumn(both, ref); err != nil {
			return false
		}
		cs := sideLeft
		if i >= nl {
			cs = sideRight
		}
		if s == sideNone {
			s = cs
		} else if s != cs {
			s = sideBoth
		}
		return false
	})
	return s, err
}

// andAll joins conditions with AND.
func andAll(cs []plan.Expr) plan.Expr {
	out := cs[0]
	for _, c := range cs[1:] {
		out = plan.Call{Name: "and", Args: []plan.Expr{out, c}}
	}
	return out
}

// joinTypeSQL is a join type as Spark's JoinType.sql renders it.
func joinTypeSQL(t plan.JoinType) string {
	switch t {
	case plan.LeftOuterJoin:
		return "LEFT OUTER"
	case plan.RightOuterJoin:
		return "RIGHT OUTER"
	case plan.FullOuterJoin:
		return "FULL OUTER"
	case plan.LeftSemiJoin:
		return "LEFT SEMI"
	case plan.LeftAntiJoin:
		return "LEFT ANTI"
	case plan.CrossJoin:
		return "CROSS"
	}
	return "INNER"
}

// implicitCartesian is Spark's CheckCartesianProducts error (spark.sql.crossJoin.enabled=false)
// for an inner join left without a condition.
func implicitCartesian(j *logical.Join) error {
	return sparkerr.Analysis("", "",
		"Detected implicit cartesian product for %s join between logical plans\n%s\nand\n%s\nJoin condition is missing or trivial.\nEither: use the CROSS JOIN syntax to allow cartesian products between these\nrelations, or: enable implicit cartesian products by setting the configuration\nvariable spark.sql.crossJoin.enabled=true",
		joinTypeSQL(j.Type), strings.TrimSpace(logical.TreeString(j.Left)), strings.TrimSpace(logical.TreeString(j.Right)))
}
