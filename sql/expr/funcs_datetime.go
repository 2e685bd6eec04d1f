package expr

import (
	"math"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Date and time functions.

func init() {
	registerScalar(0, 0, bindCurrent, "current_date", "curdate", "current_timestamp", "now", "localtimestamp", "current_timezone")
	registerScalar(2, 2, bindDateAdd, "date_add", "date_sub")
	registerScalar(1, 1, bindDateField, "year", "quarter", "month", "dayofmonth", "day", "dayofweek", "dayofyear",
		"weekofyear", "weekday", "hour", "minute", "second")
	registerScalar(1, 2, bindToDate, "to_date", "try_to_date")
	registerScalar(1, 2, bindToTimestamp, "to_timestamp", "try_to_timestamp", "to_timestamp_ltz", "to_timestamp_ntz")
	registerScalar(2, 2, bindDateFormat, "date_format")
	registerScalar(0, 2, bindUnixTimestamp, "unix_timestamp", "to_unix_timestamp")
	registerScalar(1, 2, bindFromUnixtime, "from_unixtime")
	registerScalar(2, 2, bindDateTrunc, "date_trunc", "trunc")
	registerScalar(2, 2, bindAddMonths, "add_months")
	registerScalar(1, 1, bindLastDay, "last_day")
	registerScalar(2, 3, bindMonthsBetween, "months_between")
	registerScalar(2, 2, bindNextDay, "next_day")
	registerScalar(3, 3, bindMakeDate, "make_date")
	registerScalar(1, 1, bindEpochToTimestamp, "timestamp_seconds", "timestamp_millis", "timestamp_micros", "date_from_unix_date")
	registerScalar(1, 1, bindTimestampToEpoch, "unix_seconds", "unix_millis", "unix_micros", "unix_date")
	registerScalar(2, 2, bindUTCShift, "from_utc_timestamp", "to_utc_timestamp")
}

func bindCurrent(name string, args []Expr, opts Options) (Expr, error) {
	switch name {
	case "current_date", "curdate":
		return &rowFunc{name: name, t: sqltypes.DateType, str: name + "()", fn: func(ctx *Context, _ []any) (any, error) {
			return timestampToDate(ctx.CurrentMicros(), ctx.loc()), nil
		}}, nil
	case "current_timezone":
		return &rowFunc{name: name, t: strType, str: name + "()", fn: func(ctx *Context, _ []any) (any, error) {
			return ctx.loc().String(), nil
		}}, nil
	case "localtimestamp":
		return &rowFunc{name: name, t: sqltypes.TimestampNTZType, str: name + "()", fn: func(ctx *Context, _ []any) (any, error) {
			now := ctx.CurrentMicros()
			_, off := time.UnixMicro(now).In(ctx.loc()).Zone()
			return now + int64(off)*1e6, nil
		}}, nil
	}
	return &rowFunc{name: name, t: sqltypes.TimestampType, str: name + "()", fn: func(ctx *Context, _ []any) (any, error) {
		return ctx.CurrentMicros(), nil
	}}, nil
}

// currentTimeFuncs are the functions that read the current time (Spark's CurrentTimestampLike,
// CurrentDate and LocalTimestamp expressions; unix_timestamp() without arguments too).
var currentTimeFuncs = map[string]bool{"current_date": true, "curdate": true, "current_timestamp": true,
	"now": true, "localtimestamp": true, "unix_timestamp": true, "current_time": true}

// ReadsCurrentTime reports whether e calls a function that reads the current time (Spark
// refuses them under continuous processing, whose epochs have no batch timestamp).
func ReadsCurrentTime(e Expr) bool {
	if f, ok := e.(*rowFunc); ok && len(f.args) == 0 && currentTimeFuncs[f.name] {
		return true
	}
	for _, c := range e.Children() {
		if ReadsCurrentTime(c) {
			return true
		}
	}
	return false
}

// dateArg casts a date-like argument to date.
func dateArg(name string, args []Expr, i int, opts Options) (Expr, error) {
	return coerceArg(name, args, i, sqltypes.DateType, opts)
}

func bindDateAdd(name string, args []Expr, opts Options) (Expr, error) {
	d, err := dateArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	n, err := coerceArg(name, args, 1, intType, opts)
	if err != nil {
		return nil, err
	}
	sign := int64(1)
	if name == "date_sub" {
		sign = -1
	}
	f := strict(name, []Expr{d, n}, sqltypes.DateType, func(_ *Context, a []any) (any, error) {
		return int32(int64(a[0].(int32)) + sign*toInt64(a[1])), nil
	})
	f.vec = dateAddKernel(sign)
	f.text = callText(name, args)
	return f, nil
}

func bindDateDiff(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.DateType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, intType, func(_ *Context, a []any) (any, error) {
		return a[0].(int32) - a[1].(int32), nil
	})
	f.vec = dateDiffKernel
	f.text = callText(name, args)
	return f, nil
}

