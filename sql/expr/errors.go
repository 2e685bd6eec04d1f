package expr

import (
	"fmt"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Run-time and bind-time errors with Spark's error classes.

func tryName(op string) string {
	switch op {
	case "-":
		return "subtract"
	case "*":
		return "multiply"
	case "/", "div":
		return "divide"
	case "%":
		return "mod"
	}
	return "add"
}

func intOverflow(kind sqltypes.Kind, op string) *sparkerr.Error {
	word := "integer"
	if kind == sqltypes.Long {
		word = "long"
	}
	msg := fmt.Sprintf("%s overflow. Use 'try_%s' to tolerate overflow and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", word, tryName(op))
	return sparkerr.New(sparkerr.ArithmeticException, "ARITHMETIC_OVERFLOW", "22003", msg).
		WithParams("message", word+" overflow", "alternative", " Use 'try_"+tryName(op)+"' to tolerate overflow and return NULL instead.", "config", `"spark.sql.ansi.enabled"`)
}

func decimalOverflow(v string, p, s int32) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ArithmeticException, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "22003",
		"%s cannot be represented as Decimal(%d, %d). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead.", v, p, s).
		WithParams("value", v, "precision", fmt.Sprint(p), "scale", fmt.Sprint(s), "config", `"spark.sql.ansi.enabled"`)
}

func castInvalidInput(v any, from, to sqltypes.DataType) *sparkerr.Error {
	javaClass := sparkerr.NumberFormatException
	switch to.Kind {
	case sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		javaClass = sparkerr.DateTimeException
	case sqltypes.Boolean:
		javaClass = sparkerr.SparkRuntimeException
	}
	lit := renderSQLValue(v, from)
	return sparkerr.Newf(javaClass, "CAST_INVALID_INPUT", "22018",
		"The value %s of the type \"%s\" cannot be cast to \"%s\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead.",
		lit, from.SQL(), to.SQL()).WithParams("expression", lit, "sourceType", `"`+from.SQL()+`"`, "targetType", `"`+to.SQL()+`"`)
}

func castOverflow(v any, from, to sqltypes.DataType) *sparkerr.Error {
	lit := renderSQLValue(v, from)
	return sparkerr.Newf(sparkerr.ArithmeticException, "CAST_OVERFLOW", "22003",
		"The value %s of the type \"%s\" cannot be cast to \"%s\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead.",
		lit, from.SQL(), to.SQL()).WithParams("value", lit, "sourceType", `"`+from.SQL()+`"`, "targetType", `"`+to.SQL()+`"`)
}

// renderSQLValue renders a value the way Spark error messages quote it: strings in single quotes,
// numbers with type suffixes (1L, 1S, 1Y, 1.0D).
func renderSQLValue(v any, t sqltypes.DataType) string {
	if v == nil {
		return "NULL"
	}
	switch t.Kind {
	case sqltypes.String:
		return "'" + strings.ReplaceAll(fmt.Sprint(v), "'", "\\'") + "'"
	case sqltypes.Long:
		return fmt.Sprintf("%dL", v)
	case sqltypes.Short:
		return fmt.Sprintf("%dS", v)
	case sqltypes.Byte:
		return fmt.Sprintf("%dY", v)
	case sqltypes.Double:
		return formatDouble(toFloat64(v)) + "D"
	case sqltypes.Float:
		return formatFloat(float32(toFloat64(v)))
	}
	return literalSQL(v, t)
}

func typeMismatch(sub, sqlExpr, format string, args ...any) *sparkerr.Error {
	return sparkerr.DatatypeMismatch(sub, sqlExpr, format, args...)
}

func wrongNumArgs(name string, expected string, got int) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.AnalysisException, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
		"The `%s` requires %s parameters but the actual number is %d. Please, refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
		name, expected, got).WithParams("functionName", "`"+name+"`", "expectedNum", expected, "actualNum", fmt.Sprint(got), "docroot", "https://spark.apache.org/docs/latest")
}

// unexpectedInputType is DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE for argument idx (0-based).
func unexpectedInputType(sqlExpr string, idx int, required string, arg Expr) *sparkerr.Error {
	e := typeMismatch("UNEXPECTED_INPUT_TYPE", sqlExpr,
		"The %s parameter requires the %s type, however %s has the type \"%s\".",
		ordinal(idx+1), required, quoteSQL(arg.String()), arg.Type().SQL())
	return e.WithParams("paramIndex", ordinal(idx+1), "requiredType", required, "inputSql", quoteSQL(arg.String()), "inputType", `"`+arg.Type().SQL()+`"`)
}

func quoteSQL(s string) string { return `"` + s + `"` }

func ordinal(n int) string {
	switch n {
	case 1:
		return "first"
	case 2:
		return "second"
	case 3:
		return "third"
	case 4:
		return "fourth"
	case 5:
		return "fifth"
	}
	return fmt.Sprintf("%dth", n)
}
