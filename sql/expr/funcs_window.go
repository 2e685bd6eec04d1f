package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Event-time windows: window(ts, duration[, slide[, start]]) (tumbling when slide equals the
// duration, sliding otherwise), session_window(ts, gap) and window_time(w). A tumbling window is
// an ordinary scalar; a sliding window assigns a row to several windows and a session window
// merges rows per key, so both are expanded or merged by operators the planner places around a
// grouping (see TimeWindow and SessionWindow); evaluated as scalars they yield the row's own
// (latest, or initial) window.

func init() {
	registerScalar(2, 4, bindWindow, "window")
	registerScalar(2, 2, bindSessionWindow, "session_window")
	registerScalar(1, 1, bindWindowTime, "window_time")
}

// ParseInterval parses an interval string such as "10 minutes", "1 hour 30 seconds",
// "interval 2 days" or "500 milliseconds" into microseconds (Spark's delay and window duration
// strings, conf.ParseInterval; months and years are not fixed lengths and are refused).
func ParseInterval(s string) (int64, bool) {
	iv, err := conf.ParseInterval(s)
	if err != nil || iv.Months != 0 {
		return 0, false
	}
	return iv.Micros, true
}

func durationArg(name string, args []Expr, i int) (int64, error) {
	v, ok := literalValue(args[i])
	if ok && v != nil {
		switch x := v.(type) {
		case string:
			if us, ok := ParseInterval(x); ok {
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

// windowStruct is the type of a window column: struct<start, end> of the time column's type.
func windowStruct(tt sqltypes.DataType) sqltypes.DataType {
	return sqltypes.StructType(
		sqltypes.Field{Name: "start", Type: tt, Nullable: true},
		sqltypes.Field{Name: "end", Type: tt, Nullable: true})
}

// timeArg is argument 0 as a timestamp (strings and dates are cast as Spark does).
func timeArg(name string, args []Expr, opts Options) (Expr, sqltypes.DataType, error) {
	ts := args[0]
	tt := ts.Type()
	if tt.Kind != sqltypes.Timestamp && tt.Kind != sqltypes.TimestampNTZ {
		c, err := coerceArg(name, args, 0, sqltypes.TimestampType, opts)
		if err != nil {
			return nil, tt, err
		}
		ts, tt = c, sqltypes.TimestampType
	}
	return ts, tt, nil
}

// TimeWindow is window(ts, size, slide, start): the windows [s, s+Size) with s ≡ Start (mod
// Slide) that contain ts. Tumbling windows (Slide == Size) hold one window per row and evaluate
// as a scalar; sliding windows are expanded by the planner (operators.ExpandWindows) and, as a
// scalar, yield the latest window containing the row.
type TimeWindow struct {
	TS                 Expr
	Size, Slide, Start int64
	T                  sqltypes.DataType
}

// Type implements Expr.
func (w *TimeWindow) Type() sqltypes.DataType { return w.T }

// Nullable implements Expr.
func (w *TimeWindow) Nullable() bool { return w.TS.Nullable() }

// String implements Expr: Spark names the column "window".
func (w *TimeWindow) String() string { return "window" }

// Children implements Expr.
func (w *TimeWindow) Children() []Expr { return []Expr{w.TS} }

// Tumbling reports whether each row belongs to exactly one window.
func (w *TimeWindow) Tumbling() bool { return w.Slide == w.Size }

// Starts returns the starts of the windows containing t, latest first (Spark's order).
func (w *TimeWindow) Starts(t int64) []int64 {
	last := t - floorMod(t-w.Start, w.Slide)
	var out []int64
	for s := last; s > t-w.Size; s -= w.Slide {
		out = append(out, s)
	}
	return out
}

// Eval implements Expr: each row's window, NULL for a NULL time. A sliding window is one row per
// window and only exists as an expanded grouping key.
func (w *TimeWindow) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	if !w.Tumbling() {
		return nil, sparkerr.Unsupported("a sliding window() inside another expression (select or group by it directly)")
	}
	f := strict("window", []Expr{w.TS}, w.T, func(_ *Context, a []any) (any, error) {
		t := a[0].(int64)
		s := t - floorMod(t-w.Start, w.Slide)
		return []any{s, s + w.Size}, nil
	})
	return f.Eval(ctx, batch)
}

func bindWindow(name string, args []Expr, opts Options) (Expr, error) {
	ts, tt, err := timeArg(name, args, opts)
	if err != nil {
		return nil, err
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
	if size <= 0 {
		return nil, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(callString(name, args)), "the window duration must be greater than 0")
	}
	if slide <= 0 {
		return nil, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(callString(name, args)), "the slide duration must be greater than 0")
	}
	if slide > size {
		return nil, typeMismatch("PARAMETER_CONSTRAINT_VIOLATION", quoteSQL(callString(name, args)),
			"The slide duration must be less than or equal to the windowDuration")
	}
	if start < 0 || start >= slide {
		// Spark requires |start| < slide; a negative start is the same alignment as start+slide.
		if start <= -slide || start >= slide {
			return nil, typeMismatch("PARAMETER_CONSTRAINT_VIOLATION", quoteSQL(callString(name, args)),
				"The absolute value of start time must be less than the slideDuration")
		}
	}
	return &TimeWindow{TS: ts, Size: size, Slide: slide, Start: start, T: windowStruct(tt)}, nil
}

// SessionWindow is session_window(ts, gap): each row opens the session [ts, ts+gap), and
// sessions of one key that overlap merge into one (operators.MergeSessions, placed by the
// planner around the grouping). As a scalar it yields the row's own session.
type SessionWindow struct {
	TS  Expr
	Gap int64
	T   sqltypes.DataType
}

// Type implements Expr.
func (w *SessionWindow) Type() sqltypes.DataType { return w.T }

// Nullable implements Expr.
func (w *SessionWindow) Nullable() bool { return w.TS.Nullable() }

// String implements Expr: Spark names the column "session_window".
func (w *SessionWindow) String() string { return "session_window" }

// Children implements Expr.
func (w *SessionWindow) Children() []Expr { return []Expr{w.TS} }

// Eval implements Expr.
func (w *SessionWindow) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	f := strict("session_window", []Expr{w.TS}, w.T, func(_ *Context, a []any) (any, error) {
		t := a[0].(int64)
		return []any{t, t + w.Gap}, nil
	})
	return f.Eval(ctx, batch)
}

func bindSessionWindow(name string, args []Expr, opts Options) (Expr, error) {
	ts, tt, err := timeArg(name, args, opts)
	if err != nil {
		return nil, err
	}
	if _, ok := literalValue(args[1]); !ok {
		return nil, sparkerr.Unsupported("session_window with a gap duration computed per row")
	}
	gap, err := durationArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	if gap <= 0 {
		return nil, typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(callString(name, args)), "the gap duration must be greater than 0")
	}
	return &SessionWindow{TS: ts, Gap: gap, T: windowStruct(tt)}, nil
}

func bindWindowTime(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Struct || len(t.Fields) != 2 || t.Fields[1].Name != "end" {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"STRUCT<start: TIMESTAMP, end: TIMESTAMP>"`, args[0])
	}
	return &WindowTime{Window: args[0], T: t.Fields[1].Type}, nil
}

// WindowTime is window_time(w): the window's end minus one microsecond, the event time of
// rows aggregated per window (it stays a watermarked event time for a following aggregation).
type WindowTime struct {
	Window Expr
	T      sqltypes.DataType
}

// Type implements Expr.
func (w *WindowTime) Type() sqltypes.DataType { return w.T }

// Nullable implements Expr.
func (w *WindowTime) Nullable() bool { return true }

// String implements Expr.
func (w *WindowTime) String() string { return callString("window_time", []Expr{w.Window}) }

// Children implements Expr.
func (w *WindowTime) Children() []Expr { return []Expr{w.Window} }

// Eval implements Expr.
func (w *WindowTime) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	f := strict("window_time", []Expr{w.Window}, w.T, func(_ *Context, a []any) (any, error) {
		end := a[0].([]any)[1]
		if end == nil {
			return nil, nil
		}
		return end.(int64) - 1, nil
	})
	return f.Eval(ctx, batch)
}
