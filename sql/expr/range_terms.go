package expr

import (
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// RangeTerm is a conjunct a data source can test against the range of a column's values (a
// Parquet row group's min/max statistics and null count) to prove that no row passes it:
// Operand Op Values, where Operand reads one input column, Column, either directly or through
// a cast that preserves order (a widening numeric cast, date → timestamp), so that Operand
// over the column's min and max bounds Operand over every value.
type RangeTerm struct {
	// Column is the input column Operand reads.
	Column int
	// Operand is evaluated over a batch whose column Column holds the column's min and max.
	Operand Expr
	// Op is one of = < <= > >= (Operand Op Values[0]), "in" (Operand IN Values), "isnull",
	// "isnotnull" (no Values).
	Op string
	// Values are the non-null constants compared with, of Operand's type; an IN list's NULLs
	// are left out (they never make the predicate true).
	Values []any
}

// RangeTerms returns the conjuncts of e (split at its top-level ANDs) that are range terms;
// other conjuncts are left out, so the terms are implied by e but need not imply it.
// Comparisons whose type orders values otherwise than their bytes or numbers (doubles and
// floats with NaN, collated strings, nested types) are left out.
func RangeTerms(e Expr) []RangeTerm {
	var out []RangeTerm
	var walk func(Expr)
	walk = func(e Expr) {
		if b, ok := asAnd(e); ok {
			walk(b.left)
			walk(b.right)
			return
		}
		if t, ok := rangeTerm(e); ok {
			out = append(out, t)
		}
	}
	walk(e)
	return out
}

var flippedOp = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func rangeTerm(e Expr) (RangeTerm, bool) {
	switch x := e.(type) {
	case *comparison:
		if _, ok := flippedOp[x.op]; !ok || !rangeComparable(x.in) ||
			!x.left.Type().EqualIgnoreNullable(x.in) || !x.right.Type().EqualIgnoreNullable(x.in) {
			return RangeTerm{}, false
		}
		if col, ok := rangeOperand(x.left); ok {
			if v, ok := rangeConstant(x.right); ok && v != nil {
				return RangeTerm{Column: col, Operand: x.left, Op: x.op, Values: []any{v}}, true
			}
		}
		if col, ok := rangeOperand(x.right); ok {
			if v, ok := rangeConstant(x.left); ok && v != nil {
				return RangeTerm{Column: col, Operand: x.right, Op: flippedOp[x.op], Values: []any{v}}, true
			}
		}
	case *inList:
		return inTerm(x.value, x.list, x.in)
	case *inSet:
		return inTerm(x.value, x.list, x.in)
	case *nullTest:
		if x.kind != "null" && x.kind != "notnull" {
			return RangeTerm{}, false
		}
		if col, ok := rangeOperand(x.child); ok {
			return RangeTerm{Column: col, Operand: x.child, Op: "is" + x.kind}, true
		}
	}
	return RangeTerm{}, false
}

func inTerm(value Expr, list []Expr, in sqltypes.DataType) (RangeTerm, bool) {
	col, ok := rangeOperand(value)
	if !ok || !rangeComparable(in) || !value.Type().EqualIgnoreNullable(in) {
		return RangeTerm{}, false
	}
	vals := make([]any, 0, len(list))
	for _, l := range list {
		v, ok := rangeConstant(l)
		if !ok || (v != nil && !l.Type().EqualIgnoreNullable(in)) {
			return RangeTerm{}, false
		}
		if v != nil {
			vals = append(vals, v)
		}
	}
	return RangeTerm{Column: col, Operand: value, Op: "in", Values: vals}, true
}

// rangeComparable reports whether values of t compare as their bytes or numbers do.
func rangeComparable(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Decimal,
		sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return true
	case sqltypes.String:
		return t.StringCollation == "" || t.StringCollation == "UTF8_BINARY"
	}
	return false
}

// rangeOperand returns the column e reads when e is a column or an order-preserving cast of one.
func rangeOperand(e Expr) (int, bool) {
	switch x := e.(type) {
	case *Column:
		return x.Index, rangeComparable(x.T)
	case *castExpr:
		if !widens(x.child.Type(), x.to) {
			return 0, false
		}
		return rangeOperand(x.child)
	}
	return 0, false
}

// widens reports whether every value of from casts to a value of to, in the same order.
func widens(from, to sqltypes.DataType) bool {
	rank := map[sqltypes.Kind]int32{sqltypes.Byte: 3, sqltypes.Short: 5, sqltypes.Integer: 10, sqltypes.Long: 19}
	switch {
	case from.IsIntegral() && to.IsIntegral():
		return rank[from.Kind] <= rank[to.Kind]
	case from.IsIntegral() && to.Kind == sqltypes.Decimal:
		return rank[from.Kind] <= to.Precision-to.Scale
	case from.Kind == sqltypes.Decimal && to.Kind == sqltypes.Decimal:
		return from.Scale <= to.Scale && from.Precision-from.Scale <= to.Precision-to.Scale
	case from.Kind == sqltypes.Date:
		return to.Kind == sqltypes.Timestamp || to.Kind == sqltypes.TimestampNTZ || to.Kind == sqltypes.Date
	case from.Kind == sqltypes.String:
		return to.Kind == sqltypes.String && rangeComparable(to)
	}
	return false
}

// rangeConstant returns the value of a literal, or of casts of one that do not depend on the
// session time zone.
func rangeConstant(e Expr) (any, bool) {
	for c, ok := e.(*castExpr); ok; c, ok = c.child.(*castExpr) {
		if c.to.Kind == sqltypes.Timestamp || c.child.Type().Kind == sqltypes.Timestamp {
			return nil, false
		}
	}
	return constantValue(e, time.UTC)
}
