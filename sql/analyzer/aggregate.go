package analyzer

import (
	"context"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// groupSpec describes one grouped query: GROUP BY expressions and the select list.
type groupSpec struct {
	grouping []plan.Expr
	aggs     []plan.Expr
	// global is true when there is no GROUP BY at all (a Project with aggregate calls).
	global bool
}

// aggBuild is a resolved aggregation: the Aggregate node (with the input's scope for grouping
// columns) and the select list bound over its output.
type aggBuild struct {
	agg     *resolved
	outputs []expr.Expr
	// groups are the bound grouping expressions over the input, keyed for matching.
	groups    []expr.Expr
	groupKeys map[string]int
	// matchSize bounds the size (in plan nodes) of an expression that may equal a grouping
	// expression (see rewrite).
	matchSize int
	aggs      []expr.AggFunc
	aggNames  []string
	aggKeys   map[string]int
	// pyAggs are the grouped-aggregate Python function calls (keyed in aggKeys too); a query
	// with any is an AggregateInPython and may not call other aggregates.
	pyAggs []*logical.PythonFunc
	// above are the scalar Python function calls over the aggregation's results (keyed by
	// pythonFuncKey in aboveKeys), evaluated above the Aggregate.
	above     []*abovePython
	aboveKeys map[string]int
	// nulled marks grouping expressions rolled up in this grouping set (they read as NULL).
	nulled map[int]bool
	// pivotGuard, when set, restricts every aggregate call to the rows of one pivot value.
	pivotGuard expr.Expr
	in         *resolved
	spec       groupSpec
	a          *Analyzer
	// windows collects the select list's window functions (computed over the aggregation).
	windows *windowSet
}

func (a *Analyzer) resolveAggregate(ctx context.Context, n *plan.Aggregate) (*resolved, error) {
	n, err := a.expandMetricView(ctx, n)
	if err != nil {
		return nil, err
	}
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	n = a.withPythonCalls(n)
	spec := groupSpec{grouping: n.Grouping, aggs: n.Aggs, global: len(n.Grouping) == 0}
	switch n.Type {
	case plan.GroupBy:
		return a.resolveGrouped(ctx, in, spec)
	case plan.GroupRollup, plan.GroupCube, plan.GroupingSets:
		return a.resolveGroupingSets(in, n)
	case plan.GroupPivot:
		if n.PivotCol != nil && len(n.PivotValues) == 0 {
			if n, err = a.withPivotValues(ctx, in, n); err != nil {
				return nil, err
			}
		}
		return a.resolvePivot(in, n)
	}
	return nil, sparkerr.Unsupported("grouping type %d is not supported", n.Type)
}

// resolveGrouped resolves a grouped (or global) aggregation into Project(Aggregate).
func (a *Analyzer) resolveGrouped(ctx context.Context, in *resolved, spec groupSpec) (*resolved, error) {
	if anyGenerator(spec.aggs) {
		return a.resolveGroupedGenerator(ctx, in, spec)
	}
	if anySubquery(spec.aggs) {
		return a.resolveGroupedWithSubqueries(ctx, in, spec)
	}
	in, err := a.pythonBelowAggregate(in, spec)
	if err != nil {
		return nil, err
	}
	b, err := a.newAggBuild(in, spec, nil)
	if err != nil {
		return nil, err
	}
	b.windows = a.newWindowSet()
	if err := b.bindOutputs(); err != nil {
		return nil, err
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	return b.windows.over(b.agg).project(b.outputs), nil
}

// newAggBuild binds the grouping expressions of spec over in.
func (a *Analyzer) newAggBuild(in *resolved, spec groupSpec, nulled map[int]bool) (*aggBuild, error) {
	b := &aggBuild{a: a, in: in, spec: spec, groupKeys: map[string]int{}, aggKeys: map[string]int{}, nulled: nulled,
		matchSize: 16, aboveKeys: map[string]int{}}
	grouping, err := a.expandGrouping(in, spec)
	if err != nil {
		return nil, err
	}
	gb := a.binderOver(in)
	gb.aggError = func(c plan.Call) error {
		return sparkerr.Analysis("GROUP_BY_AGGREGATE", "42903",
			"Aggregate functions are not allowed in GROUP BY, but found %s.", callSQL(c)).
			WithParams("sqlExpr", callSQL(c))
	}
	groups, err := gb.bindAll(grouping)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		k := exprKey(g)
		if _, dup := b.groupKeys[k]; dup {
			continue
		}
		b.groupKeys[k] = len(b.groups)
		b.groups = append(b.groups, g)
		// A plan expression binds to at least about half as many nodes (elided no-op casts
		// and aliases), so 4× the bound size with some slack never misses a match.
		b.matchSize = max(b.matchSize, 4*exprSize(g)+16)
	}
	return b, nil
}

// expandGrouping applies GROUP BY ALL, GROUP BY ordinals and GROUP BY select-list aliases.
func (a *Analyzer) expandGrouping(in *resolved, spec groupSpec) ([]plan.Expr, error) {
	g := spec.grouping
	if len(g) == 1 {
		if ref, ok := asColumnRef(g[0]); ok && len(ref.Name) == 1 && strings.EqualFold(ref.Name[0], "all") {
			if _, _, found := a.lookup(in, ref); !found {
				var out []plan.Expr
				for _, e := range spec.aggs {
					if !containsAggregate(e) {
						out = append(out, stripPlanAlias(e))
					}
				}
				return out, nil
			}
		}
	}
	out := make([]plan.Expr, len(g))
	for i, e := range g {
		out[i] = e
		if lit, ok := asLiteral(e); ok && lit.Type.IsIntegral() && lit.Value != nil {
			pos := toInt(lit.Value)
			if pos < 1 || pos > len(spec.aggs) {
				return nil, sparkerr.Analysis("GROUP_BY_POS_OUT_OF_RANGE", "42805",
					"GROUP BY position %d is not in select list (valid range is [1, %d]).", pos, len(spec.aggs)).
					WithParams("index", formatInt(int64(pos)), "size", formatInt(int64(len(spec.aggs))))
			}
			item := spec.aggs[pos-1]
			if containsAggregate(item) {
				return nil, sparkerr.Analysis("GROUP_BY_POS_AGGREGATE", "42903",
					"GROUP BY %d refers to an expression %s that contains an aggregate function. Aggregate functions are not allowed in GROUP BY.",
					pos, planExprSQL(item)).WithParams("index", formatInt(int64(pos)), "aggExpr", planExprSQL(item))
			}
			out[i] = stripPlanAlias(item)
			continue
		}
		if ref, ok := asColumnRef(e); ok && len(ref.Name) == 1 {
			if _, _, found := a.lookup(in, ref); found {
				continue
			}
			for _, item := range spec.aggs {
				if al, ok := asAlias(item); ok && len(al.Names) == 1 && a.nameEq(al.Names[0], ref.Name[0]) && !containsAggregate(al.Child) {
					out[i] = al.Child
					break
				}
			}
		}
	}
	return out, nil
}

func stripPlanAlias(e plan.Expr) plan.Expr {
	if al, ok := asAlias(e); ok {
		return al.Child
	}
	return e
}

func toInt(v any) int {
	switch x := v.(type) {
	case int8:
		return int(x)
	case int16:
		return int(x)
	case int32:
		return int(x)
	case int64:
		return int(x)
	case int:
		return x
	}
	return 0
}

// binder returns a binder over the input that rewrites grouping expressions and aggregate
// calls into references to the Aggregate's output.
func (b *aggBuild) binder() *binder {
	bd := b.a.binderOver(b.in)
	bd.intercept = func(e plan.Expr) (expr.Expr, bool, error) { return b.rewrite(bd, e) }
	bd.starRef = b.starRef
	bd.windows = b.windows
	return bd
}

// rewrite is the binder intercept of a grouped query (see binder.intercept).
func (b *aggBuild) rewrite(bd *binder, e plan.Expr) (expr.Expr, bool, error) {
	if _, ok := windowParts(e); ok {
		// A window function over the aggregation: bindWindow binds its parts here.
		return nil, false, nil
	}
	if c, ok := asCall(e); ok {
		switch strings.ToLower(c.Name) {
		case "grouping", "grouping_id":
			x, err := b.groupingCall(c)
			return x, true, err
		}
	}
	if c, ok := asCall(e); ok && expr.IsAggregate(strings.ToLower(c.Name)) {
		x, err := b.addAggregate(c)
		return x, true, err
	}
	if u, ok := asPythonUDF(e); ok && isGroupedAggEval(u.EvalType) {
		x, err := b.addPythonAggregate(u)
		return x, true, err
	}
	if u, ok := asPythonUDF(e); ok {
		x, err := b.pythonCall(bd, u)
		return x, true, err
	}
	if !planSizeAtMost(e, b.matchSize) {
		// Too large to equal a grouping expression: bind its parts. Binding and matching it
		// whole at every level of a chain made a grouped query quadratic in its size.
		return nil, false, nil
	}
	if containsAggregate(e) {
		return nil, false, nil
	}
	if _, ok := asAlias(e); ok {
		// Bind the child, keep the alias's name.
		return nil, false, nil
	}
	if _, ok := asStar(e); ok {
		return nil, false, nil
	}
	plain := b.a.binderOver(b.in)
	x, err := plain.bind(e)
	if err != nil {
		return nil, true, err
	}
	if i, ok := b.groupKeys[exprKey(x)]; ok {
		return b.groupRef(i), true, nil
	}
	if !readsColumns(x) {
		return x, true, nil
	}
	if _, isCol := trimAlias(x).(*expr.Column); isCol || len(planChildren(e)) == 0 {
		return nil, true, b.missingAggregation(x)
	}
	return nil, false, nil
}

// groupRef references grouping expression i in the Aggregate's output (NULL when rolled up).
func (b *aggBuild) groupRef(i int) expr.Expr {
	g := b.groups[i]
	if b.nulled[i] {
		return &expr.Alias{Child: expr.NewLiteral(nil, g.Type()), Name: expr.OutputName(g)}
	}
	return &expr.Column{Index: b.liveIndex(i), Name: expr.OutputName(g), T: g.Type(), Null: g.Nullable()}
}

// liveIndex is the output position of grouping expression i among the grouping expressions not
// rolled up.
func (b *aggBuild) liveIndex(i int) int {
	n := 0
	for j := 0; j < i; j++ {
		if !b.nulled[j] {
			n++
		}
	}
	return n
}

func (b *aggBuild) liveGroups() []expr.Expr {
	var out []expr.Expr
	for i, g := range b.groups {
		if !b.nulled[i] {
			out = append(out, g)
		}
	}
	return out
}

// addAggregate binds an aggregate call over the input and references its output column.
func (b *aggBuild) addAggregate(c plan.Call) (expr.Expr, error) {
	name := strings.ToLower(c.Name)
	c, err := arrangeArgs(c)
	if err != nil {
		return nil, err
	}
	inner := b.a.binderOver(b.in)
	inner.aggError = func(c plan.Call) error {
		return sparkerr.Analysis("NESTED_AGGREGATE_FUNCTION", "42607",
			"It is not allowed to use an aggregate function in the argument of another aggregate function. Please use the inner aggregate function in a sub-query.")
	}
	var args []expr.Expr
	if s, ok := singleStar(c.Args); ok && name == "count" && len(s.Target) == 0 {
		args = []expr.Expr{expr.NewLiteral(int32(1), sqltypes.IntegerType)}
	} else {
		var err error
		if args, err = inner.bindAll(c.Args); err != nil {
			return nil, err
		}
	}
	var order *orderedSetOrder
	if c.WithinGroup != nil {
		var err error
		if order, err = inner.withinGroup(c); err != nil {
			return nil, err
		}
	}
	fn, err := order.bindAggregate(name, args, c.Distinct, b.a.Options)
	if err != nil {
		return nil, err
	}
	display := fn.String()
	key := display
	for _, x := range args {
		key += "|" + exprKey(x)
	}
	if order != nil {
		display += expr.WithinGroupSQL(order.key, order.desc)
		key += "|within|" + exprKey(order.key) + strconv.FormatBool(order.desc)
	}
	var cond expr.Expr
	if c.Filter != nil {
		if cond, err = inner.bind(c.Filter); err != nil {
			return nil, err
		}
		if err := checkBoolean(cond); err != nil {
			return nil, err
		}
		display += " FILTER (WHERE " + cond.String() + ")"
		key += "|filter|" + exprKey(cond)
	}
	if b.pivotGuard != nil {
		key += "|pivot|" + exprKey(b.pivotGuard)
		if cond == nil {
			cond = b.pivotGuard
		} else if cond, err = expr.Bind("and", []expr.Expr{cond, b.pivotGuard}, b.a.Options); err != nil {
			return nil, err
		}
	}
	if cond != nil && order != nil {
		// Rows failing the filter order by NULL, which the ordered-set aggregates skip.
		guarded, err := expr.Bind("when", []expr.Expr{cond, order.key}, b.a.Options)
		if err != nil {
			return nil, err
		}
		if fn, err = expr.BindOrderedSet(name, args, c.Distinct, guarded, order.desc, b.a.Options); err != nil {
			return nil, err
		}
	} else if cond != nil {
		if fn, err = b.filtered(name, args, c.Distinct, cond); err != nil {
			return nil, err
		}
	}
	j, ok := b.aggKeys[key]
	if !ok {
		j = len(b.aggs)
		b.aggKeys[key] = j
		b.aggs = append(b.aggs, fn)
		b.aggNames = append(b.aggNames, display)
	}
	return &expr.Column{Index: len(b.liveGroups()) + j, Name: b.aggNames[j], T: fn.Type(), Null: fn.Nullable()}, nil
}

func singleStar(args []plan.Expr) (plan.Star, bool) {
	if len(args) != 1 {
		return plan.Star{}, false
	}
	return asStar(args[0])
}

// readsColumns reports whether a bound expression reads any input column.
func readsColumns(e expr.Expr) bool {
	if _, ok := e.(*expr.Column); ok {
		return true
	}
	for _, c := range e.Children() {
		if readsColumns(c) {
			return true
		}
	}
	return false
}

// missingAggregation is MISSING_AGGREGATION (GROUP BY) or MISSING_GROUP_BY (global aggregate).
func (b *aggBuild) missingAggregation(x expr.Expr) error {
	if b.spec.global {
		return sparkerr.Analysis("MISSING_GROUP_BY", "42803",
			"The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using OVER clauses.")
	}
	s := `"` + trimAlias(x).String() + `"`
	anyValue := `"any_value(` + trimAlias(x).String() + `)"`
	return sparkerr.Analysis("MISSING_AGGREGATION", "42803",
		"The non-aggregating expression %s is based on columns which are not participating in the GROUP BY clause.\nAdd the columns or the expression to the GROUP BY, aggregate the expression, or use %s if you do not care which of the values within a group is returned.",
		s, anyValue).WithParams("expression", s, "expressionAnyValue", anyValue)
}

// bindOutputs binds the select list over the Aggregate's output.
func (b *aggBuild) bindOutputs() error {
	bd := b.binder()
	for _, item := range b.spec.aggs {
		if _, ok := asStar(item); ok {
			refs, err := bd.bindAll([]plan.Expr{item})
			if err != nil {
				return err
			}
			b.outputs = append(b.outputs, refs...)
			continue
		}
		x, err := bd.bind(item)
		if err != nil {
			return err
		}
		b.outputs = append(b.outputs, x)
	}
	return nil
}

// starRef maps a column a star expands to onto its grouping expression's output column.
func (b *aggBuild) starRef(r expr.Expr) (expr.Expr, error) {
	i, ok := b.groupKeys[exprKey(r)]
	if !ok {
		return nil, b.missingAggregation(r)
	}
	return b.groupRef(i), nil
}

// bindExtra binds a HAVING condition or ORDER BY key over the Aggregate's output: names of the
// select list first, then grouping expressions and aggregate calls (added as hidden aggregates).
func (b *aggBuild) bindExtra(e plan.Expr) (expr.Expr, error) {
	bd := b.binder()
	outScope := b.outputScope()
	base := bd.intercept
	bd.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		if ref, ok := asColumnRef(x); ok {
			if _, _, found := b.a.lookup(b.in, ref); !found {
				if _, _, inOut := b.a.lookup(outScope, ref); inOut {
					r, err := b.a.resolveColumn(outScope, ref)
					if err != nil {
						return nil, true, err
					}
					return b.outputs[r.(*expr.Column).Index], true, nil
				}
			}
		}
		return base(x)
	}
	return bd.bind(e)
}

