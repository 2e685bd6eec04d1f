package expr

import (
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// castRefusal is Spark's error for a cast it refuses at analysis (Cast.checkInputDataTypes and
// typeCheckFailureMessage), nil when the cast is allowed: under ANSI (and try_cast) integral to
// BINARY, BOOLEAN to TIMESTAMP and TIMESTAMP or DATE to BOOLEAN are refused, an ANSI cast
// suggesting spark.sql.ansi.enabled=false; DATE to a number and a number to DATE suggest
// UNIX_DATE and DATE_FROM_UNIX_DATE under ANSI; any other impossible cast has no suggestion.
func castRefusal(from, to sqltypes.DataType, mode plan.CastMode, sql string) error {
	ansiOnly := from.IsIntegral() && to.Kind == sqltypes.Binary ||
		from.Kind == sqltypes.Boolean && (to.Kind == sqltypes.Timestamp || to.Kind == sqltypes.TimestampNTZ) ||
		(from.Kind == sqltypes.Timestamp || from.Kind == sqltypes.TimestampNTZ || from.Kind == sqltypes.Date) && to.Kind == sqltypes.Boolean
	src, target := `"`+from.SQL()+`"`, `"`+to.SQL()+`"`
	switch {
	case ansiOnly && mode == plan.CastANSI:
		return typeMismatch("CAST_WITH_CONF_SUGGESTION", quoteSQL(sql),
			"cannot cast %s to %s with ANSI mode on.\nIf you have to cast %s to %s, you can set \"spark.sql.ansi.enabled\" as 'false'.",
			src, target, src, target).
			WithParams("srcType", src, "targetType", target, "config", `"spark.sql.ansi.enabled"`, "configVal", "'false'")
	case ansiOnly && mode == plan.CastTry, !canCast(from, to) && mode != plan.CastANSI:
		return castWithoutSuggestion(src, target, sql)
	case !canCast(from, to):
		fn := ""
		switch {
		case from.Kind == sqltypes.Date && to.IsNumeric():
			fn = "`UNIX_DATE`"
		case from.IsNumeric() && to.Kind == sqltypes.Date:
			fn = "`DATE_FROM_UNIX_DATE`"
		}
		if fn == "" {
			return castWithoutSuggestion(src, target, sql)
		}
		return typeMismatch("CAST_WITH_FUNC_SUGGESTION", quoteSQL(sql),
			"cannot cast %s to %s.\nTo convert values from %s to %s, you can use the functions %s instead.",
			src, target, src, target, fn).
			WithParams("srcType", src, "targetType", target, "functionNames", fn)
	}
	return nil
}

func castWithoutSuggestion(src, target, sql string) error {
	return typeMismatch("CAST_WITHOUT_SUGGESTION", quoteSQL(sql), "cannot cast %s to %s.", src, target).
		WithParams("srcType", src, "targetType", target)
}
