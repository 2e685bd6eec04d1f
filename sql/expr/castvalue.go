package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// castValue converts one non-null value. With ansi, malformed input and overflow are errors;
// otherwise they give nil (NULL).
func castValue(v any, from, to sqltypes.DataType, ansi bool, loc *time.Location) (any, error) {
	r, ok, err := castValueOK(v, from, to, ansi, loc)
	if err != nil {
		return nil, err
	}
	if !ok {
		if ansi {
			if from.Kind == sqltypes.String {
				return nil, castInvalidInput(v, from, to)
			}
			return nil, castOverflow(v, from, to)
		}
		return nil, nil
	}
	return r, nil
}

// castValueOK returns ok=false for malformed input / overflow (the caller decides).
func castValueOK(v any, from, to sqltypes.DataType, ansi bool, loc *time.Location) (any, bool, error) {
	if v == nil {
		return nil, true, nil
	}
	if from.Equal(to) || isSpatial(from) {
		// A spatial value keeps its SRID under a cast to the ANY type of its kind (canCast).
		return v, true, nil
	}
	if from.Kind == sqltypes.Variant {
		root, err := openVariant(v)
		if err != nil {
			return nil, false, err
		}
		r, err := fromVariant(root, to, ansi, loc)
		return r, true, err
	}
	if to.Kind == sqltypes.Variant {
		r, err := toVariant(v, from)
		return r, true, err
	}
	switch to.Kind {
	case sqltypes.String:
		return valueString(v, from, loc), true, nil
	case sqltypes.CalendarInterval:
		if c, ok := parseCalendarInterval(v.(string)); ok {
			return c, true, nil
		}
		return nil, true, nil
	case sqltypes.Binary:
		switch from.Kind {
		case sqltypes.String:
			return []byte(v.(string)), true, nil
		case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
			n := toInt64(v)
			size := map[sqltypes.Kind]int{sqltypes.Byte: 1, sqltypes.Short: 2, sqltypes.Integer: 4, sqltypes.Long: 8}[from.Kind]
			b := make([]byte, size)
			for i := size - 1; i >= 0; i-- {
				b[i] = byte(n)
				n >>= 8
			}
			return b, true, nil
		}
	case sqltypes.Boolean:
		return castToBoolean(v, from)
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		return castToIntegral(v, from, to, ansi)
	case sqltypes.Float, sqltypes.Double:
		f, ok := castAsDouble(v, from)
		if !ok {
			return nil, false, nil
		}
		if to.Kind == sqltypes.Float {
			return float32(f), true, nil
		}
		return f, true, nil
	case sqltypes.Decimal:
		b, ok := castToDecimal(v, from, to)
		if !ok {
			if ansi && from.Kind != sqltypes.String && b != nil {
				shown := valueString(v, from, loc)
				if from.Kind == sqltypes.Time {
					// Spark shows the seconds as the decimal it converts: nanoseconds at scale 9.
					shown = formatDecimal(decimal128.FromI64(v.(int64)), 9)
				}
				return nil, false, decimalOverflow(shown, to.Precision, to.Scale)
			}
			return nil, false, nil
		}
		return bigToNum(b), true, nil
	case sqltypes.Time:
		switch from.Kind {
		case sqltypes.String:
			t, ok := sqltypes.ParseTime(v.(string))
			return t, ok, nil
		case sqltypes.Time:
			return sqltypes.TruncateTime(v.(int64), to.Precision), true, nil
		}
	case sqltypes.Date:
		switch from.Kind {
		case sqltypes.String:
			d, ok := parseDate(v.(string))
			return d, ok, nil
		case sqltypes.Timestamp:
			return timestampToDate(v.(int64), loc), true, nil
		case sqltypes.TimestampNTZ:
			return int32(floorDiv(v.(int64), 86400e6)), true, nil
		}
	case sqltypes.Timestamp:
		switch from.Kind {
		case sqltypes.String:
			t, ok := parseTimestamp(v.(string), loc, false)
			return t, ok, nil
		case sqltypes.Date:
			d := time.Unix(int64(v.(int32))*86400, 0).UTC()
			return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc).UnixMicro(), true, nil
		case sqltypes.TimestampNTZ:
			return ntzToTimestamp(v.(int64), loc), true, nil
		case sqltypes.Boolean:
			if v.(bool) {
				return int64(1), true, nil
			}
			return int64(0), true, nil
		case sqltypes.Float, sqltypes.Double:
			f := toFloat64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, false, nil
			}
			return int64(f * 1e6), true, nil
		case sqltypes.Decimal:
			b := rescale(v.(decimal128.Num).BigInt(), from.Scale, 6)
			return b.Int64(), true, nil
		case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
			n := toInt64(v)
			if n > math.MaxInt64/1000000 || n < math.MinInt64/1000000 {
				return nil, false, nil
			}
			return n * 1e6, true, nil
		}
	case sqltypes.TimestampNTZ:
		switch from.Kind {
		case sqltypes.String:
			t, ok := parseTimestamp(v.(string), loc, true)
			return t, ok, nil
		case sqltypes.Date:
			return int64(v.(int32)) * 86400e6, true, nil
		case sqltypes.Timestamp:
			t := time.UnixMicro(v.(int64)).In(loc)
			_, off := t.Zone()
			return v.(int64) + int64(off)*1e6, true, nil
		}
	case sqltypes.Array:
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			r, err := castValue(e, *from.Elem, *to.Elem, ansi, loc)
			if err != nil {
				return nil, false, err
			}
			out[i] = r
		}
		return out, true, nil
	case sqltypes.Struct:
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			r, err := castValue(e, from.Fields[i].Type, to.Fields[i].Type, ansi, loc)
			if err != nil {
				return nil, false, err
			}
			out[i] = r
		}
		return out, true, nil
	case sqltypes.Map:
		in := v.(*sqltypes.MapValue)
		out := &sqltypes.MapValue{Keys: make([]any, len(in.Keys)), Values: make([]any, len(in.Values))}
		for i := range in.Keys {
			k, err := castValue(in.Keys[i], *from.Key, *to.Key, ansi, loc)
			if err != nil {
				return nil, false, err
			}
			val, err := castValue(in.Values[i], *from.Value, *to.Value, ansi, loc)
			if err != nil {
				return nil, false, err
			}
			out.Keys[i], out.Values[i] = k, val
		}
		return out, true, nil
	case sqltypes.DayTimeInterval:
		if from.IsIntegral() {
			return toInt64(v) * 86400e6, true, nil
		}
	case sqltypes.YearMonthInterval:
		if from.IsIntegral() {
			return int32(toInt64(v) * 12), true, nil
		}
	}
	return nil, false, nil
}

