package analyzer

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Python UDFs, extracted as Spark's ExtractPythonUDFs does: the calls of a select list, filter
// condition or withColumns are evaluated in logical.PythonEval nodes below the operator. Each
// node computes the calls whose arguments are ready (they read no call not yet computed), of
// one eval type, and appends their results as hidden columns; a call over another call (f(g(x)))
// reads the inner one's column in a node above it. The operator then binds over the widened
// input, a call reading its column (named as Spark names the call: f(x)), and a projection
// drops the hidden columns again.

// The eval types (pyspark.util.PythonEvalType) the analyzer places.
const (
	evalBatched         = 100
	evalArrowBatched    = 101
	evalScalarPandas    = 200
	evalGroupedMap      = 201
	evalGroupedAgg      = 202
	evalWindowAgg       = 203
	evalScalarIter      = 204
	evalMapPandas       = 205
	evalCogroupedMap    = 206
	evalMapArrow        = 207
	evalGroupedMapArrow = 209
	evalCogroupedArrow  = 210
	evalScalarArrow     = 250
	evalScalarArrowIter = 251
	evalGroupedAggArrow = 252
)

// isScalarEval reports whether an eval type is a row-by-row function (a PythonEval node).
func isScalarEval(t int32) bool {
	switch t {
	case evalBatched, evalArrowBatched, evalScalarPandas, evalScalarIter, evalScalarArrow, evalScalarArrowIter:
		return true
	}
	return false
}

// isGroupedAggEval reports whether a function is a grouped-aggregate one (an aggregate call).
func isGroupedAggEval(t int32) bool { return t == evalGroupedAgg || t == evalGroupedAggArrow }

// asPythonUDF unwraps a Python function call.
func asPythonUDF(e plan.Expr) (*plan.PythonUDF, bool) {
	u, ok := e.(*plan.PythonUDF)
	return u, ok && u != nil
}

