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

// Generators in select lists (Spark's ExtractGenerator) and LATERAL VIEW (plan.Generate).
//
// A select list may hold one generator call at its top level (possibly aliased, with one name
// per generated column); the select becomes a logical.Generate over its input, which appends the
// generated columns, and a Project above it that reads the input columns for the other items and
// the generated columns in the generator's place. The other items see only the input's columns.

// generation is a Generate built for a select list.
type generation struct {
	// in is the Generate with its generated columns hidden (the other items bind over it).
	in *resolved
	// pos is the index of the generator's item in the select list.
	pos int
	// outs reference the generated columns, in order.
	outs []expr.Expr
}

// visible is the Generate's scope with the generated columns visible.
func (g *generation) visible() *resolved {
	cols := append([]column(nil), g.in.cols...)
	for i := len(cols) - len(g.outs); i < len(cols); i++ {
		cols[i].hidden = false
	}
	return &resolved{node: g.in.node, cols: cols}
}

// generatorCall reports whether e is a generator call, possibly under aliases; names are the
// outermost alias's names (nil without one).
func generatorCall(e plan.Expr) (call plan.Call, names []string, ok bool) {
	for {
		al, isAlias := asAlias(e)
		if !isAlias {
			break
		}
		if names == nil {
			names = al.Names
		}
		e = al.Child
	}
	c, isCall := asCall(e)
	if !isCall || !selectGenerator(c.Name) {
		return plan.Call{}, nil, false
	}
	return c, names, true
}

// selectGenerator reports whether name is a generator a select list may call (the table-only
// ones bind as calls and fail there with NOT_A_SCALAR_FUNCTION, as in Spark).
func selectGenerator(name string) bool {
	return expr.IsGenerator(name) && !expr.IsTableOnlyGenerator(name)
}

// containsGenerator reports whether e calls a generator anywhere.
func containsGenerator(e plan.Expr) bool {
	found := false
	walkPlanExpr(e, func(x plan.Expr) bool {
		if c, ok := asCall(x); ok && selectGenerator(c.Name) {
			found = true
		}
		return !found
	})
	return found
}

// anyGenerator reports whether any of es calls a generator.
func anyGenerator(es []plan.Expr) bool {
	for _, e := range es {
		if containsGenerator(e) {
			return true
		}
	}
	return false
}

// findGenerator returns the index of the one item of a select list that is a generator call
// (-1 if none). Spark's rules: one generator per select list
// (UNSUPPORTED_GENERATOR.MULTI_GENERATOR), only at the top of an item
// (UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS).
func (a *Analyzer) findGenerator(in *resolved, items []plan.Expr) (int, error) {
	pos := -1
	var found []plan.Expr
	for i, item := range items {
		if call, _, ok := generatorCall(item); ok {
			for _, arg := range call.Args {
				if containsGenerator(arg) {
					return -1, a.nestedGenerator(in, item)
				}
			}
			pos = i
			found = append(found, call)
			continue
		}
		if containsGenerator(item) {
			return -1, a.nestedGenerator(in, item)
		}
	}
	if len(found) > 1 {
		quoted := make([]string, len(found))
		for i, g := range found {
			quoted[i] = a.renderWithGenerators(in, g)
		}
		list := strings.Join(quoted, ", ")
		return -1, sparkerr.Analysis("UNSUPPORTED_GENERATOR.MULTI_GENERATOR", "42K0E",
			"The generator is not supported: only one generator allowed per SELECT clause but found %d: %s.",
			len(found), list).WithParams("num", strconv.Itoa(len(found)), "generators", list)
	}
	return pos, nil
}

// planGenerator finds the generator of a select list and builds its Generate over in; it
// returns nil when items call no generator.
func (a *Analyzer) planGenerator(in *resolved, items []plan.Expr) (*generation, error) {
	pos, err := a.findGenerator(in, items)
	if err != nil || pos < 0 {
		return nil, err
	}
	call, names, _ := generatorCall(items[pos])
	g, err := a.bindGenerator(in, call, false)
	if err != nil {
		return nil, err
	}
	if names, err = generatorNames(g, names); err != nil {
		return nil, err
	}
	gen := &generation{pos: pos, in: a.generateOver(in, g, names, nil, true)}
	for k := range names {
		gen.outs = append(gen.outs, gen.in.ref(len(in.cols)+k))
	}
	return gen, nil
}

// bindSelect binds a select list without aggregates over in. With a generator the list is
// bound over the Generate it adds, which is returned as the input to project from.
func (a *Analyzer) bindSelect(in *resolved, items []plan.Expr) (*resolved, []expr.Expr, error) {
	gen, err := a.planGenerator(in, items)
	if err != nil {
		return nil, nil, err
	}
	if gen == nil {
		b := a.binderOver(in)
		b.windows = a.newWindowSet()
		exprs, err := b.bindAll(items)
		if err != nil {
			return nil, nil, err
		}
		return b.windows.over(in), exprs, nil
	}
	b := a.binderOver(gen.in)
	var exprs []expr.Expr
	for i, item := range items {
		if i == gen.pos {
			exprs = append(exprs, gen.outs...)
			continue
		}
		xs, err := b.bindAll([]plan.Expr{item})
		if err != nil {
			return nil, nil, err
		}
		exprs = append(exprs, xs...)
	}
	return gen.visible(), exprs, nil
}

