package expr

import (
	"math"
	"strings"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// aggFunc is the AggFunc implementation shared by every aggregate.
type aggFunc struct {
	name     string
	args     []Expr
	distinct bool
	t        sqltypes.DataType
	null     bool
	// display, when set, are the arguments shown in String() (defaults Spark fills in).
	display []Expr
	newAcc  func(ctx *Context) GroupedAccumulator
	// opts are the options the function was bound with (BindAggregate).
	opts Options
	// split, when set, splits the function (self, as rewritten since binding) for aggregation
	// before an exchange (SplitAggregate): the partial aggregates, and the final one over their
	// results, read by partial (the first partial's column).
	split func(self *aggFunc, partial Expr) ([]AggFunc, AggFunc)
	// noRetract marks functions whose accumulators cannot retract rows (Retracts).
	noRetract bool
	// countsNulls marks functions counting NULL arguments, which FILTER cannot turn into
	// NULLs (BindFilteredAggregate).
	countsNulls bool
}

func (a *aggFunc) Name() string            { return a.name }
func (a *aggFunc) Args() []Expr            { return a.args }
func (a *aggFunc) Distinct() bool          { return a.distinct }
func (a *aggFunc) Type() sqltypes.DataType { return a.t }
func (a *aggFunc) Nullable() bool          { return a.null }

func (a *aggFunc) String() string { return renderSQL(a) }

func (a *aggFunc) writeSQL(b *strings.Builder) {
	shown := a.args
	if a.display != nil {
		shown = a.display
	}
	b.WriteString(a.name + "(")
	if a.distinct {
		b.WriteString("DISTINCT ")
	}
	for i, x := range shown {
		if i > 0 {
			b.WriteString(", ")
		}
		writeSQL(b, x)
	}
	b.WriteByte(')')
}

func (a *aggFunc) NewAccumulator(ctx *Context) GroupedAccumulator {
	acc := a.newAcc(ctx)
	if a.distinct {
		types := make([]sqltypes.DataType, len(a.args))
		for i, x := range a.args {
			types[i] = x.Type()
		}
		return &distinctAcc{inner: acc, types: types}
	}
	return acc
}

func init() {
	registerAggregate(0, -1, bindCount, "count")
	registerAggregate(1, 1, bindSum, "sum")
	registerAggregate(1, 1, bindAvg, "avg", "mean")
	registerAggregate(1, 1, bindMinMax, "min", "max")
	registerAggregate(1, 2, bindFirstLast, "first", "last", "first_value", "last_value", "any_value")
	registerAggregate(1, 1, bindCollect, "collect_list", "collect_set", "array_agg")
	registerAggregate(1, 1, bindCountIf, "count_if")
	registerAggregate(1, 1, bindBoolAgg, "bool_and", "every", "bool_or", "some", "any")
	registerAggregate(1, 1, bindVariance, "stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop")
	registerAggregate(1, 1, bindTrySumAvg, "try_sum", "try_avg")
	registerAggregate(1, 2, bindStringAgg, "string_agg", "listagg")
	registerAggregate(1, 1, bindBitAgg, "bit_and", "bit_or", "bit_xor")
	registerAggregate(1, 1, bindShape, "skewness", "kurtosis")
}

func bindCount(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	if len(args) == 0 {
		args = []Expr{NewLiteral(int32(1), sqltypes.IntegerType)}
	}
	if len(args) > 1 && !distinct {
		return nil, wrongNumArgs(name, "1", len(args))
	}
	f := &aggFunc{name: name, args: args, distinct: distinct, t: sqltypes.LongType,
		newAcc: func(*Context) GroupedAccumulator { return &countAcc{} }}
	if distinct {
		// DISTINCT collated strings count once per collation key.
		f.args, f.display = distinctCollationKeys(args), args
	}
	return f, nil
}

// numericAggArg casts a string argument to double, and rejects non-numeric types.
func numericAggArg(name string, args []Expr, opts Options, allowInterval bool) (Expr, error) {
	x := args[0]
	switch t := x.Type(); {
	case t.Kind == sqltypes.String, t.Kind == sqltypes.Null:
		return implicitCast(x, sqltypes.DoubleType, opts)
	case t.IsNumeric():
		return x, nil
	case allowInterval && (t.Kind == sqltypes.DayTimeInterval || t.Kind == sqltypes.YearMonthInterval):
		return x, nil
	}
	return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("NUMERIC" or "ANSI INTERVAL")`, x)
}

func bindSum(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := numericAggArg(name, args, opts, true)
	if err != nil {
		return nil, err
	}
	in := x.Type()
	var t sqltypes.DataType
	switch {
	case in.IsIntegral():
		t = sqltypes.LongType
	case in.Kind == sqltypes.Decimal:
		t = boundedDecimal(in.Precision+10, in.Scale)
	case in.Kind == sqltypes.DayTimeInterval || in.Kind == sqltypes.YearMonthInterval:
		t = in
	default:
		t = sqltypes.DoubleType
	}
	ansi := opts.ANSI
	return &aggFunc{name: name, args: []Expr{x}, distinct: distinct, t: t, null: true,
		newAcc: func(*Context) GroupedAccumulator { return newSumAcc(in, t, ansi, false) }}, nil
}

func bindAvg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := numericAggArg(name, args, opts, true)
	if err != nil {
		return nil, err
	}
	in := x.Type()
	t := sqltypes.DoubleType
	sumT := sqltypes.DoubleType
	switch in.Kind {
	case sqltypes.Decimal:
		t = boundedDecimal(in.Precision+4, in.Scale+4)
		sumT = boundedDecimal(in.Precision+10, in.Scale)
	case sqltypes.DayTimeInterval, sqltypes.YearMonthInterval:
		t, sumT = in, in
	}
	ansi := opts.ANSI
	return &aggFunc{name: name, args: []Expr{x}, distinct: distinct, t: t, null: true,
		newAcc: func(*Context) GroupedAccumulator {
			s := newSumAcc(in, sumT, ansi, true)
			s.avgType = t
			return s
		}}, nil
}

func bindMinMax(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x := args[0]
	if Unorderable(x.Type()) {
		return nil, InvalidOrdering(callString(name, args), name, x.Type())
	}
	t := x.Type()
	isMax := name == "max"
	return &aggFunc{name: name, args: args, t: t, null: true,
		newAcc: func(*Context) GroupedAccumulator { return newMinMaxAcc(t, isMax) }}, nil
}

func bindFirstLast(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	ignoreNulls := false
	if len(args) == 2 {
		l, ok := args[1].(*Literal)
		if !ok || l.T.Kind != sqltypes.Boolean || l.Value == nil {
			return nil, typeMismatch("UNEXPECTED_INPUT_TYPE", quoteSQL(callString(name, args)),
				"The second parameter requires the \"BOOLEAN\" type, however %s has the type \"%s\".",
				quoteSQL(args[1].String()), args[1].Type().SQL())
		}
		ignoreNulls = l.Value.(bool)
	}
	kind := valuesFirst
	if name == "last" || name == "last_value" {
		kind = valuesLast
	}
	if name == "any_value" {
		kind = valuesFirst
	}
	t := args[0].Type()
	f := &aggFunc{name: name, args: args[:1], t: t, null: true,
		newAcc: func(*Context) GroupedAccumulator { return newValuesAcc(kind, t, false, ignoreNulls) }}
	return f, nil
}

func bindCollect(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	in := args[0].Type()
	kind := valuesList
	if name == "collect_set" {
		kind = valuesSet
		if err := setOfCollated(name, args); err != nil {
			return nil, err
		}
	}
	return &aggFunc{name: name, args: args, distinct: distinct, t: sqltypes.ArrayType(in, false),
		newAcc: func(*Context) GroupedAccumulator { return newValuesAcc(kind, in, false, true) }}, nil
}

func bindCountIf(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	if args[0].Type().Kind != sqltypes.Boolean {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"BOOLEAN"`, args[0])
	}
	return &aggFunc{name: name, args: args, distinct: distinct, t: sqltypes.LongType,
		newAcc: func(*Context) GroupedAccumulator { return &boolCountAcc{mode: "count_if"} }}, nil
}

func bindBoolAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	if args[0].Type().Kind != sqltypes.Boolean {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"BOOLEAN"`, args[0])
	}
	mode := "and"
	if name == "bool_or" || name == "some" || name == "any" {
		mode = "or"
	}
	return &aggFunc{name: name, args: args, distinct: distinct, t: sqltypes.BooleanType, null: true,
		newAcc: func(*Context) GroupedAccumulator { return &boolCountAcc{mode: mode} }}, nil
}

func bindVariance(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := numericAggArg(name, args, opts, false)
	if err != nil {
		return nil, err
	}
	if x, err = implicitCast(x, sqltypes.DoubleType, opts); err != nil {
		return nil, err
	}
	kind := name
	switch name {
	case "std", "stddev":
		kind = "stddev_samp"
	case "variance":
		kind = "var_samp"
	}
	return &aggFunc{name: name, args: []Expr{x}, distinct: distinct, t: sqltypes.DoubleType, null: true,
		newAcc: func(*Context) GroupedAccumulator { return &momentsAcc{kind: kind} }}, nil
}

func bindTrySumAvg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	bind := bindSum
	if name == "try_avg" {
		bind = bindAvg
	}
	f, err := bind(name, args, distinct, opts)
	if err != nil {
		return nil, err
	}
	a := f.(*aggFunc)
	inner := a.newAcc
	a.newAcc = func(ctx *Context) GroupedAccumulator {
		acc := inner(ctx)
		if s, ok := acc.(*sumAcc); ok {
			s.try = true
		}
		return acc
	}
	return a, nil
}

func bindStringAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	shown := []Expr{x}
	delim := ""
	if len(args) == 2 {
		v, ok := literalValue(args[1])
		if !ok {
			return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)), "the delimiter should be a foldable \"STRING\" expression")
		}
		if s, isStr := v.(string); isStr {
			delim = s
		}
		shown = append(shown, args[1])
	} else {
		shown = append(shown, NewLiteral(nil, sqltypes.NullType))
	}
	f := tupleAgg(name, shown[:1], distinct, strType, skipNullFirst, func(rows [][]any) (any, error) {
		if len(rows) == 0 {
			return nil, nil
		}
		parts := make([]string, len(rows))
		for i, r := range rows {
			parts[i] = r[0].(string)
		}
		return strings.Join(parts, delim), nil
	})
	f.display = shown
	return f, nil
}

func bindBitAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	t := args[0].Type()
	if !t.IsIntegral() {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"INTEGRAL"`, args[0])
	}
	return tupleAgg(name, args, distinct, t, skipNullFirst, func(rows [][]any) (any, error) {
		if len(rows) == 0 {
			return nil, nil
		}
		acc := toInt64(rows[0][0])
		for _, r := range rows[1:] {
			v := toInt64(r[0])
			switch name {
			case "bit_and":
				acc &= v
			case "bit_or":
				acc |= v
			default:
				acc ^= v
			}
		}
		return narrow(acc, t.Kind), nil
	}), nil
}

func bindShape(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x, err := numericAggArg(name, args, opts, false)
	if err != nil {
		return nil, err
	}
	if x, err = implicitCast(x, sqltypes.DoubleType, opts); err != nil {
		return nil, err
	}
	return tupleAgg(name, []Expr{x}, distinct, sqltypes.DoubleType, skipNullFirst, func(rows [][]any) (any, error) {
		n := float64(len(rows))
		if n == 0 {
			return nil, nil
		}
		var mean float64
		for _, r := range rows {
			mean += r[0].(float64)
		}
		mean /= n
		var m2, m3, m4 float64
		for _, r := range rows {
			d := r[0].(float64) - mean
			m2 += d * d
			m3 += d * d * d
			m4 += d * d * d * d
		}
		if m2 == 0 {
			// Spark's divide-by-zero result: NULL (NaN only under
			// spark.sql.legacy.statisticalAggregate).
			return nil, nil
		}
		if name == "skewness" {
			return math.Sqrt(n) * m3 / math.Pow(m2, 1.5), nil
		}
		return n*m4/(m2*m2) - 3, nil
	}), nil
}
