package expr

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Spark's CALENDAR INTERVAL (sqltypes.CalendarInterval, built by make_interval): its string form
// (CalendarInterval.toString), its sum and negation, and its addition to timestamps
// (DateTimeUtils.timestampAddInterval) and dates (DateAddInterval). Spark neither compares nor
// orders it (INVALID_ORDERING_TYPE: comparisons, IN, min/max, ORDER BY); it groups by it.

// Unorderable reports whether Spark refuses to compare or order values of type t
// (INVALID_ORDERING_TYPE): maps, calendar intervals, geometries and geographies.
func Unorderable(t sqltypes.DataType) bool {
	return t.Kind == sqltypes.Map || t.Kind == sqltypes.CalendarInterval || isSpatial(t)
}

// InvalidOrdering is DATATYPE_MISMATCH.INVALID_ORDERING_TYPE for fn (`=`, `max`, `sortorder`)
// over the expression sqlExpr (unquoted) of type t.
func InvalidOrdering(sqlExpr, fn string, t sqltypes.DataType) error {
	return typeMismatch("INVALID_ORDERING_TYPE", quoteSQL(sqlExpr),
		"The `%s` does not support ordering on type \"%s\".", fn, t.SQL()).
		WithParams("functionName", "`"+fn+"`", "dataType", `"`+t.SQL()+`"`)
}

// formatCalendarInterval is CalendarInterval.toString: "1 years 2 months 3 days 4 hours 5
// minutes 6.5 seconds", zero units left out, "0 seconds" for the zero interval.
func formatCalendarInterval(c sqltypes.CalendarIntervalValue) string {
	if c.Months == 0 && c.Days == 0 && c.Micros == 0 {
		return "0 seconds"
	}
	var parts []string
	unit := func(n int64, name string) {
		if n != 0 {
			parts = append(parts, strconv.FormatInt(n, 10)+" "+name)
		}
	}
	unit(int64(c.Months/12), "years")
	unit(int64(c.Months%12), "months")
	unit(int64(c.Days), "days")
	rest := c.Micros
	unit(rest/3_600_000_000, "hours")
	rest %= 3_600_000_000
	unit(rest/60_000_000, "minutes")
	if rest %= 60_000_000; rest != 0 {
		parts = append(parts, secondsPlain(rest)+" seconds")
	}
	return strings.Join(parts, " ")
}

// secondsPlain renders micros as seconds without trailing zeros (BigDecimal.valueOf(micros, 6)
// .stripTrailingZeros().toPlainString()).
func secondsPlain(micros int64) string {
	sign := ""
	if micros < 0 {
		sign, micros = "-", -micros
	}
	s := strconv.FormatInt(micros/1e6, 10)
	if frac := micros % 1e6; frac != 0 {
		s += "." + strings.TrimRight(strconv.FormatInt(1e6+frac, 10)[1:], "0")
	}
	return sign + s
}

// calendarUnits are the units a string interval names (IntervalUtils.stringToInterval), in
// months, days or microseconds.
var calendarUnits = map[string]struct{ months, days, micros int64 }{
	"year": {months: 12}, "month": {months: 1}, "week": {days: 7}, "day": {days: 1},
	"hour": {micros: 3_600_000_000}, "minute": {micros: 60_000_000}, "second": {micros: 1_000_000},
	"millisecond": {micros: 1000}, "microsecond": {micros: 1},
}