func timestampToDate(us int64, loc *time.Location) int32 {
	t := time.UnixMicro(us).In(loc)
	d, _ := daysFromCivil(t.Year(), int(t.Month()), t.Day())
	return d
}

func ntzToTimestamp(us int64, loc *time.Location) int64 {
	t := time.UnixMicro(us).UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc).UnixMicro()
}

func castToBoolean(v any, from sqltypes.DataType) (any, bool, error) {
	switch from.Kind {
	case sqltypes.String:
		switch strings.ToLower(strings.TrimSpace(v.(string))) {
		case "t", "true", "y", "yes", "1":
			return true, true, nil
		case "f", "false", "n", "no", "0":
			return false, true, nil
		}
		return nil, false, nil
	case sqltypes.Float, sqltypes.Double:
		return toFloat64(v) != 0, true, nil
	case sqltypes.Decimal:
		return v.(decimal128.Num).Sign() != 0, true, nil
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return v.(int64) != 0, true, nil
	}
	return toInt64(v) != 0, true, nil
}

func integralBounds(k sqltypes.Kind) (int64, int64) {
	switch k {
	case sqltypes.Byte:
		return math.MinInt8, math.MaxInt8
	case sqltypes.Short:
		return math.MinInt16, math.MaxInt16
	case sqltypes.Integer:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// narrow converts n to the Go type of kind k (wrapping like Java's narrowing).
func narrow(n int64, k sqltypes.Kind) any {
	switch k {
	case sqltypes.Byte:
		return int8(n)
	case sqltypes.Short:
		return int16(n)
	case sqltypes.Integer:
		return int32(n)
	}
	return n
}

func castToIntegral(v any, from, to sqltypes.DataType, ansi bool) (any, bool, error) {
	lo, hi := integralBounds(to.Kind)
	switch from.Kind {
	case sqltypes.Boolean:
		return narrow(toInt64(v), to.Kind), true, nil
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Time:
		n := toInt64(v)
		if from.Kind == sqltypes.Time {
			// Seconds since midnight; out of range is NULL even in legacy mode.
			n /= sqltypes.NanosPerSecond
		}
		if (n < lo || n > hi) && (ansi || from.Kind == sqltypes.Time) {
			return nil, false, nil
		}
		return narrow(n, to.Kind), true, nil
	case sqltypes.Float, sqltypes.Double:
		f := toFloat64(v)
		t := math.Trunc(f)
		if math.IsNaN(f) || t < float64(lo) || t > float64(hi) || (to.Kind == sqltypes.Long && t >= 9.223372036854775807e18) {
			if ansi {
				return nil, false, nil
			}
			// Java: (int) / (long) saturate; narrower types go through int.
			var n int64
			switch {
			case math.IsNaN(f):
				n = 0
			case to.Kind == sqltypes.Long:
				n = saturate(t, math.MinInt64, math.MaxInt64)
			default:
				n = saturate(t, math.MinInt32, math.MaxInt32)
			}
			return narrow(n, to.Kind), true, nil
		}
		return narrow(int64(t), to.Kind), true, nil
	case sqltypes.Decimal:
		b := new(big.Int).Quo(v.(decimal128.Num).BigInt(), pow10(from.Scale))
		if !b.IsInt64() || b.Int64() < lo || b.Int64() > hi {
			if ansi {
				return nil, false, nil
			}
			return narrow(int64(b.Uint64()), to.Kind), true, nil
		}
		return narrow(b.Int64(), to.Kind), true, nil
	case sqltypes.String:
		n, ok := parseIntegral(v.(string), ansi)
		if !ok || n < lo || n > hi {
			return nil, false, nil
		}
		return narrow(n, to.Kind), true, nil
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		n := floorDiv(v.(int64), 1e6)
		if (n < lo || n > hi) && ansi {
			return nil, false, nil
		}
		return narrow(n, to.Kind), true, nil
	case sqltypes.DayTimeInterval:
		return narrow(v.(int64)/86400e6, to.Kind), true, nil
	case sqltypes.YearMonthInterval:
		return narrow(int64(v.(int32))/12, to.Kind), true, nil
	}
	return nil, false, nil
}

func saturate(f float64, lo, hi int64) int64 {
	if f <= float64(lo) {
		return lo
	}
	if f >= float64(hi) {
		return hi
	}
	return int64(f)
}

// parseIntegral parses a trimmed integer; legacy mode also accepts and truncates a fraction.
func parseIntegral(s string, ansi bool) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if hasDot {
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		if ansi && frac != "" {
			return 0, false
		}
		if intPart == "" || intPart == "+" || intPart == "-" {
			if frac == "" {
				return 0, false
			}
			return 0, true
		}
	}
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func castAsDouble(v any, from sqltypes.DataType) (float64, bool) {
	switch from.Kind {
	case sqltypes.Boolean:
		if v.(bool) {
			return 1, true
		}
		return 0, true
	case sqltypes.Decimal:
		return decimalToFloat(v.(decimal128.Num), from.Scale), true
	case sqltypes.String:
		return parseDouble(v.(string))
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return float64(v.(int64)) / 1e6, true
	case sqltypes.Float, sqltypes.Double, sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		return toFloat64(v), true
	}
	return 0, false
}

// parseDouble parses like Spark's string→double: trimmed, Java syntax incl. NaN/Infinity and a
// trailing d/f suffix.
func parseDouble(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(strings.TrimLeft(s, "+")) {
	case "nan":
		return math.NaN(), true
	case "infinity", "inf":
		return math.Inf(1), true
	case "-infinity", "-inf":
		return math.Inf(-1), true
	}
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// castToDecimal returns the unscaled value at to's scale; ok=false with a non-nil value means
// overflow, with nil malformed input.
func castToDecimal(v any, from, to sqltypes.DataType) (*big.Int, bool) {
	var b *big.Int
	switch from.Kind {
	case sqltypes.Boolean:
		b = big.NewInt(toInt64(v))
		b = rescale(b, 0, to.Scale)
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		b = rescale(big.NewInt(toInt64(v)), 0, to.Scale)
	case sqltypes.Float, sqltypes.Double:
		var ok bool
		b, ok = decimalFromFloat(toFloat64(v), to.Scale)
		if !ok {
			return nil, false
		}
	case sqltypes.Decimal:
		b = rescale(v.(decimal128.Num).BigInt(), from.Scale, to.Scale)
	case sqltypes.String:
		u, sc, ok := parseDecimalString(v.(string))
		if !ok {
			return nil, false
		}
		b = rescale(u, sc, to.Scale)
		if !fitsPrecision(b, to.Precision) {
			return nil, false
		}
	case sqltypes.Timestamp:
		b = rescale(big.NewInt(v.(int64)), 6, to.Scale)
	case sqltypes.Time:
		b = rescale(big.NewInt(v.(int64)), 9, to.Scale)
	default:
		return nil, false
	}
	if !fitsPrecision(b, to.Precision) {
		return b, false
	}
	return b, true
}