// resolveGroupedGenerator resolves an aggregating select list with a generator over its
// aggregates (SELECT k, explode(collect_list(v)) … GROUP BY k): the aggregation computes the
// other items and the generator's arguments, a Generate runs over its result, and a Project
// puts the generated columns in the generator's place.
func (a *Analyzer) resolveGroupedGenerator(ctx context.Context, in *resolved, spec groupSpec) (*resolved, error) {
	pos, err := a.findGenerator(in, spec.aggs)
	if err != nil {
		return nil, err
	}
	call, names, _ := generatorCall(spec.aggs[pos])
	if err := namedArgsUnsupported(call); err != nil {
		return nil, err
	}
	var rest []plan.Expr
	for i, item := range spec.aggs {
		if _, ok := asStar(item); ok {
			return nil, sparkerr.Unsupported("a star next to a generator over aggregate functions")
		}
		if i != pos {
			rest = append(rest, item)
		}
	}
	for j, arg := range call.Args {
		rest = append(rest, plan.Alias{Child: arg, Names: []string{"_generator_arg" + strconv.Itoa(j)}})
	}
	agg, err := a.resolveGrouped(ctx, in, groupSpec{grouping: spec.grouping, aggs: rest, global: spec.global})
	if err != nil {
		return nil, err
	}
	base := len(agg.cols) - len(call.Args)
	args := make([]expr.Expr, len(call.Args))
	for j := range args {
		ref := agg.ref(base + j)
		// Rendered as the argument it computes (explode(collect_list(v))), as Spark shows it.
		if p, ok := agg.node.(*logical.Project); ok && len(p.Exprs) == len(agg.cols) {
			ref.Name = trimAlias(p.Exprs[base+j]).String()
		}
		args[j] = ref
	}
	g, err := expr.BindGenerator(call.Name, args, a.Options)
	if err != nil {
		return nil, err
	}
	if names, err = generatorNames(g, names); err != nil {
		return nil, err
	}
	gen := a.generateOver(agg, g, names, nil, false)
	var exprs []expr.Expr
	for i := 0; i < pos; i++ {
		exprs = append(exprs, agg.ref(i))
	}
	for k := range names {
		exprs = append(exprs, gen.ref(len(agg.cols)+k))
	}
	for i := pos; i < base; i++ {
		exprs = append(exprs, agg.ref(i))
	}
	return gen.project(exprs), nil
}

// bindGenerator binds a generator call's arguments over in and the generator itself.
func (a *Analyzer) bindGenerator(in *resolved, call plan.Call, outer bool) (expr.Generator, error) {
	if !expr.IsGenerator(call.Name) {
		if _, err := expr.Bind(call.Name, nil, a.Options); isUnresolvedRoutine(err) {
			return nil, err
		}
		name := sparkerr.Quote(strings.ToLower(call.Name))
		return nil, sparkerr.Analysis("UNSUPPORTED_GENERATOR.NOT_GENERATOR", "42K0E",
			"The generator is not supported: %s is expected to be a generator. However, its class is %s, which is not a generator.",
			name, "a scalar function").WithParams("functionName", name, "classCanonicalName", "a scalar function")
	}
	if err := namedArgsUnsupported(call); err != nil {
		return nil, err
	}
	args, err := a.binderOver(in).bindAll(call.Args)
	if err != nil {
		return nil, err
	}
	g, err := expr.BindGenerator(call.Name, args, a.Options)
	if err != nil {
		return nil, err
	}
	if outer {
		g = g.WithOuter()
	}
	return g, nil
}

func isUnresolvedRoutine(err error) bool {
	e, ok := sparkerr.As(err)
	return ok && strings.HasPrefix(e.Class, "UNRESOLVED_ROUTINE")
}

// generatorNames are the names of g's columns: aliases (one per column, else
// UDTF_ALIAS_NUMBER_MISMATCH) or the generator's defaults.
func generatorNames(g expr.Generator, aliases []string) ([]string, error) {
	return tableFunctionNames(g.Output(), aliases)
}

// tableFunctionNames are the names of a table function's output columns out: aliases (one per
// column, else UDTF_ALIAS_NUMBER_MISMATCH) or out's names.
func tableFunctionNames(out sqltypes.Schema, aliases []string) ([]string, error) {
	if len(aliases) == 0 {
		return out.Names(), nil
	}
	if len(aliases) != len(out) {
		got := strings.Join(aliases, ", ")
		return nil, sparkerr.Analysis("UDTF_ALIAS_NUMBER_MISMATCH", "42802",
			"The number of aliases supplied in the AS clause does not match the number of columns output by the UDTF. Expected %d aliases, but got %s.",
			len(out), got).WithParams("aliasesSize", strconv.Itoa(len(out)), "aliasesNames", got)
	}
	return aliases, nil
}

