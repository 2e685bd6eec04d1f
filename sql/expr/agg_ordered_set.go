package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"math"
	"sort"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Ordered-set aggregates: percentile_cont(p) and percentile_disc(p) WITHIN GROUP (ORDER BY x
// [DESC]), Spark's PercentileCont and PercentileDisc. p is a constant in [0, 1] or an array of
// them (an array of results); x is numeric (the result a DOUBLE) or an ANSI interval (the result
// that interval). percentile_cont interpolates between the two nearest ranks, percentile_disc
// returns the first value whose cumulative distribution reaches p; DESC reads the values in
// descending order. Called without WITHIN GROUP they fail as Spark does.

func init() {
	registerAggregate(1, 1, bindWithinGroupMissing, "percentile_cont", "percentile_disc")
}

func bindWithinGroupMissing(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	return nil, sparkerr.Analysis("INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING", "42K0K",
		"Invalid function `%s` with WITHIN GROUP. WITHIN GROUP is required for the function.", name).
		WithParams("funcName", "`"+name+"`")
}

// IsOrderedSet reports whether name (lower case) takes WITHIN GROUP (ORDER BY …).
func IsOrderedSet(name string) bool {
	return name == "percentile_cont" || name == "percentile_disc"
}

// BindOrderedSet binds name(args) WITHIN GROUP (ORDER BY order [DESC]). The aggregate renders as
// name(args); the caller appends WithinGroupSQL.
func BindOrderedSet(name string, args []Expr, distinct bool, order Expr, desc bool, opts Options) (AggFunc, error) {
	if !IsOrderedSet(name) {
		return nil, sparkerr.Analysis("INVALID_WITHIN_GROUP_EXPRESSION.WITHIN_GROUP_MISSING", "42K0K",
			"Invalid function `%s` with WITHIN GROUP. The function does not support WITHIN GROUP.", name).
			WithParams("funcName", "`"+name+"`")
	}
	if len(args) != 1 {
		return nil, wrongNumArgs(name, "1", len(args))
	}
	call := callString(name, []Expr{order, args[0]})
	x := order
	switch t := x.Type(); {
	case t.IsNumeric(), t.Kind == sqltypes.DayTimeInterval, t.Kind == sqltypes.YearMonthInterval:
	case t.Kind == sqltypes.String, t.Kind == sqltypes.Null:
		c, err := implicitCast(x, sqltypes.DoubleType, opts)
		if err != nil {
			return nil, err
		}
		x = c
	default:
		return nil, unexpectedInputType(quoteSQL(call), 0, `("NUMERIC" or "INTERVAL DAY TO SECOND" or "INTERVAL YEAR TO MONTH")`, x)
	}
	ps, isArray, err := percentages(call, args[0])
	if err != nil {
		return nil, err
	}
	in := x.Type()
	t := sqltypes.DoubleType
	switch in.Kind {
	case sqltypes.DayTimeInterval:
		t = sqltypes.DayTimeIntervalType(0, 3)
	case sqltypes.YearMonthInterval:
		t = sqltypes.YearMonthIntervalType(0, 1)
	}
	rt := t
	if isArray {
		rt = sqltypes.ArrayType(t, false)
	}
	disc := name == "percentile_disc"
	a := tupleAgg(name, []Expr{x}, distinct, rt, skipNullFirst, func(rows [][]any) (any, error) {
		if len(rows) == 0 {
			return nil, nil
		}
		vals := make([]float64, len(rows))
		for i, r := range rows {
			switch v := r[0].(type) {
			case int64:
				vals[i] = float64(v) // interval day to second (and bigint)
			case int32:
				vals[i] = float64(v) // interval year to month (and int)
			default:
				vals[i], _ = castAsDouble(v, in)
			}
		}
		sort.Slice(vals, func(i, j int) bool {
			if desc {
				return CompareFloat(vals[i], vals[j]) > 0
			}
			return CompareFloat(vals[i], vals[j]) < 0
		})
		out := make([]any, len(ps))
		for i, p := range ps {
			var v float64
			if disc {
				idx := int(math.Ceil(p*float64(len(vals)))) - 1
				v = vals[max(0, min(idx, len(vals)-1))]
			} else {
				v = interpolatedPercentile(vals, p)
			}
			out[i] = fromPercentileDouble(v, t)
		}
		if isArray {
			return out, nil
		}
		return out[0], nil
	})
	a.display = args
	return a, nil
}

// WithinGroupSQL is how Spark renders the clause after the call: " WITHIN GROUP (ORDER BY x)",
// with " DESC" for a descending order.
func WithinGroupSQL(order Expr, desc bool) string {
	s := " WITHIN GROUP (ORDER BY " + order.String()
	if desc {
		s += " DESC"
	}
	return s + ")"
}

// constantOperand evaluates e once when it reads no column (array(0.25, 0.5) as well as 0.5).
func constantOperand(e Expr) (any, bool) {
	if v, ok := literalValue(e); ok {
		return v, true
	}
	var reads func(Expr) bool
	reads = func(x Expr) bool {
		switch x.(type) {
		case *Column, *LambdaVariable:
			return true
		}
		for _, c := range x.Children() {
			if reads(c) {
				return true
			}
		}
		return false
	}
	if reads(e) || !IsDeterministic(e) {
		return nil, false
	}
	b := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer b.Release()
	a, err := e.Eval(&Context{Mem: memory.DefaultAllocator}, b)
	if err != nil {
		return nil, false
	}
	defer a.Release()
	return ValueAt(a, 0, e.Type()), true
}

// percentages reads the constant percentage (or array of them) p of call.
func percentages(call string, p Expr) ([]float64, bool, error) {
	v, ok := constantOperand(p)
	isArray := p.Type().Kind == sqltypes.Array
	numeric := p.Type().IsNumeric() || (isArray && p.Type().Elem.IsNumeric())
	if !numeric {
		want := `"DOUBLE"`
		if isArray {
			want = `"ARRAY<DOUBLE>"`
		}
		return nil, false, unexpectedInputType(quoteSQL(call), 1, want, p)
	}
	if !ok {
		return nil, false, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(call),
			"the input `percentage` should be a foldable \"DOUBLE\" expression; however, got %s.", quoteSQL(p.String()))
	}
	if v == nil {
		return nil, false, typeMismatch("UNEXPECTED_NULL", quoteSQL(call), "The `percentage` must not be null.")
	}
	var raw []any
	et := p.Type()
	if isArray {
		raw, et = v.([]any), *p.Type().Elem
	} else {
		raw = []any{v}
	}
	out := make([]float64, len(raw))
	for i, r := range raw {
		f, _ := castAsDouble(r, et)
		if r == nil || f < 0 || f > 1 {
			return nil, false, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(call),
				"The percentage must be between [0.0, 1.0] (current value = %sD).", formatDouble(f)).
				WithParams("currentValue", fmt.Sprintf("%sD", formatDouble(f)))
		}
		out[i] = f
	}
	return out, isArray, nil
}

// fromPercentileDouble converts a computed percentile back to the result type: intervals
// truncate to whole microseconds (months), as Spark's toLong/toInt.
func fromPercentileDouble(v float64, t sqltypes.DataType) any {
	switch t.Kind {
	case sqltypes.DayTimeInterval:
		return int64(v)
	case sqltypes.YearMonthInterval:
		return int32(v)
	}
	return v
}
