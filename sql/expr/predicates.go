package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Predicates as the optimizer takes them apart and builds them: conjuncts and disjuncts,
// equalities, null rejection and constant folding.

// Conjuncts splits e at its top-level ANDs (also those of functions Spark rewrites into an AND,
// such as between), left to right.
func Conjuncts(e Expr) []Expr {
	if b, ok := asAnd(e); ok {
		return append(Conjuncts(b.left), Conjuncts(b.right)...)
	}
	return []Expr{e}
}

// asAnd is e as an AND: e itself or the AND a renamed function evaluates as.
func asAnd(e Expr) (*boolLogic, bool) {
	if r, ok := e.(*renamed); ok {
		e = r.Expr
	}
	b, ok := e.(*boolLogic)
	return b, ok && b.and
}

// Disjuncts splits e at its top-level ORs, left to right.
func Disjuncts(e Expr) []Expr {
	if b, ok := e.(*boolLogic); ok && !b.and {
		return append(Disjuncts(b.left), Disjuncts(b.right)...)
	}
	return []Expr{e}
}

// AndAll is the conjunction of boolean es, left-deep ((a AND b) AND c); nil when es is empty.
func AndAll(es []Expr) Expr {
	return joinLogic(es, true)
}

// OrAll is the disjunction of boolean es, left-deep; nil when es is empty.
func OrAll(es []Expr) Expr {
	return joinLogic(es, false)
}

func joinLogic(es []Expr, and bool) Expr {
	if len(es) == 0 {
		return nil
	}
	out := es[0]
	for _, e := range es[1:] {
		out = &boolLogic{and: and, left: out, right: e}
	}
	return out
}

// IsAnd and IsOr report whether e is a binary AND or OR (its children are the operands).
func IsAnd(e Expr) bool { b, ok := e.(*boolLogic); return ok && b.and }

// IsOr reports whether e is a binary OR.
func IsOr(e Expr) bool { b, ok := e.(*boolLogic); return ok && !b.and }

// IsNot reports whether e is NOT of its only child.
func IsNot(e Expr) bool { _, ok := e.(*notExpr); return ok }

// Not is the negation of boolean e.
func Not(e Expr) Expr { return &notExpr{child: e} }

// IsNotNull is isnotnull(e).
func IsNotNull(e Expr) Expr { return &nullTest{kind: "notnull", child: e} }

// Equality returns the operands of an equality comparison (a = b, not the null-safe <=>),
// both already of the comparison's common type.
func Equality(e Expr) (l, r Expr, ok bool) {
	c, ok := e.(*comparison)
	if !ok || c.op != "=" {
		return nil, nil, false
	}
	return c.left, c.right, true
}

// BoolValue reports whether e is a boolean literal, and which.
func BoolValue(e Expr) (v, ok bool) {
	l, isLit := e.(*Literal)
	if !isLit || l.T.Kind != sqltypes.Boolean || l.Value == nil {
		return false, false
	}
	b, isBool := l.Value.(bool)
	return b, isBool
}

// IsNullLiteral reports whether e is a NULL constant.
func IsNullLiteral(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.Value == nil
}

// RejectsNulls reports whether predicate e is NULL or false for every row in which all of the
// input columns cols are NULL (so a filter on e drops an outer join's padded rows), judged from
// null-intolerant operators: comparisons other than <=>, arithmetic, casts, NOT, isnotnull,
// IN, string predicates and field extraction are NULL when an operand is.
func RejectsNulls(e Expr, cols map[int]bool) bool {
	switch x := e.(type) {
	case *boolLogic:
		if x.and {
			return RejectsNulls(x.left, cols) || RejectsNulls(x.right, cols)
		}
		return RejectsNulls(x.left, cols) && RejectsNulls(x.right, cols)
	case *nullTest:
		return x.kind == "notnull" && nullOn(x.child, cols)
	}
	return nullOn(e, cols)
}

// nullOn reports whether e is NULL whenever the columns cols are.
func nullOn(e Expr, cols map[int]bool) bool {
	switch x := e.(type) {
	case *Column:
		return cols[x.Index]
	case *Alias:
		return nullOn(x.Child, cols)
	case *comparison:
		return x.op != "<=>" && (nullOn(x.left, cols) || nullOn(x.right, cols))
	case *arith:
		return nullOn(x.left, cols) || nullOn(x.right, cols)
	case *castExpr:
		return nullOn(x.child, cols)
	case *notExpr:
		return nullOn(x.child, cols)
	case *inSet:
		return nullOn(x.value, cols)
	case *inList:
		return nullOn(x.value, cols)
	case *stringPredicate:
		return nullOn(x.child, cols)
	case *extractValue:
		return nullOn(x.child, cols)
	case *boolLogic:
		// NULL AND NULL, NULL OR NULL: both operands must be NULL.
		return nullOn(x.left, cols) && nullOn(x.right, cols)
	}
	return false
}

// Foldable reports whether e is a constant the optimizer may evaluate once: no column or
// lambda references, deterministic, built only of literals, arithmetic, casts, comparisons,
// boolean logic, null tests, IN, coalesce and CASE (functions reading the clock or the session
// are never folded), with a result of a primitive type.
func Foldable(e Expr) bool {
	if _, ok := e.(*Literal); ok {
		return false
	}
	switch e.Type().Kind {
	case sqltypes.Null, sqltypes.Boolean, sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long,
		sqltypes.Float, sqltypes.Double, sqltypes.String, sqltypes.Date:
	default:
		return false
	}
	return constantTree(e)
}

func constantTree(e Expr) bool {
	switch e.(type) {
	case *Literal:
		return true
	case *arith, *castExpr, *comparison, *boolLogic, *notExpr, *nullTest, *inSet, *inList, *coalesce, *caseWhen:
	default:
		return false
	}
	for _, c := range e.Children() {
		if !constantTree(c) {
			return false
		}
	}
	return true
}

// Fold evaluates a Foldable e once and returns it as a literal; ok is false when e is not
// foldable or its evaluation fails (the error is then left to happen where the query runs).
func Fold(ctx *Context, e Expr) (Expr, bool) {
	if !Foldable(e) {
		return e, false
	}
	c := *ctx
	c.Mem = memory.DefaultAllocator
	b := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer b.Release()
	a, err := e.Eval(&c, b)
	if err != nil {
		return e, false
	}
	defer a.Release()
	if a.Len() != 1 {
		return e, false
	}
	return &Literal{Value: normalizeValue(ValueAt(a, 0, e.Type()), e.Type()), T: e.Type()}, true
}
