package expr

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Building and converting timestamps from parts: make_timestamp (and _ltz, _ntz, the try_
// forms) from year, month, day, hour, minute and seconds (a DECIMAL(16,6): microseconds
// exact; 60 with no fraction is the next minute) in the session or a given time zone, and
// convert_timezone of a TIMESTAMP_NTZ's wall time from one zone to another.

func init() {
	registerScalar(6, 7, bindMakeTimestamp, "make_timestamp", "make_timestamp_ltz", "try_make_timestamp",
		"try_make_timestamp_ltz")
	registerScalar(6, 6, bindMakeTimestamp, "make_timestamp_ntz", "try_make_timestamp_ntz")
	registerScalar(2, 3, bindConvertTimezone, "convert_timezone")
}

var secondsType = sqltypes.DecimalType(16, 6)

func bindMakeTimestamp(name string, args []Expr, opts Options) (Expr, error) {
	types := []sqltypes.DataType{intType, intType, intType, intType, intType, secondsType, strType}
	cs := make([]Expr, len(args))
	for i := range args {
		c, err := coerceArg(name, args, i, types[i], opts)
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	ntz := strings.HasSuffix(name, "_ntz")
	try := strings.HasPrefix(name, "try_")
	fail := opts.ANSI && !try
	t := sqltypes.TimestampType
	if ntz {
		t = sqltypes.TimestampNTZType
	}
	f := nullableStrict(name, cs, t, func(ctx *Context, a []any) (any, error) {
		loc := ctx.loc()
		if ntz {
			loc = time.UTC
		}
		if len(a) == 7 {
			z, ok := parseZone(a[6].(string))
			if !ok {
				return nil, nil
			}
			loc = z
		}
		us, err := makeTimestampMicros(toInt64(a[0]), toInt64(a[1]), toInt64(a[2]), toInt64(a[3]), toInt64(a[4]),
			a[5].(decimal128.Num).BigInt().Int64(), loc)
		if err != nil {
			if fail {
				return nil, err
			}
			return nil, nil
		}
		return us, nil
	})
	f.str = callString(name, args)
	return f, nil
}

// makeTimestampMicros checks the fields as java.time does (the messages are its) and returns
// the instant of the wall time in loc.
func makeTimestampMicros(y, mo, d, h, mi, secMicros int64, loc *time.Location) (int64, error) {
	field := func(name string, v, lo, hi int64) error {
		if v < lo || v > hi {
			return sparkerr.Newf(sparkerr.DateTimeException, "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "22023",
				"Invalid value for %s (valid values %d - %d): %d. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
				name, lo, hi, v).WithParams("rangeMessage", fmt.Sprintf("Invalid value for %s (valid values %d - %d): %d", name, lo, hi, v))
		}
		return nil
	}
	sec, frac := secMicros/1_000_000, secMicros%1_000_000
	if secMicros < 0 || sec > 60 || (sec == 60 && frac != 0) {
		if sec < 60 || secMicros < 0 {
			return 0, field("SecondOfMinute", sec, 0, 59)
		}
		if sec == 60 {
			v := fmt.Sprintf("%d.%06d", sec, frac)
			v = strings.TrimRight(v, "0")
			return 0, sparkerr.Newf(sparkerr.DateTimeException, "INVALID_FRACTION_OF_SECOND", "22023",
				"Valid range for seconds is [0, 60] (inclusive), but the provided value is %s. To avoid this error, use `try_make_timestamp`, which returns NULL on error.\nIf you do not want to use the session default timestamp version of this function, use `try_make_timestamp_ntz` or `try_make_timestamp_ltz`.", v).
				WithParams("secAndMicros", v)
		}
		return 0, field("SecondOfMinute", sec, 0, 59)
	}
	for _, c := range []struct {
		name   string
		v      int64
		lo, hi int64
	}{{"Year", y, -999999999, 999999999}, {"MonthOfYear", mo, 1, 12}, {"DayOfMonth", d, 1, 31},
		{"HourOfDay", h, 0, 23}, {"MinuteOfHour", mi, 0, 59}} {
		if err := field(c.name, c.v, c.lo, c.hi); err != nil {
			return 0, err
		}
	}
	if _, ok := daysFromCivil(int(y), int(mo), int(d)); !ok {
		msg := fmt.Sprintf("Invalid date '%s %d'", strings.ToUpper(time.Month(mo).String()), d)
		return 0, sparkerr.Newf(sparkerr.DateTimeException, "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "22023",
			"%s. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", msg).WithParams("rangeMessage", msg)
	}
	wall := time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(sec), int(frac)*1000, loc)
	return wall.UnixMicro(), nil
}

func bindConvertTimezone(name string, args []Expr, opts Options) (Expr, error) {
	shown := args
	if len(args) == 2 {
		cur, err := bindCurrent("current_timezone", nil, opts)
		if err != nil {
			return nil, err
		}
		args = append([]Expr{cur}, args...)
		shown = args
	}
	src, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	dst, err := coerceArg(name, args, 1, strType, opts)
	if err != nil {
		return nil, err
	}
	ts, err := coerceArg(name, args, 2, sqltypes.TimestampNTZType, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, []Expr{src, dst, ts}, sqltypes.TimestampNTZType, func(_ *Context, a []any) (any, error) {
		from, ok1 := parseZone(a[0].(string))
		to, ok2 := parseZone(a[1].(string))
		if !ok1 || !ok2 {
			return nil, sparkerr.Newf(sparkerr.DateTimeException, "INVALID_TIMEZONE", "22009",
				"The timezone: %s is invalid. The timezone must be either a region-based zone ID or a zone offset.", a[0])
		}
		w := time.UnixMicro(a[2].(int64)).UTC()
		inst := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), from).In(to)
		return time.Date(inst.Year(), inst.Month(), inst.Day(), inst.Hour(), inst.Minute(), inst.Second(), inst.Nanosecond(), time.UTC).UnixMicro(), nil
	})
	f.str = callString(name, shown)
	return f, nil
}
