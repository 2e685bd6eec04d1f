package analyzer

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// binder binds unresolved expressions over the columns of one resolved input.
type binder struct {
	a  *Analyzer
	in *resolved
	// intercept, when set, sees every expression first (top-down); if it handles one it returns
	// handled=true and the bound result. Aggregation uses it to replace grouping expressions and
	// aggregate calls by references to the Aggregate's output.
	intercept func(e plan.Expr) (bound expr.Expr, handled bool, err error)
	// aggError builds the error for an aggregate call where none is allowed; nil means the
	// generic UNSUPPORTED_EXPR_FOR_OPERATOR.
	aggError func(call plan.Call) error
	// starRef, when set, maps each column a star expands to (as a reference over in) to what
	// it stands for in this context; aggregation maps grouping columns to the output.
	starRef func(ref expr.Expr) (expr.Expr, error)
	// lambdas are the lambda parameters in scope (inside a lambda body), by name.
	lambdas map[string]*expr.LambdaVariable
	// windows, when set, collects the window functions of a select list (window.go); nil
	// where window functions are not allowed.
	windows *windowSet
	// windowClause names the clause a window function is refused in ("WHERE"), for Spark's
	// WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE; empty elsewhere.
	windowClause string
}

func (a *Analyzer) binderOver(in *resolved) *binder { return &binder{a: a, in: in} }

// bind binds e. With spark.sql.timeType.enabled off (Options.TimeType), an expression of a type
// that holds TIME is UNSUPPORTED_TIME_TYPE, as Spark refuses it.
func (b *binder) bind(e plan.Expr) (expr.Expr, error) {
	x, err := b.bindExpr(e)
	if err == nil && !b.a.Options.TimeType && sqltypes.ContainsKind(x.Type(), sqltypes.Time) {
		return nil, expr.UnsupportedTimeType()
	}
	return x, err
}

func (b *binder) bindExpr(e plan.Expr) (expr.Expr, error) {
	if err := b.a.checkCancel(); err != nil {
		return nil, err
	}
	if b.intercept != nil {
		if x, ok, err := b.intercept(e); err != nil || ok {
			return x, err
		}
	}
	switch e := e.(type) {
	case plan.Literal:
		return expr.NewLiteral(e.Value, e.Type), nil
	case *plan.Literal:
		return expr.NewLiteral(e.Value, e.Type), nil
	case plan.ColumnRef:
		if v, ok := b.lambdaVar(e); ok {
			return extractFields(v, e.Name[1:])
		}
		if e.IsMetadata {
			return nil, sparkerr.Unsupported("metadata column %s", sparkerr.Quote(e.Name...))
		}
		return b.a.resolveColumn(b.in, e)
	case *plan.ColumnRef:
		return b.bind(*e)
	case plan.Star:
		return nil, sparkerr.Analysis("INVALID_USAGE_OF_STAR_OR_REGEX", "42000",
			"Invalid usage of '*' in expression.").WithParams("elem", "'*'", "prettyName", "expression")
	case plan.Call:
		return b.bindCall(e)
	case *plan.Call:
		return b.bindCall(*e)
	case plan.Alias:
		return b.bindAlias(e)
	case *plan.Alias:
		return b.bindAlias(*e)
	case plan.Cast:
		return b.bindCast(e)
	case *plan.Cast:
		return b.bindCast(*e)
	case plan.UpdateFields:
		return b.bindUpdateFields(e)
	case *plan.UpdateFields:
		return b.bindUpdateFields(*e)
	case plan.ExtractValue:
		return b.bindExtract(e)
	case *plan.ExtractValue:
		return b.bindExtract(*e)
	case plan.SortOrder, *plan.SortOrder:
		return nil, sparkerr.Analysis("UNSUPPORTED_EXPR_FOR_OPERATOR", "42K0E",
			"A sort order is only allowed in ORDER BY / sort().")
	case plan.Window:
		return b.bindWindow(e)
	case *plan.Window:
		return b.bindWindow(*e)
	case plan.LambdaVar:
		return b.bindLambdaVar(e)
	case *plan.LambdaVar:
		return b.bindLambdaVar(*e)
	case plan.Lambda, *plan.Lambda:
		return nil, sparkerr.Analysis("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION", "42K0D",
			"Invalid lambda function call. A lambda function should only be used in a higher order function. However, its class is %s, which is not a higher order function.",
			"org.apache.spark.sql.catalyst.expressions.LambdaFunction").WithParams("class", "org.apache.spark.sql.catalyst.expressions.LambdaFunction")
	case plan.ScalarSubquery, *plan.ScalarSubquery:
		return nil, sparkerr.Unsupported("scalar subqueries are supported only in select lists and filters for now")
	case *plan.TableArgument:
		return nil, sparkerr.Unsupported("a TABLE argument (TABLE(…), DataFrame.asTable()) is supported only as an argument of a Python table function")
	case plan.InSubquery, *plan.InSubquery:
		return nil, sparkerr.Unsupported("IN (subquery) is supported only as a WHERE condition (conjunct) for now")
	case plan.Exists, *plan.Exists:
		return nil, sparkerr.Unsupported("EXISTS (subquery) is supported only as a WHERE condition (conjunct) for now")
	case *plan.PythonUDF:
		return b.bindPythonUDF(e)
	case nil:
		return nil, sparkerr.Internal("analyzer: nil expression")
	}
	return nil, sparkerr.Internal("analyzer: unknown expression %T", e)
}

