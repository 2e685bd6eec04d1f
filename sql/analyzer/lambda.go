package analyzer

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
)

// Higher-order functions (transform, filter, exists, forall, aggregate/reduce, zip_with,
// map_filter, transform_keys, transform_values, array_sort with a comparator): the non-lambda
// arguments are bound first, expr.LambdaParams types each lambda's parameters from them, and
// each body is bound with its parameters in scope (inner lambdas see the outer ones; a
// parameter shadows a column of the same name), then expr.BindHigherOrder binds the call.
// PySpark sends lambda parameters as UnresolvedNamedLambdaVariable (plan.LambdaVar); SQL
// `x -> x + 1` arrives the same way from the parser.

func asLambda(e plan.Expr) (plan.Lambda, bool) {
	switch l := e.(type) {
	case plan.Lambda:
		return l, true
	case *plan.Lambda:
		return *l, true
	}
	return plan.Lambda{}, false
}

// hasLambdaArg reports whether a call passes a lambda function.
func hasLambdaArg(c plan.Call) bool {
	for _, a := range c.Args {
		if _, ok := asLambda(a); ok {
			return true
		}
	}
	return false
}

// lambdaVar finds the lambda parameter a column reference names (its first part), if any.
func (b *binder) lambdaVar(ref plan.ColumnRef) (*expr.LambdaVariable, bool) {
	if len(b.lambdas) == 0 || len(ref.Name) == 0 || ref.PlanID != 0 {
		return nil, false
	}
	v, ok := b.lambdas[b.lambdaKey(ref.Name[0])]
	return v, ok
}

func (b *binder) lambdaKey(name string) string {
	if b.a.CaseSensitive {
		return name
	}
	return strings.ToLower(name)
}

// bindLambdaVar binds a lambda parameter reference (a dotted name is the parameter and struct
// fields of it).
func (b *binder) bindLambdaVar(v plan.LambdaVar) (expr.Expr, error) {
	parts := strings.Split(v.Name, ".")
	if lv, ok := b.lambdas[b.lambdaKey(v.Name)]; ok {
		return lv, nil
	}
	if lv, ok := b.lambdas[b.lambdaKey(parts[0])]; ok {
		return extractFields(lv, parts[1:])
	}
	return nil, sparkerr.Analysis("UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", "42703",
		"A column, variable, or function parameter with name %s cannot be resolved.", sparkerr.Quote(parts...)).
		WithParams("objectName", sparkerr.Quote(parts...))
}

// bindHigherOrder binds name(args…, lambdas…).
func (b *binder) bindHigherOrder(name string, c plan.Call) (expr.Expr, error) {
	if !expr.IsHigherOrder(name) {
		if _, err := expr.Bind(name, nil, b.a.Options); isUnresolvedRoutine(err) {
			return nil, err
		}
		return nil, sparkerr.Analysis("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION", "42K0D",
			"Invalid lambda function call. A lambda function should only be used in a higher order function. However, its class is %s, which is not a higher order function.",
			sparkerr.Quote(name)).WithParams("class", sparkerr.Quote(name))
	}
	var plain []plan.Expr
	var lambdas []plan.Lambda
	for _, a := range c.Args {
		if l, ok := asLambda(a); ok {
			lambdas = append(lambdas, l)
			continue
		}
		if len(lambdas) > 0 {
			return nil, sparkerr.Analysis("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION", "42K0D",
				"Invalid lambda function call. %s takes its lambda functions after its other arguments.", sparkerr.Quote(name))
		}
		plain = append(plain, a)
	}
	args, err := b.bindAll(plain)
	if err != nil {
		return nil, err
	}
	bound := make([]expr.Lambda, len(lambdas))
	for i, l := range lambdas {
		if err := checkLambdaParams(l.Params); err != nil {
			return nil, err
		}
		params, err := expr.LambdaParams(name, args, i, l.Params)
		if err != nil {
			return nil, err
		}
		inner := *b
		inner.lambdas = make(map[string]*expr.LambdaVariable, len(b.lambdas)+len(params))
		for k, v := range b.lambdas {
			inner.lambdas[k] = v
		}
		for _, p := range params {
			inner.lambdas[b.lambdaKey(p.Name)] = p
		}
		if base := b.intercept; base != nil {
			// Parts of the body that read lambda parameters are bound here; the rest (grouping
			// columns, aggregate calls) still go through the enclosing intercept.
			inner.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
				if inner.readsLambdaVars(x) {
					return nil, false, nil
				}
				return base(x)
			}
		}
		body, err := inner.bind(l.Body)
		if err != nil {
			return nil, err
		}
		bound[i] = expr.Lambda{Params: params, Body: body}
	}
	return expr.BindHigherOrder(name, args, bound, b.a.Options)
}

// checkLambdaParams refuses duplicate parameter names (Spark's
// INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES).
func checkLambdaParams(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		k := strings.ToLower(n)
		if seen[k] {
			list := "`" + strings.Join(names, "`, `") + "`"
			return sparkerr.Analysis("INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES", "42K0D",
				"Invalid lambda function call. The lambda function has duplicate arguments %s. Please, consider to rename the argument names or set \"spark.sql.caseSensitive\" to \"true\".", list).
				WithParams("args", list, "caseSensitiveConfig", `"spark.sql.caseSensitive"`)
		}
		seen[k] = true
	}
	return nil
}

// readsLambdaVars reports whether e refers to a lambda parameter in scope (or declares its own).
func (b *binder) readsLambdaVars(e plan.Expr) bool {
	found := false
	walkPlanExpr(e, func(x plan.Expr) bool {
		if found {
			return false
		}
		switch v := x.(type) {
		case plan.LambdaVar, *plan.LambdaVar, plan.Lambda, *plan.Lambda:
			found = true
		case plan.ColumnRef:
			_, found = b.lambdaVar(v)
		case *plan.ColumnRef:
			_, found = b.lambdaVar(*v)
		}
		return !found
	})
	return found
}
