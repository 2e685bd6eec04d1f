package expr

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sqltypes"
)

// Event-time windows: window(ts, duration[, slide[, start]]) for tumbling windows, and
// window_time. Sliding windows (slide < duration) assign a row to several windows, which needs
// a generator; they are rejected here.

func init() {
	registerScalar(2, 4, bindWindow, "window")
	registerScalar(1, 1, bindWindowTime, "window_time")
}

// parseIntervalString parses "10 minutes", "1 hour 30 seconds", "interval 2 days", "500 ms"
// into microseconds.
func parseIntervalString(s string) (int64, bool) {
	f := strings.Fields(strings.ToLower(strings.TrimSpace(s)))
	if len(f) > 0 && f[0] == "interval" {
		f = f[1:]
	}
	if len(f) == 0 || len(f)%2 != 0 {
		return 0, false
	}
	var total int64
	for i := 0; i < len(f); i += 2 {
		n, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return 0, false
		}
		var unit float64
		switch strings.TrimSuffix(f[i+1], "s") {
		case "week":
			unit = 7 * 86400e6
		case "day":
			unit = 86400e6
		case "hour":
			unit = 3600e6
		case "minute", "min":
			unit = 60e6
		case "second", "sec":
			unit = 1e6
		case "millisecond", "m", "milli":
			unit = 1e3
		case "microsecond", "u", "micro":
			unit = 1
		default:
			return 0, false
		}
		total += int64(n * unit)
	}
	return total, true
}

func durationArg(name string, args []Expr, i int) (int64, error) {
	v, ok := literalValue(args[i])
	if ok && v != nil {
		switch x := v.(type) {
		case string:
			if us, ok := parseIntervalString(x); ok {
				return us, nil
			}
		case int64:
			if args[i].Type().Kind == sqltypes.DayTimeInterval {
				return x, nil
			}
		}
	}
	return 0, sparkerr.IllegalArgument("The provided interval (%s) did not correspond to a valid interval string.", args[i].String())
}

func bindWindow(name string, args []Expr, opts Options) (Expr, error) {
	ts := args[0]
	tt := ts.Type()
	if tt.Kind != sqltypes.Timestamp && tt.Kind != sqltypes.TimestampNTZ {
		c, err := coerceArg(name, args, 0, sqltypes.TimestampType, opts)
		if err != nil {
			return nil, err
		}
		ts, tt = c, sqltypes.TimestampType
	}
	size, err := durationArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	slide, start := size, int64(0)
	if len(args) >= 3 {
		if slide, err = durationArg(name, args, 2); err != nil {
			return nil, err
		}
	}
	if len(args) == 4 {
		if start, err = durationArg(name, args, 3); err != nil {
			return nil, err
		}
	}
	if size <= 0 || slide <= 0 {
		return nil, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(callString(name, args)), "the window duration must be greater than 0")
	}
	if slide != size {
		return nil, sparkerr.Unsupported("sliding windows (slide duration %s differs from window duration %s)", args[2].String(), args[1].String())
	}
	st := sqltypes.StructType(
		sqltypes.Field{Name: "start", Type: tt, Nullable: true},
		sqltypes.Field{Name: "end", Type: tt, Nullable: true})
	f := strict(name, []Expr{ts}, st, func(_ *Context, a []any) (any, error) {
		t := a[0].(int64)
		s := t - floorMod(t-start, slide)
		return []any{s, s + size}, nil
	})
	f.str = "window"
	return f, nil
}

func bindWindowTime(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Struct || len(t.Fields) != 2 || t.Fields[1].Name != "end" {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"STRUCT<start: TIMESTAMP, end: TIMESTAMP>"`, args[0])
	}
	f := strict(name, args, t.Fields[1].Type, func(_ *Context, a []any) (any, error) {
		end := a[0].([]any)[1]
		if end == nil {
			return nil, nil
		}
		return end.(int64) - 1, nil
	})
	f.str = callString(name, args)
	return f, nil
}
