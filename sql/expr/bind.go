package expr

import (
	"sort"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Options are the session settings binding depends on.
type Options struct {
	// ANSI is spark.sql.ansi.enabled.
	ANSI bool
	// TimeZone is spark.sql.session.timeZone.
	TimeZone string
	// User is the session's user id (current_user()).
	User string
	// Version is what version() returns: the Spark version reported to clients and the server's
	// revision, space separated.
	Version string
	// Database is the session's current database (USE db; current_database()); "" is default.
	Database string
	// EnforceReservedKeywords is spark.sql.ansi.enforceReservedKeywords (sql_keywords()).
	EnforceReservedKeywords bool
	// ReadFile reads a file a query names (from_protobuf's descriptor file) through the server's
	// file-access policy; nil refuses every path.
	ReadFile func(path string) ([]byte, error)
	// TimeType is spark.sql.timeType.enabled: whether the TIME type may be used (the analyzer
	// refuses it otherwise).
	TimeType bool
	// PythonWorkerLogs returns the session's Python worker log records as python_worker_logs()
	// rows (PythonWorkerLogSchema); nil when spark.sql.pyspark.worker.logging.enabled is off.
	PythonWorkerLogs func() [][]any
}

// NewLiteral returns a constant expression.
func NewLiteral(v any, t sqltypes.DataType) Expr {
	return &Literal{Value: normalizeValue(v, t), T: t}
}

// IsAggregate reports whether name (any case) is an aggregate function.
func IsAggregate(name string) bool {
	_, ok := aggregateRegistry[strings.ToLower(name)]
	return ok
}

// Bind resolves a scalar function or operator call by Spark name (any case) over bound
// arguments, applying Spark's implicit type coercion; unknown names give UNRESOLVED_ROUTINE,
// bad argument types DATATYPE_MISMATCH.*, wrong arity WRONG_NUM_ARGS.
func Bind(name string, args []Expr, opts Options) (Expr, error) {
	lname := strings.ToLower(name)
	b, ok := scalarRegistry[lname]
	if !ok {
		if IsHigherOrder(lname) {
			return nil, sparkerr.Analysis("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION", "42K0D",
				"Invalid lambda function call. %s takes a lambda function argument; bind it with BindHigherOrder.", sparkerr.Quote(lname))
		}
		if IsAggregate(lname) {
			return nil, sparkerr.Analysis("MISSING_GROUP_BY", "42803",
				"The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using OVER clauses.")
		}
		return nil, sparkerr.UnresolvedRoutine(name)
	}
	if b.minArgs >= 0 && (len(args) < b.minArgs || (b.maxArgs >= 0 && len(args) > b.maxArgs)) {
		return nil, wrongNumArgs(lname, arityString(b.minArgs, b.maxArgs), len(args))
	}
	args, coll, collErr := coerceCollations(lname, args)
	if collErr != nil && collErr != errIndeterminate {
		return nil, collErr
	}
	e, err := b.bind(lname, args, opts)
	if err != nil {
		return nil, err
	}
	if collErr == errIndeterminate {
		return indeterminateCollation(e)
	}
	return collatedResult(lname, e, coll), nil
}

// BindAggregate resolves an aggregate function call.
func BindAggregate(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	lname := strings.ToLower(name)
	b, ok := aggregateRegistry[lname]
	if !ok {
		return nil, sparkerr.UnresolvedRoutine(name)
	}
	if b.minArgs >= 0 && (len(args) < b.minArgs || (b.maxArgs >= 0 && len(args) > b.maxArgs)) {
		return nil, wrongNumArgs(lname, arityString(b.minArgs, b.maxArgs), len(args))
	}
	f, err := b.bind(lname, args, distinct, opts)
	if a, ok := f.(*aggFunc); ok {
		a.opts = opts
	}
	return f, err
}

// NewCast returns child cast to `to` with Spark's cast rules for mode (CastDefault follows
// opts.ANSI); an impossible cast gives DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION.
func NewCast(child Expr, to sqltypes.DataType, mode plan.CastMode, opts Options) (Expr, error) {
	c, err := newCast(child, to, mode, opts)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// FunctionNames lists every registered function name (scalar, aggregate, higher-order and
// generator, with the generators' _outer forms), sorted. The analyzer adds the functions it
// resolves itself (analyzer.FunctionNames).
func FunctionNames() []string {
	names := make([]string, 0, len(scalarRegistry)+len(aggregateRegistry))
	for n := range scalarRegistry {
		names = append(names, n)
	}
	for n := range aggregateRegistry {
		names = append(names, n)
	}
	for n := range hofArity {
		if _, dup := scalarRegistry[n]; !dup {
			names = append(names, n)
		}
	}
	for n := range generatorRegistry {
		names = append(names, n)
		if hasOuterForm(n) {
			names = append(names, n+"_outer")
		}
	}
	sort.Strings(names)
	return names
}
