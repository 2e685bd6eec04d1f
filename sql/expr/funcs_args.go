package expr

import (
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