// parseCalendarInterval is CAST(string AS INTERVAL) (IntervalUtils.safeStringToInterval):
// "[interval] [+|-]n unit[s] ...", a fraction only with seconds (up to nine digits, truncated to
// microseconds); anything else, or an overflow, is not an interval (the cast gives NULL).
func parseCalendarInterval(s string) (sqltypes.CalendarIntervalValue, bool) {
	var c sqltypes.CalendarIntervalValue
	words := strings.Fields(strings.ToLower(s))
	if len(words) > 0 && words[0] == "interval" {
		words = words[1:]
	}
	if len(words) == 0 || len(words)%2 != 0 {
		return c, false
	}
	var months, days int64
	for i := 0; i < len(words); i += 2 {
		num, unit := words[i], strings.TrimSuffix(words[i+1], "s")
		u, ok := calendarUnits[unit]
		if !ok {
			return c, false
		}
		neg := strings.HasPrefix(num, "-")
		if neg || strings.HasPrefix(num, "+") {
			num = num[1:]
		}
		whole, frac, hasFrac := strings.Cut(num, ".")
		n, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || strings.ContainsAny(whole, "+-") || (hasFrac && (unit != "second" || len(frac) > 9)) {
			return c, false
		}
		var fracMicros int64
		if hasFrac && frac != "" {
			f, err := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
			if err != nil || strings.ContainsAny(frac, "+-") {
				return c, false
			}
			fracMicros = f / 1000
		}
		if neg {
			n, fracMicros = -n, -fracMicros
		}
		switch {
		case u.months != 0:
			if n > math.MaxInt32 || n < math.MinInt32 {
				return c, false
			}
			months += n * u.months
		case u.days != 0:
			if n > math.MaxInt32 || n < math.MinInt32 {
				return c, false
			}
			days += n * u.days
		default:
			if n > math.MaxInt64/u.micros || n < math.MinInt64/u.micros {
				return c, false
			}
			var okA, okB bool
			c.Micros, okA = addExact(c.Micros, n*u.micros)
			c.Micros, okB = addExact(c.Micros, fracMicros)
			if !okA || !okB {
				return c, false
			}
		}
	}
	var okM, okD bool
	c.Months, okM = int32Exact(months)
	c.Days, okD = int32Exact(days)
	return c, okM && okD && c.Micros <= math.MaxInt64/1000 && c.Micros >= math.MinInt64/1000
}

// bindCalendarScale handles interval * number, number * interval and interval / number
// (MultiplyInterval, DivideInterval: "multiply_interval(i, n)"): the number as a DOUBLE, then
// IntervalUtils.fromDoubles: months and days truncated, the days' fraction carried into the
// microseconds, which round (ARITHMETIC_OVERFLOW past their range; INTERVAL_DIVIDED_BY_ZERO).
func bindCalendarScale(op string, l, r Expr, opts Options) (Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	if op == "*" && rt.Kind == sqltypes.CalendarInterval && lt.Kind != sqltypes.CalendarInterval {
		l, r, lt, rt = r, l, rt, lt
	}
	if (op != "*" && op != "/") || lt.Kind != sqltypes.CalendarInterval ||
		!(rt.IsNumeric() || rt.Kind == sqltypes.Null || isStringLike(rt)) {
		return nil, false, nil
	}
	n, err := implicitCast(r, sqltypes.DoubleType, opts)
	if err != nil {
		return nil, true, err
	}
	name := "multiply_interval"
	if op == "/" {
		name = "divide_interval"
	}
	ansi := opts.ANSI
	f := nullableStrict(name, []Expr{l, n}, sqltypes.CalendarIntervalType, func(_ *Context, a []any) (any, error) {
		c, x := a[0].(sqltypes.CalendarIntervalValue), a[1].(float64)
		if op == "/" {
			if x == 0 {
				return nil, sparkerr.New(sparkerr.ArithmeticException, "INTERVAL_DIVIDED_BY_ZERO", "22012",
					"Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.")
			}
			return calendarFromDoubles(float64(c.Months)/x, float64(c.Days)/x, float64(c.Micros)/x, ansi)
		}
		return calendarFromDoubles(float64(c.Months)*x, float64(c.Days)*x, float64(c.Micros)*x, ansi)
	})
	f.str = callString(name, []Expr{l, r})
	return f, true, nil
}

// calendarFromDoubles is IntervalUtils.fromDoubles with its overflow checks.
func calendarFromDoubles(months, days, micros float64, ansi bool) (any, error) {
	m, okM := doubleToInt32(months)
	d, okD := doubleToInt32(days)
	us := math.Floor(micros + 86_400_000_000*(days-math.Trunc(days)) + 0.5) // Math.round
	ok := okM && okD && !math.IsNaN(us) && us >= math.MinInt64 && us < math.MaxInt64
	return calendarResult(sqltypes.CalendarIntervalValue{Months: m, Days: d, Micros: int64(us)}, ok, ansi)
}

func doubleToInt32(f float64) (int32, bool) {
	t := math.Trunc(f)
	return int32(t), !math.IsNaN(f) && t >= math.MinInt32 && t <= math.MaxInt32
}