// hasPythonUDF reports whether any of es calls a Python function.
func hasPythonUDF(es ...plan.Expr) bool {
	found := false
	for _, e := range es {
		walkPlanExpr(e, func(x plan.Expr) bool {
			if _, ok := asPythonUDF(x); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

// pythonCalls replaces calls of the session's registered Python functions (spark.udf.register)
// by Python function calls; a registered name shadows a builtin, as in Spark's session
// function registry.
func (a *Analyzer) pythonCalls(es []plan.Expr) []plan.Expr {
	return a.pythonCallsOf(es, func(*plan.PythonUDF) bool { return true })
}

// withPythonCalls is an aggregation with pythonCalls applied to its grouping expressions,
// grouping sets and output list.
func (a *Analyzer) withPythonCalls(n *plan.Aggregate) *plan.Aggregate {
	if a.PythonFunctions == nil {
		return n
	}
	m := *n
	m.Grouping = a.pythonCalls(n.Grouping)
	m.Aggs = a.pythonCalls(n.Aggs)
	m.Sets = make([][]plan.Expr, len(n.Sets))
	for i, s := range n.Sets {
		m.Sets[i] = a.pythonCalls(s)
	}
	return &m
}

// pythonCallsOf replaces calls of the registered Python functions that keep accepts.
func (a *Analyzer) pythonCallsOf(es []plan.Expr, keep func(*plan.PythonUDF) bool) []plan.Expr {
	if a.PythonFunctions == nil || es == nil {
		return es
	}
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		out[i] = a.pythonCall(e, keep)
	}
	return out
}

func (a *Analyzer) pythonCall(e plan.Expr, keep func(*plan.PythonUDF) bool) plan.Expr {
	args := func(xs []plan.Expr) []plan.Expr {
		out := make([]plan.Expr, len(xs))
		for i, x := range xs {
			out[i] = a.pythonCall(x, keep)
		}
		return out
	}
	switch x := e.(type) {
	case plan.Call:
		if f, ok := a.PythonFunctions(strings.ToLower(x.Name)); ok && keep(f) && !x.Distinct && x.Filter == nil {
			u := *f
			u.Args = args(x.Args)
			u.ArgNames = x.ArgNames
			return &u
		}
		x.Args = args(x.Args)
		return x
	case *plan.Call:
		return a.pythonCall(*x, keep)
	case plan.Alias:
		x.Child = a.pythonCall(x.Child, keep)
		return x
	case *plan.Alias:
		return a.pythonCall(*x, keep)
	case plan.Cast:
		x.Child = a.pythonCall(x.Child, keep)
		return x
	case *plan.Cast:
		return a.pythonCall(*x, keep)
	case plan.ExtractValue:
		x.Child = a.pythonCall(x.Child, keep)
		return x
	case *plan.ExtractValue:
		return a.pythonCall(*x, keep)
	case plan.UpdateFields:
		x.Struct = a.pythonCall(x.Struct, keep)
		if x.Value != nil {
			x.Value = a.pythonCall(x.Value, keep)
		}
		return x
	case *plan.UpdateFields:
		return a.pythonCall(*x, keep)
	case *plan.PythonUDF:
		u := *x
		u.Args = args(x.Args)
		return &u
	}
	return e
}

// withPythonUDFs evaluates the Python function calls of es below in: the result is in's node
// under PythonEval nodes, with one hidden column per call that binders over it read for the
// call.
func (a *Analyzer) withPythonUDFs(in *resolved, es []plan.Expr) (*resolved, error) {
	var calls []*plan.PythonUDF
	seen := map[*plan.PythonUDF]bool{}
	var collect func(e plan.Expr) bool
	collect = func(e plan.Expr) bool {
		u, ok := asPythonUDF(e)
		if !ok {
			return true
		}
		for _, arg := range chainArgs(u) {
			walkPlanExpr(arg, collect)
		}
		if !seen[u] {
			seen[u] = true
			calls = append(calls, u)
		}
		return false
	}
	for _, e := range es {
		walkPlanExpr(e, collect)
	}
	for _, u := range calls {
		if err := checkScalarEval(u); err != nil {
			return nil, err
		}
	}
	cur := in
	done := map[*plan.PythonUDF]bool{}
	hidden := 0
	for len(done) < len(calls) {
		var batch []*plan.PythonUDF
		evalType := int32(-1)
		for _, u := range calls {
			if done[u] || !argsReady(u, done) || (evalType >= 0 && u.EvalType != evalType) {
				continue
			}
			evalType = u.EvalType
			batch = append(batch, u)
			if evalType == evalScalarIter || evalType == evalScalarArrowIter {
				break // worker.py runs one iterator UDF per task ("One SCALAR_ITER UDF expected here")
			}
		}
		if len(batch) == 0 {
			return nil, sparkerr.Internal("analyzer: Python function calls read each other")
		}
		node := &logical.PythonEval{Input: cur.node, EvalType: evalType}
		cols := append([]column(nil), cur.cols...)
		b := a.binderOver(cur)
		for _, u := range batch {
			f, err := a.bindChainedPythonFunc(b, u)
			if err != nil {
				return nil, err
			}
			name := fmt.Sprintf("pythonUDF%d", hidden)
			hidden++
			node.Funcs = append(node.Funcs, f)
			node.Names = append(node.Names, name)
			cols = append(cols, column{name: name, typ: f.ReturnType, nullable: true, hidden: true, udf: u, udfName: f.String(),
				udfKey: pythonFuncKey(f, u.Deterministic)})
			done[u] = true
		}
		cur = &resolved{node: node, cols: cols}
	}
	return cur, nil
}

// chainable reports whether calls of an eval type nest into one worker function (Spark chains
// any scalar kind; Weir the Arrow ones it runs: the pickled kind is left as is).
func chainable(t int32) bool {
	return t == evalArrowBatched || t == evalScalarPandas || t == evalScalarArrow
}

// chainedInner is the call u's only argument is, when the two run as one chained function
// (Spark's ExtractPythonUDFs.collectFunctions: a positional argument that is itself a call of
// the same eval type), else nil.
func chainedInner(u *plan.PythonUDF) *plan.PythonUDF {
	if len(u.Args) != 1 || !chainable(u.EvalType) || (u.ArgNames != nil && u.ArgNames[0] != "") {
		return nil
	}
	v, ok := asPythonUDF(u.Args[0])
	if !ok || v.EvalType != u.EvalType {
		return nil
	}
	return v
}

// chain is u's chain of calls, innermost first (u alone when it chains nothing).
func chain(u *plan.PythonUDF) []*plan.PythonUDF {
	out := []*plan.PythonUDF{u}
	for v := chainedInner(u); v != nil; v = chainedInner(v) {
		out = append([]*plan.PythonUDF{v}, out...)
	}
	return out
}

// chainArgs are the arguments of u's chain: its innermost call's.
func chainArgs(u *plan.PythonUDF) []plan.Expr { return chain(u)[0].Args }

// argsReady reports whether u's arguments call no Python function that is not done.
func argsReady(u *plan.PythonUDF, done map[*plan.PythonUDF]bool) bool {
	ready := true
	for _, arg := range chainArgs(u) {
		walkPlanExpr(arg, func(x plan.Expr) bool {
			if v, ok := asPythonUDF(x); ok {
				ready = ready && done[v]
				return false
			}
			return ready
		})
	}
	return ready
}

// bindChainedPythonFunc binds a call of a PythonEval node: a chain of directly nested calls of
// one eval type becomes one function (its outermost call, the others Chained).
func (a *Analyzer) bindChainedPythonFunc(b *binder, u *plan.PythonUDF) (*logical.PythonFunc, error) {
	calls := chain(u)
	inner, err := a.bindPythonFunc(b, calls[0])
	if err != nil || len(calls) == 1 {
		return inner, err
	}
	f := &logical.PythonFunc{Name: u.Name, EvalType: u.EvalType, Command: u.Command, PythonVer: u.PythonVer,
		ReturnType: u.OutputType, Args: inner.Args, ArgNames: inner.ArgNames, Chained: []*logical.PythonFunc{inner}}
	for _, v := range calls[1 : len(calls)-1] {
		f.Chained = append(f.Chained, &logical.PythonFunc{Name: v.Name, EvalType: v.EvalType, Command: v.Command,
			PythonVer: v.PythonVer, ReturnType: v.OutputType})
	}
	return f, nil
}

// bindPythonFunc binds a call's arguments over b's input.
func (a *Analyzer) bindPythonFunc(b *binder, u *plan.PythonUDF) (*logical.PythonFunc, error) {
	if err := checkArgNames(u.Name, u.ArgNames); err != nil {
		return nil, err
	}
	f := &logical.PythonFunc{Name: u.Name, EvalType: u.EvalType, Command: u.Command, PythonVer: u.PythonVer,
		ReturnType: u.OutputType, ArgNames: u.ArgNames}
	for _, arg := range u.Args {
		if _, ok := asStar(arg); ok {
			refs, err := a.expandStar(b.in, planStar(arg))
			if err != nil {
				return nil, err
			}
			for i := range refs {
				if b.starRef != nil {
					if refs[i], err = b.starRef(refs[i]); err != nil {
						return nil, err
					}
				}
			}
			f.Args = append(f.Args, refs...)
			if f.ArgNames != nil {
				return nil, sparkerr.Unsupported("a star among named arguments of the Python function %q", u.Name)
			}
			continue
		}
		x, err := b.bind(arg)
		if err != nil {
			return nil, err
		}
		f.Args = append(f.Args, x)
	}
	return f, nil
}

// checkArgNames checks the keyword names of a call of the routine name as Spark does for
// functions that take named arguments: a positional argument after a named one is
// UNEXPECTED_POSITIONAL_ARGUMENT, a name given twice
// DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE.
func checkArgNames(name string, names []string) error {
	seen := map[string]bool{}
	last := ""
	for _, n := range names {
		switch {
		case n == "" && last != "":
			return sparkerr.Analysis("UNEXPECTED_POSITIONAL_ARGUMENT", "4274K",
				"Cannot invoke routine `%s` because it contains positional argument(s) following the named argument assigned to `%s`; please rearrange them so the positional arguments come first and then retry the query again.",
				name, last).WithParams("routineName", "`"+name+"`", "parameterName", "`"+last+"`")
		case n != "" && seen[n]:
			return sparkerr.Analysis("DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE", "4274K",
				"Call to routine `%s` is invalid because it includes multiple argument assignments to the same parameter name `%s`. More than one named argument referred to the same parameter. Please assign a value only once.",
				name, n).WithParams("routineName", "`"+name+"`", "parameterName", "`"+n+"`")
		case n != "":
			seen[n] = true
			last = n
		}
	}
	return nil
}

// namedArgsUnsupported is Spark's NAMED_PARAMETERS_NOT_SUPPORTED for a named argument in a
// call of a builtin function (none of Weir's takes them).
func namedArgsUnsupported(c plan.Call) error {
	if c.ArgNames == nil {
		return nil
	}
	q := "`" + strings.ToLower(c.Name) + "`"
	return sparkerr.Analysis("NAMED_PARAMETERS_NOT_SUPPORTED", "4274K",
		"Named parameters are not supported for function %s; please retry the query with positional arguments to the function call instead.", q).
		WithParams("functionName", q)
}

func planStar(e plan.Expr) plan.Star {
	s, _ := asStar(e)
	return s
}

// checkScalarEval refuses a function of a non-scalar eval type where a row-by-row call is
// expected, with Spark's errors.
func checkScalarEval(u *plan.PythonUDF) error {
	switch {
	case isScalarEval(u.EvalType):
		return nil
	case u.EvalType == evalGroupedAgg || u.EvalType == evalGroupedAggArrow:
		return sparkerr.Analysis("UNSUPPORTED_EXPR_FOR_OPERATOR", "42K0E",
			"A query operator contains one or more unsupported expressions. Consider to rewrite it to avoid window functions, aggregate functions, and generator functions in the WHERE clause. Invalid expressions: [%s]",
			u.Name).WithParams("invalidExprSqls", u.Name)
	case u.EvalType == evalWindowAgg:
		return sparkerr.Unsupported("window aggregate Python functions (%s) are not supported", u.Name)
	}
	return sparkerr.Analysis("INVALID_UDF_EVAL_TYPE", "42000",
		"The UDF %s is of eval type %d, which cannot be called as a column expression.", u.Name, u.EvalType).
		WithParams("evalType", fmt.Sprint(u.EvalType))
}

// bindPythonUDF binds a Python function call to the hidden column that holds its result.
func (b *binder) bindPythonUDF(u *plan.PythonUDF) (expr.Expr, error) {
	if i, ok := b.a.pythonColumn(b.in, u); ok {
		return &expr.Alias{Child: b.in.ref(i), Name: b.in.cols[i].udfName}, nil
	}
	if err := checkScalarEval(u); err != nil {
		return nil, err
	}
	return nil, sparkerr.Unsupported("calling the Python function %q here (Python functions are evaluated in select lists, filters, withColumns, grouping and aggregate arguments, sort keys and join conditions)", u.Name)
}

// pythonColumn finds the hidden column of in that holds the result of the call u: the one
// computed for u itself, or, for a deterministic call, for an equal call (the same function
// over the same bound arguments: groupBy(f(x)).agg(f(x)) computes f(x) once).
func (a *Analyzer) pythonColumn(in *resolved, u *plan.PythonUDF) (int, bool) {
	keyed := false
	for i, c := range in.cols {
		if c.udf == u {
			return i, true
		}
		keyed = keyed || c.udfKey != ""
	}
	if !keyed || !u.Deterministic || !isScalarEval(u.EvalType) {
		return 0, false
	}
	f, err := a.bindChainedPythonFunc(a.binderOver(in), u)
	if err != nil {
		return 0, false
	}
	key := pythonFuncKey(f, true)
	for i, c := range in.cols {
		if c.udfKey == key {
			return i, true
		}
	}
	return 0, false
}

// pythonFuncKey identifies a bound deterministic call for matching equal calls; "" for a
// nondeterministic one, which equals no other call.
func pythonFuncKey(f *logical.PythonFunc, deterministic bool) string {
	if !deterministic {
		return ""
	}
	var b strings.Builder
	var write func(f *logical.PythonFunc)
	write = func(f *logical.PythonFunc) {
		fmt.Fprintf(&b, "%s|%d|%x|%s|", f.Name, f.EvalType, sha256.Sum256(f.Command), f.ReturnType.String())
		for _, g := range f.Chained {
			write(g)
		}
	}
	write(f)
	for i, x := range f.Args {
		if f.ArgNames != nil {
			b.WriteString(f.ArgNames[i] + "=")
		}
		b.WriteString(exprKey(x) + "|")
	}
	return b.String()
}

// resolveFilterWithPythonUDFs filters on a condition that calls Python functions: Filter over
// the PythonEval nodes, then the input's columns.
func (a *Analyzer) resolveFilterWithPythonUDFs(ctx context.Context, n *plan.Filter, cond plan.Expr) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	wide, err := a.withPythonUDFs(in, []plan.Expr{cond})
	if err != nil {
		return nil, err
	}
	x, err := a.bindCondition(wide, cond)
	if err != nil {
		return nil, err
	}
	filtered := a.keepScope(wide, &logical.Filter{Input: wide.node, Cond: x})
	refs := make([]expr.Expr, len(in.cols))
	for i := range refs {
		refs[i] = filtered.ref(i)
	}
	return filtered.project(refs), nil
}

// pythonFunc is a map or grouped-map function's logical form, checked against the eval types
// the relation takes and its struct return type.
func pythonFunc(u *plan.PythonUDF, what string, evalTypes ...int32) (*logical.PythonFunc, error) {
	ok := false
	for _, t := range evalTypes {
		ok = ok || u.EvalType == t
	}
	if !ok {
		return nil, sparkerr.Analysis("INVALID_UDF_EVAL_TYPE", "42000",
			"%s does not support UDFs with eval type %d.", what, u.EvalType).
			WithParams("evalType", fmt.Sprint(u.EvalType))
	}
	if u.OutputType.Kind != sqltypes.Struct {
		return nil, sparkerr.Analysis("INVALID_RETURN_TYPE", "42000",
			"The return type of %s must be a StructType.", what)
	}
	return &logical.PythonFunc{Name: u.Name, EvalType: u.EvalType, Command: u.Command, PythonVer: u.PythonVer,
		ReturnType: u.OutputType}, nil
}

func (a *Analyzer) resolveMapInPython(ctx context.Context, n *plan.MapInPython) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	f, err := pythonFunc(n.Func, "mapInPandas/mapInArrow", evalMapPandas, evalMapArrow)
	if err != nil {
		return nil, err
	}
	f.Args = in.visibleRefs()
	return newResolved(&logical.MapInPython{Input: in.node, Func: f, IsBarrier: n.IsBarrier}), nil
}

func (a *Analyzer) resolveGroupMapInPython(ctx context.Context, n *plan.GroupMapInPython) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	f, err := pythonFunc(n.Func, "applyInPandas/applyInArrow", evalGroupedMap, evalGroupedMapArrow)
	if err != nil {
		return nil, err
	}
	keys, err := a.binderOver(in).bindAll(n.Grouping)
	if err != nil {
		return nil, err
	}
	f.Args = in.visibleRefs()
	return newResolved(&logical.GroupMapInPython{Input: in.node, Keys: keys, Func: f}), nil
}

