package sparkerr

import (
	"fmt"
	"strings"
)

// Constructors for the error classes Weir raises most. Each mirrors the Spark error class of the
// same name (common/utils/src/main/resources/error/error-conditions.json).

// Quote renders an identifier the way Spark's messages do: `a`.`b`.
func Quote(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
	}
	return strings.Join(q, ".")
}

// UnresolvedColumn is UNRESOLVED_COLUMN.WITH_SUGGESTION.
func UnresolvedColumn(name []string, candidates []string) *Error {
	qc := make([]string, len(candidates))
	for i, c := range candidates {
		qc[i] = Quote(c)
	}
	sugg := "[" + strings.Join(qc, ", ") + "]"
	return Newf(AnalysisException, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703",
		"A column, variable, or function parameter with name %s cannot be resolved. Did you mean one of the following? %s.",
		Quote(name...), sugg).WithParams("objectName", Quote(name...), "proposal", sugg)
}

// TableNotFound is TABLE_OR_VIEW_NOT_FOUND.
func TableNotFound(name []string) *Error {
	return Newf(AnalysisException, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
		"The table or view %s cannot be found. Verify the spelling and correctness of the schema and catalog.",
		Quote(name...)).WithParams("relationName", Quote(name...))
}

// UnresolvedRoutine is UNRESOLVED_ROUTINE.
func UnresolvedRoutine(name string) *Error {
	return Newf(AnalysisException, "UNRESOLVED_ROUTINE", "42883",
		"Cannot resolve routine %s on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`].",
		Quote(name)).WithParams("routineName", Quote(name), "searchPath", "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]")
}

// Parse is a ParseException (PARSE_SYNTAX_ERROR) at a position in the SQL text.
func Parse(errorToken, hint string) *Error {
	msg := fmt.Sprintf("Syntax error at or near %s%s.", errorToken, hint)
	return New(ParseException, "PARSE_SYNTAX_ERROR", "42601", msg).WithParams("error", errorToken, "hint", hint)
}

// IllegalArgument is a plain IllegalArgumentException.
func IllegalArgument(format string, args ...any) *Error {
	return Newf(IllegalArgumentException, "", "", format, args...)
}

// Analysis is an AnalysisException with a class.
func Analysis(class, sqlState, format string, args ...any) *Error {
	return Newf(AnalysisException, class, sqlState, format, args...)
}

// DatatypeMismatch is DATATYPE_MISMATCH.<sub>.
func DatatypeMismatch(sub, sqlExpr, format string, args ...any) *Error {
	return Newf(AnalysisException, "DATATYPE_MISMATCH."+sub, "42K09",
		"Cannot resolve %s due to data type mismatch: "+format, append([]any{sqlExpr}, args...)...).
		WithParams("sqlExpr", sqlExpr)
}

// DivideByZero is DIVIDE_BY_ZERO (ANSI mode).
func DivideByZero() *Error {
	return New(SparkRuntimeException, "DIVIDE_BY_ZERO", "22012",
		"Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.")
}

// Unsupported is UNSUPPORTED_FEATURE-like: an operation Weir does not support.
func Unsupported(format string, args ...any) *Error {
	return Newf(UnsupportedOperation, "UNSUPPORTED_FEATURE", "0A000", format, args...)
}

// Internal is an internal error (a bug): INTERNAL_ERROR.
func Internal(format string, args ...any) *Error {
	return Newf(SparkException, "INTERNAL_ERROR", "XX000", format, args...)
}