// bindCalendarArith handles + and - where the right operand is a CALENDAR INTERVAL and the left
// one a timestamp, date or interval; ok=false otherwise.
func bindCalendarArith(op string, l, r Expr, lt, rt sqltypes.DataType, opts Options) (Expr, bool, error) {
	if rt.Kind != sqltypes.CalendarInterval {
		return nil, false, nil
	}
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	ansi := opts.ANSI
	var f *rowFunc
	switch lt.Kind {
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		f = strict("time_add", []Expr{l, r}, lt, func(ctx *Context, a []any) (any, error) {
			c, ok := scaleCalendar(a[1].(sqltypes.CalendarIntervalValue), sign)
			if !ok {
				return nil, calendarOverflow()
			}
			return timestampAddCalendar(a[0].(int64), c, calendarZone(lt, ctx))
		})
	case sqltypes.Date:
		f = strict("date_add_interval", []Expr{l, r}, lt, func(ctx *Context, a []any) (any, error) {
			c, ok := scaleCalendar(a[1].(sqltypes.CalendarIntervalValue), sign)
			if !ok {
				return nil, calendarOverflow()
			}
			return dateAddCalendar(a[0].(int32), c, ansi, ctx.loc())
		})
	case sqltypes.CalendarInterval:
		f = nullableStrict("interval_add", []Expr{l, r}, lt, func(_ *Context, a []any) (any, error) {
			x := a[0].(sqltypes.CalendarIntervalValue)
			y, okY := scaleCalendar(a[1].(sqltypes.CalendarIntervalValue), sign)
			v, ok := makeCalendarInterval(0, int64(x.Months)+int64(y.Months), 0, int64(x.Days)+int64(y.Days), 0, 0, x.Micros)
			var okU bool
			v.Micros, okU = addExact(v.Micros, y.Micros)
			return calendarResult(v, ok && okY && okU, ansi)
		})
	default:
		return nil, false, nil
	}
	f.text = binaryOpText(op, l, r)
	return f, true, nil
}

// scaleCalendar is the interval times sign (±1): negation overflows only at the minimum values.
func scaleCalendar(c sqltypes.CalendarIntervalValue, sign int64) (sqltypes.CalendarIntervalValue, bool) {
	if sign == 1 {
		return c, true
	}
	ok := c.Months != math.MinInt32 && c.Days != math.MinInt32 && c.Micros != math.MinInt64
	return sqltypes.CalendarIntervalValue{Months: -c.Months, Days: -c.Days, Micros: -c.Micros}, ok
}

func calendarZone(t sqltypes.DataType, ctx *Context) *time.Location {
	if t.Kind == sqltypes.TimestampNTZ {
		return time.UTC
	}
	return ctx.loc()
}

// timestampAddCalendar is DateTimeUtils.timestampAddInterval: without months and days the
// microseconds add exactly; otherwise the local date-time in loc moves by the months (the day
// clamped to the month's end), the days and the microseconds, and is read back in loc.
func timestampAddCalendar(us int64, c sqltypes.CalendarIntervalValue, loc *time.Location) (any, error) {
	if c.Months == 0 && c.Days == 0 {
		r, ok := addExact(us, c.Micros)
		if !ok {
			return nil, longOverflow()
		}
		return r, nil
	}
	t := time.UnixMicro(us).In(loc)
	y, m, d := addMonthsYMD(t.Year(), int(t.Month()), t.Day(), int(c.Months))
	wall := time.Date(y, time.Month(m), d+int(c.Days), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC).UnixMicro()
	wall, ok := addExact(wall, c.Micros)
	if !ok {
		return nil, longOverflow()
	}
	w := time.UnixMicro(wall).UTC()
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc).UnixMicro(), nil
}

// dateAddCalendar is DateAddInterval: months (day clamped) then days; an interval with
// microseconds is INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION under ANSI, and otherwise adds
// through the date's midnight in loc.
func dateAddCalendar(days int32, c sqltypes.CalendarIntervalValue, ansi bool, loc *time.Location) (any, error) {
	if c.Micros != 0 {
		if ansi {
			return nil, sparkerr.New(sparkerr.SparkIllegalArgumentException, "INVALID_INTERVAL_WITH_MICROSECONDS_ADDITION", "22006",
				"Cannot add an interval to a date because its microseconds part is not 0. To resolve this, cast the input date to a timestamp, which supports the addition of intervals with non-zero microseconds.")
		}
		d := time.Unix(int64(days)*86400, 0).UTC()
		us, err := timestampAddCalendar(time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc).UnixMicro(), c, loc)
		if err != nil {
			return nil, err
		}
		return timestampToDate(us.(int64), loc), nil
	}
	d := time.Unix(int64(days)*86400, 0).UTC()
	y, m, dd := addMonthsYMD(d.Year(), int(d.Month()), d.Day(), int(c.Months))
	r, _ := daysFromCivil(y, m, dd)
	return r + c.Days, nil
}