// outputScope names the select list's columns (without a node) for alias lookups.
func (b *aggBuild) outputScope() *resolved {
	s := logical.SchemaOf(b.outputs)
	cols := make([]column, len(s))
	for i, f := range s {
		cols[i] = column{name: f.Name, typ: f.Type, nullable: f.Nullable}
	}
	return &resolved{cols: cols}
}

// finish builds the Aggregate node once every aggregate call has been collected: an
// AggregateInPython when the calls are grouped-aggregate Python functions.
func (b *aggBuild) finish() error {
	groups := b.liveGroups()
	var node logical.Node = &logical.Aggregate{Input: b.in.node, Groups: groups, Aggs: b.aggs, Names: b.aggNames}
	if len(b.pyAggs) > 0 {
		var err error
		if node, err = b.pythonAggregate(groups); err != nil {
			return err
		}
	}
	r := newResolved(node)
	for i, g := range groups {
		if c, ok := g.(*expr.Column); ok {
			r.cols[i].qualifier = b.in.cols[c.Index].qualifier
			r.cols[i].planIDs = b.in.cols[c.Index].planIDs
		}
	}
	b.agg = b.aboveAggregate(r)
	return nil
}

// resolveHaving resolves Filter(cond) over Aggregate as HAVING: aggregate calls in cond become
// hidden aggregates; the result projects the select list over the filtered Aggregate.
func (a *Analyzer) resolveHaving(ctx context.Context, n *plan.Aggregate, cond plan.Expr) (*resolved, error) {
	if n.Type != plan.GroupBy {
		return nil, sparkerr.Unsupported("HAVING over ROLLUP, CUBE, GROUPING SETS or PIVOT is not supported yet")
	}
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	n = a.withPythonCalls(n)
	cond = a.pythonCalls([]plan.Expr{cond})[0]
	spec := groupSpec{grouping: n.Grouping, aggs: n.Aggs, global: len(n.Grouping) == 0}
	if in, err = a.pythonBelowAggregate(in, spec, cond); err != nil {
		return nil, err
	}
	b, err := a.newAggBuild(in, spec, nil)
	if err != nil {
		return nil, err
	}
	if err := b.bindOutputs(); err != nil {
		return nil, err
	}
	c, err := b.bindExtra(cond)
	if err != nil {
		return nil, err
	}
	if err := checkBoolean(c); err != nil {
		return nil, err
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	filtered := a.keepScope(b.agg, &logical.Filter{Input: b.agg.node, Cond: c})
	return filtered.project(b.outputs).withPlanID(n.PlanID), nil
}

// filtered binds agg(args) FILTER (WHERE cond) (expr.BindFilteredAggregate: mostly
// agg(CASE WHEN cond THEN arg END, …), rows failing the filter feeding NULLs, which the
// null-ignoring aggregates skip).
func (b *aggBuild) filtered(name string, args []expr.Expr, distinct bool, cond expr.Expr) (expr.AggFunc, error) {
	return b.a.filteredAggregate(name, args, distinct, cond)
}

// filteredAggregate binds agg(args) FILTER (WHERE cond) (see aggBuild.filtered).
func (a *Analyzer) filteredAggregate(name string, args []expr.Expr, distinct bool, cond expr.Expr) (expr.AggFunc, error) {
	switch name {
	case "first", "last", "first_value", "last_value", "any_value":
		return nil, sparkerr.Unsupported("FILTER (WHERE …) on %s is not supported", name)
	}
	return expr.BindFilteredAggregate(name, args, distinct, cond, a.Options)
}

// groupingCall folds grouping(e) and grouping_id(e, …) to this grouping set's constant:
// 1 (or the bit) for a rolled-up grouping expression, 0 for one grouped by.
func (b *aggBuild) groupingCall(c plan.Call) (expr.Expr, error) {
	name := strings.ToLower(c.Name)
	if b.nulled == nil {
		return nil, sparkerr.Analysis("UNSUPPORTED_GROUPING_EXPRESSION", "42K0E",
			"grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup.")
	}
	plain := b.a.binderOver(b.in)
	var idx []int
	var args []string
	for _, arg := range c.Args {
		x, err := plain.bind(arg)
		if err != nil {
			return nil, err
		}
		i, ok := b.groupKeys[exprKey(x)]
		if !ok {
			return nil, sparkerr.Analysis("GROUPING_COLUMN_MISMATCH", "42803",
				"Column of grouping (%s) can't be found in grouping columns.", x.String()).
				WithParams("grouping", x.String())
		}
		idx = append(idx, i)
		args = append(args, x.String())
	}
	display := name + "(" + strings.Join(args, ", ") + ")"
	if name == "grouping" {
		if len(idx) != 1 {
			return nil, sparkerr.Analysis("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
				"The `grouping` requires 1 parameters but the actual number is %d.", len(idx))
		}
		v := int8(0)
		if b.nulled[idx[0]] {
			v = 1
		}
		return &expr.Alias{Child: expr.NewLiteral(v, sqltypes.ByteType), Name: display}, nil
	}
	if len(idx) == 0 {
		for i := range b.groups {
			idx = append(idx, i)
		}
	}
	var gid int64
	for _, i := range idx {
		gid <<= 1
		if b.nulled[i] {
			gid |= 1
		}
	}
	return &expr.Alias{Child: expr.NewLiteral(gid, sqltypes.LongType), Name: display}, nil
}

// exprSize is the number of nodes of a bound expression.
func exprSize(e expr.Expr) int {
	n := 1
	for _, c := range e.Children() {
		n += exprSize(c)
	}
	return n
}

// planSizeAtMost reports whether e has at most limit nodes, visiting at most limit+1 of them.
func planSizeAtMost(e plan.Expr, limit int) bool {
	seen := 0
	var walk func(plan.Expr) bool
	walk = func(x plan.Expr) bool {
		if seen++; seen > limit {
			return false
		}
		for _, c := range planChildren(x) {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	return walk(e)
}
