package analyzer

import (
	"fmt"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// Scalar Python functions in an aggregation, placed as Spark's ExtractPythonUDFFromAggregate,
// ExtractGroupingPythonUDFFromAggregate and ExtractPythonUDFs place them:
//   - calls in grouping expressions and inside aggregate calls' arguments (and FILTER
//     conditions) read input rows: they are evaluated in PythonEval nodes below the Aggregate
//     (pythonBelowAggregate), which groups and aggregates their hidden columns; a select-list
//     call equal to a grouping expression's reads the grouping column;
//   - every other call of the select list, HAVING condition or ORDER BY keys reads the
//     aggregation's results (grouping columns, aggregates): it is evaluated in PythonEval nodes
//     above the Aggregate, below the Filter, Sort and Project that read it (aboveAggregate).
// A nondeterministic call inside an aggregate call's arguments is Spark's
// AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION.

// pythonBelowAggregate evaluates below the aggregation of spec (and of the HAVING condition or
// ORDER BY keys in extra) the Python function calls that read its input rows.
func (a *Analyzer) pythonBelowAggregate(in *resolved, spec groupSpec, extra ...plan.Expr) (*resolved, error) {
	grouping, err := a.expandGrouping(in, spec)
	if err != nil {
		return nil, err
	}
	var below []plan.Expr
	collect := func(e plan.Expr) {
		walkPlanExpr(e, func(x plan.Expr) bool {
			if u, ok := asPythonUDF(x); ok && !isGroupedAggEval(u.EvalType) {
				below = append(below, u)
				return false
			}
			return true
		})
	}
	for _, g := range grouping {
		collect(g)
	}
	var failed error
	var inAggregates func(e plan.Expr) bool
	inAggregates = func(x plan.Expr) bool {
		switch x.(type) {
		case plan.Window, *plan.Window:
			return false
		}
		var args []plan.Expr
		if c, ok := asCall(x); ok && expr.IsAggregate(strings.ToLower(c.Name)) {
			args = append(append(args, c.Args...), c.Filter)
		} else if u, ok := asPythonUDF(x); ok && isGroupedAggEval(u.EvalType) {
			args = u.Args
		} else {
			return true
		}
		for _, arg := range args {
			if err := nondeterministicInAggregate(x, arg); err != nil && failed == nil {
				failed = err
			}
			collect(arg)
		}
		return false
	}
	for _, e := range append(append([]plan.Expr{}, spec.aggs...), extra...) {
		walkPlanExpr(e, inAggregates)
	}
	if failed != nil {
		return nil, failed
	}
	if len(below) == 0 {
		return in, nil
	}
	return a.withPythonUDFs(in, below)
}

// nondeterministicInAggregate is Spark's AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION
// when arg, an argument of the aggregate call agg, calls a nondeterministic Python function.
func nondeterministicInAggregate(agg, arg plan.Expr) error {
	found := false
	walkPlanExpr(arg, func(x plan.Expr) bool {
		if u, ok := asPythonUDF(x); ok && !u.Deterministic {
			found = true
		}
		return !found
	})
	if !found {
		return nil
	}
	q := planExprSQL(agg)
	return sparkerr.Analysis("AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION", "42845",
		"Non-deterministic expression %s should not appear in the arguments of an aggregate function.", q).
		WithParams("sqlExpr", q)
}

// abovePython is a Python function call over an aggregation's results: its function with the
// arguments bound over the Aggregate's output (and the columns of calls below it), and the
// column that reads its result, placed once the PythonEval nodes are built.
type abovePython struct {
	f     *logical.PythonFunc
	col   *expr.Column
	level int
}

// pythonCall binds a scalar Python function call met in the select list, HAVING condition or
// ORDER BY keys of an aggregation: a grouping expression's column when the call was evaluated
// below the Aggregate, else a call evaluated above it.
func (b *aggBuild) pythonCall(bd *binder, u *plan.PythonUDF) (expr.Expr, error) {
	if err := checkScalarEval(u); err != nil {
		return nil, err
	}
	if _, below := b.a.pythonColumn(b.in, u); below {
		x, err := b.a.binderOver(b.in).bind(u)
		if err != nil {
			return nil, err
		}
		if i, ok := b.groupKeys[exprKey(x)]; ok {
			return b.groupRef(i), nil
		}
		return nil, b.missingAggregation(x)
	}
	f, err := b.a.bindChainedPythonFunc(bd, u)
	if err != nil {
		return nil, err
	}
	key := pythonFuncKey(f, u.Deterministic)
	if j, ok := b.aboveKeys[key]; ok && key != "" {
		return &expr.Alias{Child: b.above[j].col, Name: f.String()}, nil
	}
	c := &abovePython{f: f, col: &expr.Column{Index: -1, Name: f.String(), T: f.ReturnType, Null: true}, level: 1}
	for _, arg := range f.Args {
		for _, d := range b.above {
			if readsColumn(arg, d.col) {
				c.level = max(c.level, d.level+1)
			}
		}
	}
	if key != "" {
		b.aboveKeys[key] = len(b.above)
	}
	b.above = append(b.above, c)
	return &expr.Alias{Child: c.col, Name: f.String()}, nil
}

// readsColumn reports whether e reads the column c (the very node).
func readsColumn(e expr.Expr, c *expr.Column) bool {
	if x, ok := e.(*expr.Column); ok {
		return x == c
	}
	for _, ch := range e.Children() {
		if readsColumn(ch, c) {
			return true
		}
	}
	return false
}

// aboveAggregate evaluates the calls over the aggregation's results in PythonEval nodes over
// agg (the Aggregate): level by level (a call over another's result is a level above it), one
// node per eval type; each call's column is pointed at its node's output.
func (b *aggBuild) aboveAggregate(agg *resolved) *resolved {
	cur := agg
	for level := 1; ; level++ {
		var types []int32
		byType := map[int32][]*abovePython{}
		for _, c := range b.above {
			if c.level != level {
				continue
			}
			if _, ok := byType[c.f.EvalType]; !ok {
				types = append(types, c.f.EvalType)
			}
			byType[c.f.EvalType] = append(byType[c.f.EvalType], c)
		}
		if len(types) == 0 {
			return cur
		}
		for _, t := range types {
			node := &logical.PythonEval{Input: cur.node, EvalType: t}
			cols := append([]column(nil), cur.cols...)
			for _, c := range byType[t] {
				name := fmt.Sprintf("pythonUDF%d", len(cols)-len(agg.cols))
				c.col.Index = len(cols)
				node.Funcs = append(node.Funcs, c.f)
				node.Names = append(node.Names, name)
				cols = append(cols, column{name: name, typ: c.f.ReturnType, nullable: true, hidden: true})
			}
			cur = &resolved{node: node, cols: cols}
		}
	}
}