// generateOver is the Generate of g over in, its generated columns named names and qualified
// by qualifier (hidden ones are invisible to name resolution and stars).
func (a *Analyzer) generateOver(in *resolved, g expr.Generator, names, qualifier []string, hidden bool) *resolved {
	node := &logical.Generate{Input: in.node, Generator: g, Names: names}
	cols := append([]column(nil), in.cols...)
	for i, f := range g.Output() {
		cols = append(cols, column{name: names[i], qualifier: qualifier, typ: f.Type, nullable: f.Nullable, hidden: hidden})
	}
	return &resolved{node: node, cols: cols}
}

// nestedGenerator is UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS for a select item.
func (a *Analyzer) nestedGenerator(in *resolved, item plan.Expr) error {
	for {
		al, ok := asAlias(item)
		if !ok {
			break
		}
		item = al.Child
	}
	q := a.renderWithGenerators(in, item)
	return sparkerr.Analysis("UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS", "42K0E",
		"The generator is not supported: nested in expressions %s.", q).WithParams("expression", q)
}

// notAScalarFunction is NOT_A_SCALAR_FUNCTION for a table-only generator called as an expression.
func notAScalarFunction(c plan.Call) error {
	name := sparkerr.Quote(strings.ToLower(c.Name))
	return sparkerr.Analysis("NOT_A_SCALAR_FUNCTION", "42887",
		"%s appears as a scalar expression here, but the function was defined as a table function. Please update the query to move the function call into the FROM clause, or redefine %s as a scalar function instead.",
		name, name).WithParams("functionName", name)
}

// routineNotFound is ROUTINE_NOT_FOUND for a function name looked up in the current database
// (default, as current_database() answers).
func routineNotFound(fn string) error {
	name := sparkerr.Quote("default") + "." + sparkerr.Quote(strings.ToLower(fn))
	return sparkerr.Analysis("ROUTINE_NOT_FOUND", "42883",
		"The routine %s cannot be found. Verify the spelling and correctness of the schema and catalog.\nIf you did not qualify the name with a schema and catalog, verify the current_schema() output, or qualify the name with the correct schema and catalog.\nTo tolerate the error on drop use DROP ... IF EXISTS.",
		name).WithParams("routineName", name)
}

// generatorOutsideSelect is UNSUPPORTED_GENERATOR.OUTSIDE_SELECT for a generator met anywhere
// but the top of a select list.
func generatorOutsideSelect(c plan.Call) error {
	q := callSQL(c)
	return sparkerr.Analysis("UNSUPPORTED_GENERATOR.OUTSIDE_SELECT", "42K0E",
		"The generator is not supported: outside the SELECT clause, found: %s.", q).WithParams("plan", q)
}

// resolveGenerate resolves LATERAL VIEW [OUTER] generator(args) alias AS names, and a generator
// called as a table-valued function in FROM.
func (a *Analyzer) resolveGenerate(ctx context.Context, n *plan.Generate) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	for _, arg := range n.Generator.Args {
		if containsGenerator(arg) {
			return nil, a.nestedGenerator(in, n.Generator)
		}
	}
	if n.TableFunction && a.PythonTableFunctions != nil {
		if f, ok := a.PythonTableFunctions(strings.ToLower(n.Generator.Name)); ok {
			return a.pythonTableFunctionCall(ctx, in, f, n)
		}
	}
	if n.TableFunction && !expr.IsGenerator(n.Generator.Name) {
		name := sparkerr.Quote(n.Generator.Name)
		return nil, sparkerr.Analysis("UNRESOLVABLE_TABLE_VALUED_FUNCTION", "42883",
			"Could not resolve %s to a table-valued function. Please make sure that %s is defined as a table-valued function and that all required parameters are provided correctly. If %s is not defined, please create the table-valued function before using it. For more information about defining table-valued functions, please refer to the Apache Spark documentation.",
			name, name, name).WithParams("name", name)
	}
	if !n.TableFunction && expr.IsTableOnlyGenerator(n.Generator.Name) {
		// Spark looks LATERAL VIEW's function up among the generators and persistent functions.
		return nil, routineNotFound(n.Generator.Name)
	}
	g, err := a.bindGenerator(in, n.Generator, n.Outer)
	if err != nil {
		return nil, err
	}
	names, err := generatorNames(g, n.ColumnNames)
	if err != nil {
		return nil, err
	}
	var q []string
	if n.Alias != "" {
		q = []string{n.Alias}
	}
	return a.generateOver(in, g, names, q, false), nil
}

// renderWithGenerators renders e as Spark's toSQLExpr would for an error message, generator
// calls included (bound only to be rendered); it falls back to the unresolved rendering.
func (a *Analyzer) renderWithGenerators(in *resolved, e plan.Expr) string {
	b := a.binderOver(in)
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		c, ok := asCall(x)
		if !ok || !selectGenerator(c.Name) {
			return nil, false, nil
		}
		g, err := a.bindGenerator(in, c, false)
		if err != nil {
			return nil, true, err
		}
		return &expr.Column{Name: g.String(), T: g.Output()[0].Type, Null: true}, true, nil
	}
	x, err := b.bind(e)
	if err != nil {
		return planExprSQL(e)
	}
	return `"` + x.String() + `"`
}