// bindAll binds a list of expressions, expanding stars into all the columns they stand for.
func (b *binder) bindAll(es []plan.Expr) ([]expr.Expr, error) {
	out := make([]expr.Expr, 0, len(es))
	for _, e := range es {
		if s, ok := asStar(e); ok {
			refs, err := b.a.expandStar(b.in, s)
			if err != nil {
				return nil, err
			}
			for _, r := range refs {
				if b.starRef != nil {
					if r, err = b.starRef(r); err != nil {
						return nil, err
					}
				}
				out = append(out, r)
			}
			continue
		}
		x, err := b.bind(e)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func asStar(e plan.Expr) (plan.Star, bool) {
	switch s := e.(type) {
	case plan.Star:
		return s, true
	case *plan.Star:
		return *s, true
	}
	return plan.Star{}, false
}

// asCall unwraps a plan.Call value or pointer.
func asCall(e plan.Expr) (plan.Call, bool) {
	switch c := e.(type) {
	case plan.Call:
		return c, true
	case *plan.Call:
		return *c, true
	}
	return plan.Call{}, false
}

// asColumnRef unwraps a plan.ColumnRef value or pointer.
func asColumnRef(e plan.Expr) (plan.ColumnRef, bool) {
	switch c := e.(type) {
	case plan.ColumnRef:
		return c, true
	case *plan.ColumnRef:
		return *c, true
	}
	return plan.ColumnRef{}, false
}

// asAlias unwraps a plan.Alias value or pointer.
func asAlias(e plan.Expr) (plan.Alias, bool) {
	switch c := e.(type) {
	case plan.Alias:
		return c, true
	case *plan.Alias:
		return *c, true
	}
	return plan.Alias{}, false
}

// asLiteral unwraps a plan.Literal value or pointer.
func asLiteral(e plan.Expr) (plan.Literal, bool) {
	switch c := e.(type) {
	case plan.Literal:
		return c, true
	case *plan.Literal:
		return *c, true
	}
	return plan.Literal{}, false
}

// bindCall binds a function call or operator.
func (b *binder) bindCall(c plan.Call) (expr.Expr, error) {
	name := strings.ToLower(c.Name)
	c, err := arrangeArgs(c)
	if err != nil {
		return nil, err
	}
	if expr.IsTableOnlyGenerator(name) {
		return nil, notAScalarFunction(c)
	}
	if expr.IsGenerator(name) {
		return nil, generatorOutsideSelect(c)
	}
	if isWindowOnly(name) {
		return nil, windowWithoutOver(c)
	}
	if hasLambdaArg(c) {
		return b.bindHigherOrder(name, c)
	}
	if expr.IsAggregate(name) {
		if b.aggError != nil {
			return nil, b.aggError(c)
		}
		return nil, sparkerr.Analysis("UNSUPPORTED_EXPR_FOR_OPERATOR", "42K0E",
			"A query operator contains one or more unsupported expressions. Consider to rewrite it to avoid window functions, aggregate functions, and generator functions in the WHERE clause. Invalid expressions: [%s]",
			callSQL(c)).WithParams("invalidExprSqls", callSQL(c))
	}
	if c.Distinct {
		return nil, sparkerr.Analysis("INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX", "42000",
			"Invalid SQL syntax: The function %s does not support DISTINCT.", sparkerr.Quote(name))
	}
	if c.Filter != nil {
		return nil, sparkerr.Analysis("INVALID_SQL_SYNTAX.FUNCTION_WITH_UNSUPPORTED_SYNTAX", "42000",
			"Invalid SQL syntax: The function %s does not support FILTER.", sparkerr.Quote(name))
	}
	if c.WithinGroup != nil {
		_, err := expr.BindOrderedSet(name, nil, false, nil, false, b.a.Options)
		return nil, err
	}
	args, err := b.bindAll(c.Args)
	if err != nil {
		return nil, err
	}
	return expr.Bind(name, args, b.a.Options)
}

// callSQL renders an unresolved call for error messages, quoted like Spark's toSQLExpr.
func callSQL(c plan.Call) string { return planExprSQL(c) }

// planExprSQL renders an unresolved expression for error messages, quoted.
func planExprSQL(e plan.Expr) string { return `"` + parser.FormatExpr(e) + `"` }

func (b *binder) bindAlias(al plan.Alias) (expr.Expr, error) {
	child, err := b.bind(al.Child)
	if err != nil {
		return nil, err
	}
	switch len(al.Names) {
	case 1:
		return &expr.Alias{Child: child, Name: al.Names[0]}, nil
	case 0:
		return child, nil
	}
	names := "(" + strings.Join(al.Names, ", ") + ")"
	q := `"` + child.String() + `"`
	return nil, sparkerr.Analysis("MULTI_ALIAS_WITHOUT_GENERATOR", "42K0E",
		"Multi part aliasing %s is not supported with %s as it is not a generator function.", names, q).
		WithParams("names", names, "expr", q)
}

func (b *binder) bindCast(c plan.Cast) (expr.Expr, error) {
	child, err := b.bind(c.Child)
	if err != nil {
		return nil, err
	}
	to := c.To
	if c.TypeString != "" {
		if to, err = b.a.ResolveType(c.TypeString); err != nil {
			return nil, err
		}
	}
	return expr.NewCast(child, to, c.Mode, b.a.Options)
}

func (b *binder) bindExtract(e plan.ExtractValue) (expr.Expr, error) {
	child, err := b.bind(e.Child)
	if err != nil {
		return nil, err
	}
	ext, err := b.bind(e.Extraction)
	if err != nil {
		return nil, err
	}
	return expr.BindExtractValue(child, ext)
}

// containsAggregate reports whether e calls an aggregate function, outside a window function
// or in its arguments or specification.
func containsAggregate(e plan.Expr) bool {
	found := false
	walkPlanExpr(e, func(x plan.Expr) bool {
		if found {
			return false
		}
		if parts, ok := windowParts(x); ok {
			// The window's own function is not an aggregation; its arguments and
			// specification may be (sum(sum(x)) OVER (…)).
			for _, p := range parts {
				if containsAggregate(p) {
					found = true
				}
			}
			return false
		}
		if c, ok := asCall(x); ok && expr.IsAggregate(strings.ToLower(c.Name)) {
			found = true
			return false
		}
		if u, ok := asPythonUDF(x); ok && isGroupedAggEval(u.EvalType) {
			found = true
			return false
		}
		return true
	})
	return found
}

// walkPlanExpr visits e and (while visit returns true) its sub-expressions.
func walkPlanExpr(e plan.Expr, visit func(plan.Expr) bool) {
	if e == nil || !visit(e) {
		return
	}
	for _, c := range planChildren(e) {
		walkPlanExpr(c, visit)
	}
}

// callChildren are a call's arguments and its WITHIN GROUP sort keys.
func callChildren(c plan.Call) []plan.Expr {
	if c.WithinGroup == nil {
		return c.Args
	}
	out := append([]plan.Expr(nil), c.Args...)
	for _, s := range c.WithinGroup {
		out = append(out, s.Child)
	}
	return out
}

// planChildren lists the direct sub-expressions of an unresolved expression.
func planChildren(e plan.Expr) []plan.Expr {
	switch e := e.(type) {
	case plan.Call:
		return callChildren(e)
	case *plan.Call:
		return callChildren(*e)
	case plan.Alias:
		return []plan.Expr{e.Child}
	case *plan.Alias:
		return []plan.Expr{e.Child}
	case plan.Cast:
		return []plan.Expr{e.Child}
	case *plan.Cast:
		return []plan.Expr{e.Child}
	case plan.SortOrder:
		return []plan.Expr{e.Child}
	case *plan.SortOrder:
		return []plan.Expr{e.Child}
	case plan.ExtractValue:
		return []plan.Expr{e.Child, e.Extraction}
	case *plan.ExtractValue:
		return []plan.Expr{e.Child, e.Extraction}
	case plan.UpdateFields:
		return updateFieldsChildren(e)
	case *plan.UpdateFields:
		return updateFieldsChildren(*e)
	case plan.Lambda:
		return []plan.Expr{e.Body}
	case *plan.Lambda:
		return []plan.Expr{e.Body}
	case *plan.PythonUDF:
		return e.Args
	}
	return nil
}

// exprKey identifies a bound expression for matching (grouping expressions against select
// expressions): its rendering plus the input columns it reads, with aliases trimmed.
func exprKey(e expr.Expr) string {
	e = trimAlias(e)
	var b strings.Builder
	b.WriteString(e.String())
	b.WriteString("|")
	b.WriteString(e.Type().String())
	var walk func(expr.Expr)
	walk = func(x expr.Expr) {
		if c, ok := x.(*expr.Column); ok {
			b.WriteString("#")
			b.WriteString(strconv.Itoa(c.Index))
			return
		}
		for _, ch := range x.Children() {
			walk(ch)
		}
	}
	walk(e)
	return b.String()
}

func trimAlias(e expr.Expr) expr.Expr {
	for {
		al, ok := e.(*expr.Alias)
		if !ok {
			return e
		}
		e = al.Child
	}
}

// isBooleanish reports whether t can be a filter condition.
func isBooleanish(t sqltypes.DataType) bool {
	return t.Kind == sqltypes.Boolean || t.Kind == sqltypes.Null
}

func formatInt(i int64) string { return strconv.FormatInt(i, 10) }

// renderWithAggregates renders e as Spark's toSQLExpr would for an error message, aggregate
// calls included (bound only to be rendered); it falls back to the unresolved rendering.
func (a *Analyzer) renderWithAggregates(in *resolved, e plan.Expr) string {
	b := a.binderOver(in)
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		c, ok := asCall(x)
		if !ok || !expr.IsAggregate(strings.ToLower(c.Name)) {
			return nil, false, nil
		}
		var args []expr.Expr
		if s, ok := singleStar(c.Args); ok && len(s.Target) == 0 && strings.EqualFold(c.Name, "count") {
			args = []expr.Expr{expr.NewLiteral(int32(1), sqltypes.IntegerType)}
		} else {
			var err error
			if args, err = a.binderOver(in).bindAll(c.Args); err != nil {
				return nil, true, err
			}
		}
		fn, err := expr.BindAggregate(strings.ToLower(c.Name), args, c.Distinct, a.Options)
		if err != nil {
			return nil, true, err
		}
		return &expr.Column{Name: fn.String(), T: fn.Type(), Null: fn.Nullable()}, true, nil
	}
	x, err := b.bind(e)
	if err != nil {
		return planExprSQL(e)
	}
	return `"` + x.String() + `"`
}
