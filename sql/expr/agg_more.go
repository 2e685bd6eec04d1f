package expr

import (
	"math"
	"strings"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// try_sum/try_avg, string_agg/listagg, bit_and/bit_or/bit_xor, skewness and kurtosis.

func init() {
	registerAggregate(1, 1, bindTrySumAvg, "try_sum", "try_avg")
	registerAggregate(1, 2, bindStringAgg, "string_agg", "listagg")
	registerAggregate(1, 1, bindBitAgg, "bit_and", "bit_or", "bit_xor")
	registerAggregate(1, 1, bindShape, "skewness", "kurtosis")
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
			return math.NaN(), nil
		}
		if name == "skewness" {
			return math.Sqrt(n) * m3 / math.Pow(m2, 1.5), nil
		}
		return n*m4/(m2*m2) - 3, nil
	}), nil
}
