package expr

import (
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sqltypes"
)

// Options are the session settings binding depends on.
type Options struct {
	// ANSI is spark.sql.ansi.enabled.
	ANSI bool
	// TimeZone is spark.sql.session.timeZone.
	TimeZone string
}

// NewLiteral returns a constant expression.
func NewLiteral(v any, t sqltypes.DataType) Expr {
	panic("expr: not built yet")
}

// IsAggregate reports whether name (any case) is an aggregate function.
func IsAggregate(name string) bool { return false }

// Bind resolves a scalar function or operator call by Spark name (any case) over bound
// arguments, applying Spark's implicit type coercion; unknown names give UNRESOLVED_ROUTINE,
// bad argument types DATATYPE_MISMATCH.*, wrong arity WRONG_NUM_ARGS.
func Bind(name string, args []Expr, opts Options) (Expr, error) {
	return nil, sparkerr.UnresolvedRoutine(name)
}

// BindAggregate resolves an aggregate function call.
func BindAggregate(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	return nil, sparkerr.UnresolvedRoutine(name)
}

// NewCast returns child cast to `to` with Spark's cast rules for mode (CastDefault follows
// opts.ANSI); an impossible cast gives DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION.
func NewCast(child Expr, to sqltypes.DataType, mode plan.CastMode, opts Options) (Expr, error) {
	return nil, sparkerr.Unsupported("cast not built yet")
}

// CommonType is the type two inputs widen to for union, CASE, coalesce, IN and comparison
// (Spark's findWiderTypeForTwo), and false when there is none.
func CommonType(a, b sqltypes.DataType) (sqltypes.DataType, bool) {
	return sqltypes.DataType{}, false
}

// FunctionNames lists every registered function name, sorted (SHOW FUNCTIONS).
func FunctionNames() []string { return nil }
