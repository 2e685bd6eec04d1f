package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// SQL-syntax functions the parser emits (extract, timestampadd/diff, overlay) and a few string
// formatters.

func init() {
	registerScalar(2, 2, bindExtract, "extract", "date_part", "datepart")
	registerScalar(3, 3, bindTimestampAdd, "timestampadd")
	registerScalar(3, 3, bindTimestampDiff, "timestampdiff")
	registerScalar(3, 4, bindOverlay, "overlay")
	registerScalar(2, 2, bindFormatNumber, "format_number")
	registerScalar(1, 1, bindSoundex, "soundex")
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

func bindOverlay(name string, args []Expr, opts Options) (Expr, error) {
	types := []sqltypes.DataType{strType, strType, intType, intType}
	cs, err := coerceArgs(name, args, opts, types...)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		in, rep := []rune(a[0].(string)), a[1].(string)
		pos := int(toInt64(a[2]))
		l := len([]rune(rep))
		if len(a) == 4 && toInt64(a[3]) >= 0 {
			l = int(toInt64(a[3]))
		}
		head := substringSQL(string(in), 1, int64(pos-1))
		tail := substringSQL(string(in), int64(pos+l), 1<<40)
		return head + rep + tail, nil
	})
	f.text = callText(name, args)
	return f, nil
}

// javaDoubleFractionDigits is DecimalFormat's cap on fraction digits for numbers other than
// BigDecimal and BigInteger (DOUBLE_FRACTION_DIGITS).
const javaDoubleFractionDigits = 340

// formatNumber renders x (unscaled at scale) rounded HALF_EVEN to d digits with thousands
// separators, padding the fraction with zeros without scaling x by 10^d.
func formatNumber(unscaled *big.Int, scale int32, d int32) string {
	r, _ := roundDecimal(unscaled, scale, d, "bround") // d ≥ 0: the drop always fits
	rs := min(scale, d)
	if rs < 0 {
		r, rs = new(big.Int).Mul(r, pow10(-rs)), 0
	}
	neg := r.Sign() < 0
	digits := new(big.Int).Abs(r).String()
	if len(digits) <= int(rs) {
		digits = strings.Repeat("0", int(rs)-len(digits)+1) + digits
	}
	intPart, frac := digits[:len(digits)-int(rs)], digits[len(digits)-int(rs):]
	var b strings.Builder
	b.Grow(len(intPart)*4/3 + int(d) + 2)
	if neg && strings.Trim(digits, "0") != "" {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if d > 0 {
		b.WriteByte('.')
		b.WriteString(frac)
		b.WriteString(strings.Repeat("0", int(d-rs)))
	}
	return b.String()
}

func bindFormatNumber(name string, args []Expr, opts Options) (Expr, error) {
	x, err := numericArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	if args[1].Type().Kind == sqltypes.String {
		return nil, sparkerr.Unsupported("format_number with a format pattern")
	}
	d, err := coerceArg(name, args, 1, intType, opts)
	if err != nil {
		return nil, err
	}
	xt := x.Type()
	maxDigits := int32(math.MaxInt32)
	if xt.Kind != sqltypes.Decimal {
		maxDigits = javaDoubleFractionDigits
	}
	f := nullableStrict(name, []Expr{x, d}, strType, func(_ *Context, a []any) (any, error) {
		digits := min(int32(toInt64(a[1])), maxDigits)
		if digits < 0 {
			return nil, nil
		}
		var b *big.Int
		var s int32
		switch xt.Kind {
		case sqltypes.Decimal:
			b, s = a[0].(decimalNum).BigInt(), xt.Scale
		case sqltypes.Float, sqltypes.Double:
			var ok bool
			if b, s, ok = parseDecimalString(strconv.FormatFloat(toFloat64(a[0]), 'g', -1, 64)); !ok {
				return nil, nil
			}
		default:
			b, s = big.NewInt(toInt64(a[0])), 0
		}
		return formatNumber(b, s, digits), nil
	})
	f.size = func(a []any) (int64, error) {
		// The integral part (with separators) of a double or decimal is at most ~420 bytes.
		return int64(max(min(int32(toInt64(a[1])), maxDigits), 0)) + 420, nil
	}
	f.text = callText(name, args)
	return f, nil
}

func bindSoundex(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		s := a[0].(string)
		if s == "" || !unicode.IsLetter(rune(s[0])) {
			return s, nil
		}
		code := func(c rune) byte {
			switch unicode.ToUpper(c) {
			case 'B', 'F', 'P', 'V':
				return '1'
			case 'C', 'G', 'J', 'K', 'Q', 'S', 'X', 'Z':
				return '2'
			case 'D', 'T':
				return '3'
			case 'L':
				return '4'
			case 'M', 'N':
				return '5'
			case 'R':
				return '6'
			case 'H', 'W':
				return 'h'
			}
			return '0'
		}
		out := []byte{byte(unicode.ToUpper(rune(s[0])))}
		last := code(rune(s[0]))
		for _, c := range s[1:] {
			if len(out) == 4 {
				break
			}
			k := code(c)
			if k == 'h' {
				continue
			}
			if k != '0' && k != last {
				out = append(out, k)
			}
			last = k
		}
		for len(out) < 4 {
			out = append(out, '0')
		}
		return string(out), nil
	})
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