func bindDateField(name string, args []Expr, opts Options) (Expr, error) {
	timeField := name == "hour" || name == "minute" || name == "second"
	if timeField && args[0].Type().Kind == sqltypes.Time {
		return timeOfDayField(name, args), nil
	}
	var x Expr
	var err error
	if timeField {
		x = args[0]
		if x.Type().Kind != sqltypes.TimestampNTZ {
			x, err = coerceArg(name, args, 0, sqltypes.TimestampType, opts)
		}
	} else {
		x, err = dateArg(name, args, 0, opts)
	}
	if err != nil {
		return nil, err
	}
	ntz := x.Type().Kind == sqltypes.TimestampNTZ
	f := strict(name, []Expr{x}, intType, func(ctx *Context, a []any) (any, error) {
		var t time.Time
		if timeField {
			loc := ctx.loc()
			if ntz {
				loc = time.UTC
			}
			t = time.UnixMicro(a[0].(int64)).In(loc)
		} else {
			t = time.Unix(int64(a[0].(int32))*86400, 0).UTC()
		}
		switch name {
		case "year":
			return int32(t.Year()), nil
		case "quarter":
			return int32((t.Month()-1)/3 + 1), nil
		case "month":
			return int32(t.Month()), nil
		case "dayofmonth", "day":
			return int32(t.Day()), nil
		case "dayofweek":
			return int32(t.Weekday()) + 1, nil
		case "weekday":
			return int32((t.Weekday() + 6) % 7), nil
		case "dayofyear":
			return int32(t.YearDay()), nil
		case "weekofyear":
			_, w := t.ISOWeek()
			return int32(w), nil
		case "hour":
			return int32(t.Hour()), nil
		case "minute":
			return int32(t.Minute()), nil
		}
		return int32(t.Second()), nil
	})
	if field := dateFieldFunc(name); field != nil && !timeField {
		f.vec = dateFieldKernel(field)
	}
	if timeField {
		f.vec = timeFieldKernel(name, ntz)
	}
	f.text = callText(name, args)
	return f, nil
}

func cannotParse(s, pattern string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.DateTimeException, "CANNOT_PARSE_TIMESTAMP", "22007",
		"Text '%s' could not be parsed with pattern '%s'. Use `try_to_timestamp` to tolerate invalid input string and return NULL instead.", s, pattern).
		WithParams("message", "Text '"+s+"' could not be parsed", "func", "`try_to_timestamp`")
}

