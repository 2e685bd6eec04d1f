package expr

import (
	"math/big"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Datetime functions that take a unit: extract/date_part, timestampadd and timestampdiff, and
// the three-argument forms of dateadd and datediff.

func init() {
	registerScalar(2, 2, bindExtract, "extract", "date_part", "datepart")
	registerScalar(3, 3, bindTimestampAdd, "timestampadd")
	registerScalar(3, 3, bindTimestampDiff, "timestampdiff")
	registerScalar(2, 3, bindDateAddAlias, "dateadd")
	registerScalar(2, 3, bindDateDiffAlias, "datediff", "date_diff")
}

// unitArg reads a foldable unit string argument, upper-cased.
func unitArg(name string, args []Expr, i int) (string, error) {
	v, ok := literalValue(args[i])
	s, isStr := v.(string)
	if !ok || !isStr {
		return "", typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)), "the unit should be a foldable \"STRING\" expression")
	}
	return strings.ToUpper(s), nil
}

func bindExtract(name string, args []Expr, opts Options) (Expr, error) {
	field, err := unitArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	fn := map[string]string{
		"YEAR": "year", "Y": "year", "YEARS": "year", "YR": "year", "YRS": "year",
		"QUARTER": "quarter", "QTR": "quarter", "MONTH": "month", "MON": "month", "MONS": "month", "MONTHS": "month",
		"WEEK": "weekofyear", "WEEKS": "weekofyear", "W": "weekofyear",
		"DAY": "day", "D": "day", "DAYS": "day", "DAYOFWEEK": "dayofweek", "DOW": "dayofweek",
		"DOY": "dayofyear", "HOUR": "hour", "H": "hour", "HOURS": "hour", "HR": "hour", "HRS": "hour",
		"MINUTE": "minute", "M": "minute", "MIN": "minute", "MINS": "minute", "MINUTES": "minute",
	}[field]
	shown := field
	if name != "extract" {
		shown = args[0].String()
	}
	render := func() string {
		if name == "extract" {
			return "extract(" + shown + " FROM " + args[1].String() + ")"
		}
		return callString(name, args)
	}
	if field == "SECOND" || field == "S" || field == "SEC" || field == "SECONDS" || field == "SECS" {
		if args[1].Type().Kind == sqltypes.Time {
			f := strict(name, args[1:], sqltypes.DecimalType(8, 6), func(_ *Context, a []any) (any, error) {
				return bigToNum(big.NewInt(a[0].(int64) % sqltypes.NanosPerMinute / sqltypes.NanosPerMicro)), nil
			})
			f.str = render()
			return f, nil
		}
		x, err := coerceArg(name, args, 1, sqltypes.TimestampType, opts)
		if err != nil {
			return nil, err
		}
		f := strict(name, []Expr{x}, sqltypes.DecimalType(8, 6), func(ctx *Context, a []any) (any, error) {
			t := time.UnixMicro(a[0].(int64)).In(ctx.loc())
			us := int64(t.Second())*1e6 + int64(t.Nanosecond()/1000)
			return bigToNum(big.NewInt(us)), nil
		})
		f.str = render()
		return f, nil
	}
	if fn == "" {
		return nil, sparkerr.Analysis("INVALID_EXTRACT_FIELD", "42601",
			"Cannot extract %s from %s.", field, args[1].String())
	}
	e, err := Bind(fn, args[1:], opts)
	if err != nil {
		return nil, err
	}
	return &renamed{Expr: e, name: render()}, nil
}

// unitMicros is the fixed length of a timestampadd/diff unit, 0 for month-based units.
func unitMicros(unit string) (int64, int, bool) {
	switch unit {
	case "MICROSECOND":
		return 1, 0, true
	case "MILLISECOND":
		return 1e3, 0, true
	case "SECOND":
		return 1e6, 0, true
	case "MINUTE":
		return 60e6, 0, true
	case "HOUR":
		return 3600e6, 0, true
	case "DAY", "DAYOFYEAR":
		return 86400e6, 0, true
	case "WEEK":
		return 7 * 86400e6, 0, true
	case "MONTH":
		return 0, 1, true
	case "QUARTER":
		return 0, 3, true
	case "YEAR":
		return 0, 12, true
	}
	return 0, 0, false
}

func badUnit(name, unit string) error {
	return sparkerr.Analysis("INVALID_PARAMETER_VALUE.DATETIME_UNIT", "22023",
		"The value of parameter(s) `unit` in `%s` is invalid: expects one of the units without quotes YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFYEAR, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, but got the string literal '%s'.", name, unit)
}

func bindTimestampAdd(name string, args []Expr, opts Options) (Expr, error) {
	unit, err := unitArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	step, months, ok := unitMicros(unit)
	if !ok {
		return nil, badUnit(name, unit)
	}
	n, err := coerceArg(name, args, 1, sqltypes.LongType, opts)
	if err != nil {
		return nil, err
	}
	ts := args[2]
	if ts.Type().Kind != sqltypes.TimestampNTZ {
		if ts, err = coerceArg(name, args, 2, sqltypes.TimestampType, opts); err != nil {
			return nil, err
		}
	}
	t := ts.Type()
	f := strict(name, []Expr{n, ts}, t, func(ctx *Context, a []any) (any, error) {
		k := a[0].(int64)
		if months != 0 {
			return addMonthsValue(a[1], t, int(k)*months, ctx.loc()), nil
		}
		if step >= 86400e6 {
			loc := ctx.loc()
			if t.Kind == sqltypes.TimestampNTZ {
				loc = time.UTC
			}
			return time.UnixMicro(a[1].(int64)).In(loc).AddDate(0, 0, int(k*step/86400e6)).UnixMicro(), nil
		}
		return a[1].(int64) + k*step, nil
	})
	f.str = name + "(" + unit + ", " + args[1].String() + ", " + args[2].String() + ")"
	return f, nil
}

func bindTimestampDiff(name string, args []Expr, opts Options) (Expr, error) {
	unit, err := unitArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	step, months, ok := unitMicros(unit)
	if !ok {
		return nil, badUnit(name, unit)
	}
	cs, err := coerceArgs(name, args[1:], opts, sqltypes.TimestampType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, sqltypes.LongType, func(ctx *Context, a []any) (any, error) {
		s, e := a[0].(int64), a[1].(int64)
		if months == 0 {
			return (e - s) / step, nil
		}
		ts, te := time.UnixMicro(s).In(ctx.loc()), time.UnixMicro(e).In(ctx.loc())
		m := int64((te.Year()-ts.Year())*12 + int(te.Month()) - int(ts.Month()))
		// A partial month does not count: compare the rest of the timestamps.
		rest := func(t time.Time) int64 {
			return int64(t.Day())*86400e6 + int64(t.Hour())*3600e6 + int64(t.Minute())*60e6 + int64(t.Second())*1e6 + int64(t.Nanosecond()/1000)
		}
		if m > 0 && rest(te) < rest(ts) {
			m--
		} else if m < 0 && rest(te) > rest(ts) {
			m++
		}
		return m / int64(months), nil
	})
	f.str = name + "(" + unit + ", " + args[1].String() + ", " + args[2].String() + ")"
	return f, nil
}

func bindDateAddAlias(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 3 {
		return bindTimestampAdd(name, args, opts)
	}
	return bindDateAdd("date_add", args, opts)
}

func bindDateDiffAlias(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 3 {
		return bindTimestampDiff(name, args, opts)
	}
	e, err := bindDateDiff(name, args, opts)
	return e, err
}
