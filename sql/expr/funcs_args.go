package expr

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Argument coercion helpers shared by the function families.

// coerceArg casts args[i] to t for a function call rendered as callString(name, args); an
// argument that cannot be implicitly cast gives DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE.
func coerceArg(name string, args []Expr, i int, t sqltypes.DataType, opts Options) (Expr, error) {
	a := args[i]
	at := a.Type()
	if at.EqualIgnoreNullable(t) {
		return a, nil
	}
	if !implicitlyCastable(at, t) {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), i, `"`+t.SQL()+`"`, a)
	}
	return implicitCast(a, t, opts)
}

// coerceArgs casts args to types (one per argument; extra arguments use the last type).
func coerceArgs(name string, args []Expr, opts Options, types ...sqltypes.DataType) ([]Expr, error) {
	out := make([]Expr, len(args))
	for i := range args {
		t := types[min(i, len(types)-1)]
		c, err := coerceArg(name, args, i, t, opts)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// implicitlyCastable is Spark's ANSI implicit cast relation (AnsiTypeCoercion.implicitCast) over
// the kinds functions ask for.
func implicitlyCastable(from, to sqltypes.DataType) bool {
	if from.Kind == sqltypes.Null || from.EqualIgnoreNullable(to) {
		return true
	}
	switch to.Kind {
	case sqltypes.String:
		return isAtomic(from)
	case sqltypes.Binary:
		return from.Kind == sqltypes.String
	case sqltypes.Boolean:
		return from.Kind == sqltypes.String
	case sqltypes.Date:
		return from.Kind == sqltypes.String || from.Kind == sqltypes.Timestamp || from.Kind == sqltypes.TimestampNTZ
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return from.Kind == sqltypes.String || isDatetime(from)
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		return from.Kind == sqltypes.String || (from.IsIntegral() && numericRank(from.Kind) <= numericRank(to.Kind)) ||
			from.IsIntegral()
	case sqltypes.Float, sqltypes.Double, sqltypes.Decimal:
		return from.IsNumeric() || from.Kind == sqltypes.String
	case sqltypes.Array:
		return from.Kind == sqltypes.Array && implicitlyCastable(*from.Elem, *to.Elem)
	}
	return false
}

// numericArg casts a string/null argument to double and accepts any numeric type.
func numericArg(name string, args []Expr, i int, opts Options) (Expr, error) {
	a := args[i]
	switch {
	case a.Type().IsNumeric():
		return a, nil
	case a.Type().Kind == sqltypes.String || a.Type().Kind == sqltypes.Null:
		return implicitCast(a, sqltypes.DoubleType, opts)
	}
	return nil, unexpectedInputType(quoteSQL(callString(name, args)), i, `"NUMERIC"`, a)
}

// foldable reports whether e is a literal, and its value.
func literalValue(e Expr) (any, bool) {
	switch x := e.(type) {
	case *Literal:
		return x.Value, true
	case *castExpr:
		if v, ok := literalValue(x.child); ok {
			r, err := castValue(v, x.child.Type(), x.to, false, nil2utc())
			return r, err == nil
		}
	case *renamed:
		return literalValue(x.Expr)
	}
	return nil, false
}

// constantArg evaluates a constant argument: a literal, a cast of one, or a deterministic
// row-wise function of constants (unhex('…'), map(…)), as Spark folds them.
func constantArg(e Expr) (any, bool) {
	if v, ok := literalValue(e); ok {
		return v, true
	}
	f, isFunc := e.(*rowFunc)
	if !isFunc || !IsDeterministic(f) {
		return nil, false
	}
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, ok := constantArg(a)
		if !ok {
			return nil, false
		}
		if v == nil && f.strict {
			return nil, true
		}
		vals[i] = v
	}
	v, err := f.fn(&Context{}, vals)
	return v, err == nil
}

// binaryArg accepts binary, or casts a string-like argument to binary.
func binaryArg(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind == sqltypes.Binary {
		return args[0], nil
	}
	s, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	return implicitCast(s, sqltypes.BinaryType, opts)
}

// optionsArg reads a function's options argument: a constant map of strings (keys lower-cased);
// none or NULL is empty.
func optionsArg(args []Expr, i int) (map[string]string, error) {
	out := map[string]string{}
	if len(args) <= i || args[i].Type().Kind == sqltypes.Null {
		return out, nil
	}
	m, ok := constantMap(args[i])
	if !ok {
		return nil, sparkerr.Analysis("INVALID_OPTIONS.NON_MAP_FUNCTION", "42K06", "Invalid options: Must use the `map()` function for options.")
	}
	for j, k := range m.Keys {
		ks, _ := k.(string)
		vs, _ := m.Values[j].(string)
		out[strings.ToLower(ks)] = vs
	}
	return out, nil
}

// parseMode reads the mode option of a function that parses binary records: PERMISSIVE or
// FAILFAST (the default); DROPMALFORMED is PARSE_MODE_UNSUPPORTED.
func parseMode(name string, opts map[string]string) (permissive bool, err error) {
	mode, ok := opts["mode"]
	if !ok {
		mode = "FAILFAST"
	}
	switch strings.ToUpper(mode) {
	case "FAILFAST":
		return false, nil
	case "DROPMALFORMED":
		return false, sparkerr.Newf(sparkerr.AnalysisException, "PARSE_MODE_UNSUPPORTED", "42601",
			"The function `%s` doesn't support the %s mode. Acceptable modes are PERMISSIVE and FAILFAST.", name, mode).
			WithParams("funcName", "`"+name+"`", "mode", mode)
	}
	return true, nil
}