// bindParseTime binds to_date / to_timestamp / unix_timestamp with an optional pattern:
// result(t) converts the parsed instant.
func bindParseTime(name string, args []Expr, opts Options, out sqltypes.DataType, ntz bool, failOnError bool,
	fromParsed func(t time.Time) any, fromValue func(v any, t sqltypes.DataType, ctx *Context) (any, bool)) (Expr, error) {
	x := args[0]
	var pat Expr
	if len(args) == 2 {
		var err error
		if pat, err = coerceArg(name, args, 1, strType, opts); err != nil {
			return nil, err
		}
	}
	if x.Type().Kind != sqltypes.String && x.Type().Kind != sqltypes.Null && !isDatetime(x.Type()) && !(x.Type().IsIntegral() && name == "to_timestamp") {
		if !implicitlyCastable(x.Type(), strType) {
			return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("STRING" or "DATE" or "TIMESTAMP" or "TIMESTAMP_NTZ")`, x)
		}
	}
	cs := []Expr{x}
	if pat != nil {
		cs = append(cs, pat)
	}
	xt := x.Type()
	f := nullableStrict(name, cs, out, func(ctx *Context, a []any) (any, error) {
		if xt.Kind != sqltypes.String {
			if r, ok := fromValue(a[0], xt, ctx); ok {
				return r, nil
			}
			s, err := castValue(a[0], xt, strType, false, ctx.loc())
			if err != nil || s == nil {
				return nil, err
			}
			a[0] = s
		}
		s := a[0].(string)
		loc := ctx.loc()
		if ntz {
			loc = time.UTC
		}
		if len(a) == 1 {
			us, ok := parseTimestamp(s, loc, ntz)
			if !ok {
				if failOnError {
					return nil, castInvalidInput(s, strType, out)
				}
				return nil, nil
			}
			return fromParsed(time.UnixMicro(us).In(loc)), nil
		}
		t, ok := parseJava(s, a[1].(string), loc)
		if !ok {
			if failOnError {
				return nil, cannotParse(s, a[1].(string))
			}
			return nil, nil
		}
		return fromParsed(t), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindToDate(name string, args []Expr, opts Options) (Expr, error) {
	fail := opts.ANSI && name == "to_date"
	if len(args) == 1 && args[0].Type().Kind != sqltypes.String {
		c, err := NewCast(args[0], sqltypes.DateType, castModeFor(opts), opts)
		if err != nil {
			return nil, err
		}
		return &renamed{Expr: c, text: callText(name, args)}, nil
	}
	return bindParseTime(name, args, opts, sqltypes.DateType, false, fail,
		func(t time.Time) any {
			d, _ := daysFromCivil(t.Year(), int(t.Month()), t.Day())
			return d
		},
		func(v any, t sqltypes.DataType, ctx *Context) (any, bool) {
			r, err := castValue(v, t, sqltypes.DateType, false, ctx.loc())
			return r, err == nil && r != nil
		})
}

func bindToTimestamp(name string, args []Expr, opts Options) (Expr, error) {
	fail := opts.ANSI && !strings.HasPrefix(name, "try_")
	out := sqltypes.TimestampType
	ntz := name == "to_timestamp_ntz"
	if ntz {
		out = sqltypes.TimestampNTZType
	}
	return bindParseTime(name, args, opts, out, ntz, fail,
		func(t time.Time) any { return t.UnixMicro() },
		func(v any, t sqltypes.DataType, ctx *Context) (any, bool) {
			r, err := castValue(v, t, out, false, ctx.loc())
			return r, err == nil && r != nil
		})
}

func bindDateFormat(name string, args []Expr, opts Options) (Expr, error) {
	x := args[0]
	var err error
	if x.Type().Kind != sqltypes.TimestampNTZ {
		if x, err = coerceArg(name, args, 0, sqltypes.TimestampType, opts); err != nil {
			return nil, err
		}
	}
	p, err := coerceArg(name, args, 1, strType, opts)
	if err != nil {
		return nil, err
	}
	ntz := x.Type().Kind == sqltypes.TimestampNTZ
	f := strict(name, []Expr{x, p}, strType, func(ctx *Context, a []any) (any, error) {
		loc := ctx.loc()
		if ntz {
			loc = time.UTC
		}
		return formatJava(time.UnixMicro(a[0].(int64)).In(loc), a[1].(string)), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindUnixTimestamp(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 0 {
		return &rowFunc{name: name, t: sqltypes.LongType, str: name + "(current_timestamp(), yyyy-MM-dd HH:mm:ss)",
			fn: func(ctx *Context, _ []any) (any, error) { return floorDiv(ctx.CurrentMicros(), 1e6), nil }}, nil
	}
	shown := args
	if len(args) == 1 {
		args = append(args, NewLiteral("yyyy-MM-dd HH:mm:ss", strType))
		shown = args
	}
	e, err := bindParseTime(name, args, opts, sqltypes.LongType, false, opts.ANSI,
		func(t time.Time) any { return t.Unix() },
		func(v any, t sqltypes.DataType, ctx *Context) (any, bool) {
			switch t.Kind {
			case sqltypes.Timestamp, sqltypes.TimestampNTZ:
				return floorDiv(v.(int64), 1e6), true
			case sqltypes.Date:
				us, _ := castValue(v, t, sqltypes.TimestampType, false, ctx.loc())
				return floorDiv(us.(int64), 1e6), true
			}
			return nil, false
		})
	if err == nil {
		e.(*rowFunc).text = callText(name, shown)
	}
	return e, err
}

func bindFromUnixtime(name string, args []Expr, opts Options) (Expr, error) {
	shown := args
	if len(args) == 1 {
		shown = append(args, NewLiteral("yyyy-MM-dd HH:mm:ss", strType))
	}
	cs, err := coerceArgs(name, shown, opts, sqltypes.LongType, strType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, strType, func(ctx *Context, a []any) (any, error) {
		return formatJava(time.Unix(toInt64(a[0]), 0).In(ctx.loc()), a[1].(string)), nil
	})
	f.text = callText(name, shown)
	return f, nil
}

func bindDateTrunc(name string, args []Expr, opts Options) (Expr, error) {
	if name == "trunc" {
		d, err := dateArg(name, args, 0, opts)
		if err != nil {
			return nil, err
		}
		u, err := coerceArg(name, args, 1, strType, opts)
		if err != nil {
			return nil, err
		}
		f := nullableStrict(name, []Expr{d, u}, sqltypes.DateType, func(_ *Context, a []any) (any, error) {
			t := time.Unix(int64(a[0].(int32))*86400, 0).UTC()
			r, ok := truncTime(t, a[1].(string), true)
			if !ok {
				return nil, nil
			}
			days, _ := daysFromCivil(r.Year(), int(r.Month()), r.Day())
			return days, nil
		})
		f.text = callText(name, args)
		return f, nil
	}
	u, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	x := args[1]
	if x.Type().Kind != sqltypes.TimestampNTZ {
		if x, err = coerceArg(name, args, 1, sqltypes.TimestampType, opts); err != nil {
			return nil, err
		}
	}
	ntz := x.Type().Kind == sqltypes.TimestampNTZ
	f := nullableStrict(name, []Expr{u, x}, x.Type(), func(ctx *Context, a []any) (any, error) {
		loc := ctx.loc()
		if ntz {
			loc = time.UTC
		}
		r, ok := truncTime(time.UnixMicro(a[1].(int64)).In(loc), a[0].(string), false)
		if !ok {
			return nil, nil
		}
		return r.UnixMicro(), nil
	})
	f.text = callText(name, args)
	return f, nil
}

// truncTime truncates to a unit (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, …).
func truncTime(t time.Time, unit string, dateOnly bool) (time.Time, bool) {
	loc := t.Location()
	y, m, d := t.Date()
	switch strings.ToUpper(unit) {
	case "YEAR", "YYYY", "YY":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc), true
	case "QUARTER":
		return time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, loc), true
	case "MONTH", "MM", "MON":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc), true
	case "WEEK":
		off := (int(t.Weekday()) + 6) % 7
		return time.Date(y, m, d-off, 0, 0, 0, 0, loc), true
	}
	if dateOnly {
		return t, false
	}
	switch strings.ToUpper(unit) {
	case "DAY", "DD":
		return time.Date(y, m, d, 0, 0, 0, 0, loc), true
	case "HOUR":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, loc), true
	case "MINUTE":
		return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, loc), true
	case "SECOND":
		return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, loc), true
	case "MILLISECOND":
		return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6*1e6, loc), true
	case "MICROSECOND":
		return t, true
	}
	return t, false
}

func bindAddMonths(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.DateType, intType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, sqltypes.DateType, func(ctx *Context, a []any) (any, error) {
		return addMonthsValue(a[0], sqltypes.DateType, int(toInt64(a[1])), ctx.loc()), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindLastDay(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.DateType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, sqltypes.DateType, func(_ *Context, a []any) (any, error) {
		t := time.Unix(int64(a[0].(int32))*86400, 0).UTC()
		d, _ := daysFromCivil(t.Year(), int(t.Month()), daysInMonth(t.Year(), int(t.Month())))
		return d, nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindMonthsBetween(name string, args []Expr, opts Options) (Expr, error) {
	types := []sqltypes.DataType{sqltypes.TimestampType, sqltypes.TimestampType, sqltypes.BooleanType}
	cs, err := coerceArgs(name, args, opts, types...)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, sqltypes.DoubleType, func(ctx *Context, a []any) (any, error) {
		t1 := time.UnixMicro(a[0].(int64)).In(ctx.loc())
		t2 := time.UnixMicro(a[1].(int64)).In(ctx.loc())
		roundOff := len(a) < 3 || a[2].(bool)
		months := float64((t1.Year()-t2.Year())*12 + int(t1.Month()) - int(t2.Month()))
		last1 := t1.Day() == daysInMonth(t1.Year(), int(t1.Month()))
		last2 := t2.Day() == daysInMonth(t2.Year(), int(t2.Month()))
		if t1.Day() == t2.Day() || (last1 && last2) {
			return months, nil
		}
		sec := func(t time.Time) float64 {
			return float64(t.Day()*86400+t.Hour()*3600+t.Minute()*60+t.Second()) + float64(t.Nanosecond())/1e9
		}
		r := months + (sec(t1)-sec(t2))/(31*86400)
		if roundOff {
			r = math.Round(r*1e8) / 1e8
		}
		return r, nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindNextDay(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.DateType, strType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, cs, sqltypes.DateType, func(_ *Context, a []any) (any, error) {
		want := -1
		dow := strings.ToUpper(a[1].(string))
		for d := 0; d < 7; d++ {
			n := strings.ToUpper(time.Weekday(d).String())
			if dow == n || dow == n[:3] || dow == n[:2] {
				want = d
			}
		}
		if want < 0 {
			if opts.ANSI {
				return nil, sparkerr.IllegalArgument("Illegal input for day of week: %s", a[1])
			}
			return nil, nil
		}
		days := a[0].(int32)
		cur := int(floorMod(int64(days)+4, 7))
		delta := (want - cur + 7) % 7
		if delta == 0 {
			delta = 7
		}
		return days + int32(delta), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindMakeDate(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, intType)
	if err != nil {
		return nil, err
	}
	ansi := opts.ANSI
	f := nullableStrict(name, cs, sqltypes.DateType, func(_ *Context, a []any) (any, error) {
		d, ok := daysFromCivil(int(toInt64(a[0])), int(toInt64(a[1])), int(toInt64(a[2])))
		if !ok {
			if ansi {
				return nil, sparkerr.Newf(sparkerr.DateTimeException, "DATETIME_FIELD_OUT_OF_BOUNDS", "22023",
					"Invalid date: year %v, month %v, day %v. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", a[0], a[1], a[2])
			}
			return nil, nil
		}
		return d, nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindEpochToTimestamp(name string, args []Expr, opts Options) (Expr, error) {
	if name == "date_from_unix_date" {
		cs, err := coerceArgs(name, args, opts, intType)
		if err != nil {
			return nil, err
		}
		f := strict(name, cs, sqltypes.DateType, func(_ *Context, a []any) (any, error) { return a[0].(int32), nil })
		f.text = callText(name, args)
		return f, nil
	}
	x := args[0]
	if !x.Type().IsNumeric() {
		var err error
		if x, err = coerceArg(name, args, 0, sqltypes.LongType, opts); err != nil {
			return nil, err
		}
	}
	mul := map[string]float64{"timestamp_seconds": 1e6, "timestamp_millis": 1e3, "timestamp_micros": 1}[name]
	xt := x.Type()
	f := strict(name, []Expr{x}, sqltypes.TimestampType, func(_ *Context, a []any) (any, error) {
		if xt.IsIntegral() {
			return toInt64(a[0]) * int64(mul), nil
		}
		fv, _ := castAsDouble(a[0], xt)
		return int64(fv * mul), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindTimestampToEpoch(name string, args []Expr, opts Options) (Expr, error) {
	if name == "unix_date" {
		cs, err := coerceArgs(name, args, opts, sqltypes.DateType)
		if err != nil {
			return nil, err
		}
		f := strict(name, cs, intType, func(_ *Context, a []any) (any, error) { return a[0].(int32), nil })
		f.text = callText(name, args)
		return f, nil
	}
	cs, err := coerceArgs(name, args, opts, sqltypes.TimestampType)
	if err != nil {
		return nil, err
	}
	div := map[string]int64{"unix_seconds": 1e6, "unix_millis": 1e3, "unix_micros": 1}[name]
	f := strict(name, cs, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
		return floorDiv(a[0].(int64), div), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindUTCShift(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.TimestampType, strType)
	if err != nil {
		return nil, err
	}
	from := name == "from_utc_timestamp"
	f := nullableStrict(name, cs, sqltypes.TimestampType, func(ctx *Context, a []any) (any, error) {
		z, ok := parseZone(a[1].(string))
		if !ok {
			return nil, nil
		}
		us := a[0].(int64)
		if from {
			// Interpret us as UTC wall time, render in z, and read that wall time in the session zone.
			w := time.UnixMicro(us).In(z)
			return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), ctx.loc()).UnixMicro(), nil
		}
		w := time.UnixMicro(us).In(ctx.loc())
		inZ := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), z)
		u := inZ.UTC()
		return time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), u.Minute(), u.Second(), u.Nanosecond(), ctx.loc()).UnixMicro(), nil
	})
	f.text = callText(name, args)
	return f, nil
}