func (a *Analyzer) resolveCoGroupMapInPython(ctx context.Context, n *plan.CoGroupMapInPython) (*resolved, error) {
	left, err := a.resolve(ctx, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := a.resolve(ctx, n.Right)
	if err != nil {
		return nil, err
	}
	f, err := pythonFunc(n.Func, "cogroup().applyInPandas/applyInArrow", evalCogroupedMap, evalCogroupedArrow)
	if err != nil {
		return nil, err
	}
	lk, err := a.binderOver(left).bindAll(n.LeftGrouping)
	if err != nil {
		return nil, err
	}
	rk, err := a.binderOver(right).bindAll(n.RightGrouping)
	if err != nil {
		return nil, err
	}
	if len(lk) != len(rk) {
		return nil, sparkerr.IllegalArgument("requirement failed: the two sides of a cogroup must have as many grouping expressions (%d and %d)", len(lk), len(rk))
	}
	for i := range lk {
		if !lk[i].Type().Equal(rk[i].Type()) {
			t, ok := expr.CommonType(lk[i].Type(), rk[i].Type())
			if !ok {
				return nil, sparkerr.DatatypeMismatch("DATA_DIFF_TYPES", `"cogroup"`,
					"Cannot cogroup on keys of types %s and %s.", lk[i].Type().SQL(), rk[i].Type().SQL())
			}
			if lk[i], err = a.castIfNeeded(lk[i], t); err != nil {
				return nil, err
			}
			if rk[i], err = a.castIfNeeded(rk[i], t); err != nil {
				return nil, err
			}
		}
	}
	return newResolved(&logical.CoGroupMapInPython{Left: left.node, Right: right.node, LeftKeys: lk, RightKeys: rk, Func: f}), nil
}

// addPythonAggregate binds a grouped-aggregate Python function call over the aggregation's input
// and references its output column (Spark's PythonUDAF in an Aggregate).
func (b *aggBuild) addPythonAggregate(u *plan.PythonUDF) (expr.Expr, error) {
	nested := func() error {
		return sparkerr.Analysis("NESTED_AGGREGATE_FUNCTION", "42607",
			"It is not allowed to use an aggregate function in the argument of another aggregate function. Please use the inner aggregate function in a sub-query.")
	}
	for _, arg := range u.Args {
		var inAgg bool
		walkPlanExpr(arg, func(e plan.Expr) bool {
			if v, ok := e.(*plan.PythonUDF); ok && (v.EvalType == evalGroupedAgg || v.EvalType == evalGroupedAggArrow) {
				inAgg = true
			}
			return !inAgg
		})
		if inAgg {
			return nil, nested()
		}
	}
	inner := b.a.binderOver(b.in)
	inner.aggError = func(plan.Call) error { return nested() }
	f, err := b.a.bindPythonFunc(inner, u)
	if err != nil {
		return nil, err
	}
	key := "python|" + string(f.Command) + "|" + f.String()
	for _, x := range f.Args {
		key += "|" + exprKey(x)
	}
	if j, ok := b.aggKeys[key]; ok {
		return b.pythonAggRef(j), nil
	}
	b.aggKeys[key] = len(b.pyAggs)
	b.pyAggs = append(b.pyAggs, f)
	return b.pythonAggRef(len(b.pyAggs) - 1), nil
}

// pythonAggRef references grouped-aggregate function i in the aggregation's output.
func (b *aggBuild) pythonAggRef(i int) expr.Expr {
	f := b.pyAggs[i]
	return &expr.Column{Index: len(b.liveGroups()) + i, Name: f.String(), T: f.ReturnType, Null: true}
}

// pythonAggregate is the AggregateInPython of an aggregation whose calls are grouped-aggregate
// Python functions, or Spark's error when it mixes them with other aggregates.
func (b *aggBuild) pythonAggregate(groups []expr.Expr) (logical.Node, error) {
	if len(b.aggs) > 0 {
		names := make([]string, len(b.pyAggs))
		for i, f := range b.pyAggs {
			names[i] = sparkerr.Quote(f.Name)
		}
		list := strings.Join(names, ", ")
		return nil, sparkerr.Analysis("INVALID_PANDAS_UDF_PLACEMENT", "0A000",
			"The group aggregate pandas UDF %s cannot be invoked together with as other, non-pandas aggregate functions.", list).
			WithParams("functionList", list)
	}
	if b.nulled != nil || b.pivotGuard != nil {
		return nil, sparkerr.Unsupported("grouped-aggregate Python functions with ROLLUP, CUBE, GROUPING SETS or PIVOT are not supported")
	}
	n := &logical.AggregateInPython{Input: b.in.node, Groups: groups, EvalType: b.pyAggs[0].EvalType, Funcs: b.pyAggs}
	for _, f := range b.pyAggs {
		if f.EvalType != n.EvalType {
			return nil, sparkerr.Unsupported("grouped-aggregate pandas and Arrow Python functions in one aggregation are not supported")
		}
		n.Names = append(n.Names, f.String())
	}
	return n, nil
}
