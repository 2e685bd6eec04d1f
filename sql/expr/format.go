package expr

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Value → text renderings with Spark's (Java's) conventions.

// formatDouble renders like Java's Double.toString: "1.0", "0.001", "1.0E7", "1.234E-5", "NaN",
// "Infinity".
func formatDouble(f float64) string { return JavaDouble(f, 64) }

// formatFloat renders like Java's Float.toString.
func formatFloat(f float32) string { return JavaDouble(float64(f), 32) }

// JavaDouble formats f as Java's Double.toString (Float.toString for bits 32), as Spark casts
// and writes floating-point values: shortest digits, plain notation in [1e-3, 1e7), else
// d.dddE±n; NaN, Infinity, -Infinity, 0.0 and -0.0 spelled as Java does.
func JavaDouble(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // d.ddde±XX
	if bits == 64 && !strings.Contains(s, ".") {
		// Java (JDK 19+, Giulietti's algorithm) prints the closest 2-digit decimal when the
		// shortest has one digit and is not the closest: 4.9E-324, not 5.0E-324.
		if s2 := strconv.FormatFloat(f, 'e', 1, 64); parsesTo(s2, f) {
			s = s2
		}
	}
	mant, exp, _ := strings.Cut(s, "e")
	if m, ok := strings.CutSuffix(mant, "0"); ok && strings.Contains(m, ".") && !strings.HasSuffix(m, ".") {
		mant = m
	}
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

func parsesTo(s string, f float64) bool {
	g, err := strconv.ParseFloat(s, 64)
	return err == nil && g == f
}

// formatDecimal renders an unscaled decimal with scale as plain text ("1.50", "-0.01").
func formatDecimal(n decimal128.Num, scale int32) string {
	return formatBigDecimal(n.BigInt(), scale)
}

// formatBigDecimal renders unscaled value b (modified) at scale like formatDecimal, for values
// past 128 bits too.
func formatBigDecimal(b *big.Int, scale int32) string {
	neg := b.Sign() < 0
	if neg {
		b.Neg(b)
	}
	s := b.String()
	if scale > 0 {
		if int32(len(s)) <= scale {
			s = strings.Repeat("0", int(scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	} else if scale < 0 {
		s += strings.Repeat("0", int(-scale))
	}
	if neg {
		s = "-" + s
	}
	return s
}

// decimalToBig returns the decimal's exact value as a big.Rat-free pair (unscaled, scale).
func decimalBig(n decimal128.Num) *big.Int { return n.BigInt() }

// formatDate renders days since epoch as yyyy-MM-dd.
func formatDate(days int32) string {
	t := time.Unix(int64(days)*86400, 0).UTC()
	return formatYear(t.Year()) + t.Format("-01-02")
}

func formatYear(y int) string {
	if y >= 0 && y <= 9999 {
		s := strconv.Itoa(y)
		return strings.Repeat("0", 4-len(s)) + s
	}
	if y > 9999 {
		return "+" + strconv.Itoa(y)
	}
	s := strconv.Itoa(-y)
	if len(s) < 4 {
		s = strings.Repeat("0", 4-len(s)) + s
	}
	return "-" + s
}

// formatTimestamp renders micros since epoch in loc as "yyyy-MM-dd HH:mm:ss[.ffffff]" with
// trailing fractional zeros trimmed.
func formatTimestamp(micros int64, loc *time.Location) string {
	t := time.UnixMicro(micros).In(loc)
	s := formatYear(t.Year()) + t.Format("-01-02 15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		f := strconv.Itoa(us + 1000000)[1:]
		s += "." + strings.TrimRight(f, "0")
	}
	return s
}

// valueString renders a value as CAST(v AS STRING) does; nested nulls render as "null".
func valueString(v any, t sqltypes.DataType, loc *time.Location) string {
	if v == nil {
		return "null"
	}
	switch t.Kind {
	case sqltypes.Boolean:
		if v.(bool) {
			return "true"
		}
		return "false"
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		return strconv.FormatInt(toInt64(v), 10)
	case sqltypes.Float:
		return formatFloat(v.(float32))
	case sqltypes.Double:
		return formatDouble(v.(float64))
	case sqltypes.Decimal:
		return formatDecimal(v.(decimal128.Num), t.Scale)
	case sqltypes.String:
		return v.(string)
	case sqltypes.Binary:
		return string(v.([]byte))
	case sqltypes.Date:
		return formatDate(v.(int32))
	case sqltypes.Timestamp:
		return formatTimestamp(v.(int64), loc)
	case sqltypes.TimestampNTZ:
		return formatTimestamp(v.(int64), time.UTC)
	case sqltypes.Time:
		return sqltypes.FormatTime(v.(int64))
	case sqltypes.DayTimeInterval:
		return formatDayTime(v.(int64), t)
	case sqltypes.YearMonthInterval:
		return formatYearMonth(v.(int32), t)
	case sqltypes.CalendarInterval:
		return formatCalendarInterval(v.(sqltypes.CalendarIntervalValue))
	case sqltypes.Array:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range v.([]any) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(valueString(e, *t.Elem, loc))
		}
		b.WriteByte(']')
		return b.String()
	case sqltypes.Struct:
		var b strings.Builder
		b.WriteByte('{')
		for i, e := range v.([]any) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(valueString(e, t.Fields[i].Type, loc))
		}
		b.WriteByte('}')
		return b.String()
	case sqltypes.Variant:
		return variantString(v, loc)
	case sqltypes.Map:
		m := v.(*sqltypes.MapValue)
		var b strings.Builder
		b.WriteByte('{')
		for i := range m.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(valueString(m.Keys[i], *t.Key, loc))
			b.WriteString(" -> ")
			b.WriteString(valueString(m.Values[i], *t.Value, loc))
		}
		b.WriteByte('}')
		return b.String()
	}
	return ""
}

func formatDayTime(us int64, t sqltypes.DataType) string {
	neg := us < 0
	if neg {
		us = -us
	}
	days := us / 86400e6
	rem := us % 86400e6
	h, m := rem/3600e6, rem%3600e6/60e6
	sec := rem % 60e6
	secStr := strconv.FormatInt(sec/1e6, 10)
	if len(secStr) < 2 {
		secStr = "0" + secStr
	}
	if f := sec % 1e6; f != 0 {
		secStr += "." + strings.TrimRight(strconv.FormatInt(f+1e6, 10)[1:], "0")
	}
	sign := ""
	if neg {
		sign = "-"
	}
	two := func(n int64) string {
		s := strconv.FormatInt(n, 10)
		if len(s) < 2 {
			s = "0" + s
		}
		return s
	}
	if t.StartField == 0 && t.EndField == 0 {
		return "INTERVAL '" + sign + strconv.FormatInt(days, 10) + "' DAY"
	}
	body := sign + strconv.FormatInt(days, 10) + " " + two(h) + ":" + two(m) + ":" + secStr
	return "INTERVAL '" + body + "' DAY TO SECOND"
}

func formatYearMonth(months int32, t sqltypes.DataType) string {
	sign := ""
	if months < 0 {
		sign = "-"
		months = -months
	}
	return "INTERVAL '" + sign + strconv.Itoa(int(months/12)) + "-" + strconv.Itoa(int(months%12)) + "' YEAR TO MONTH"
}

// literalSQL is a literal's rendering in an auto-generated column name (Spark's toPrettySQL):
// strings unquoted, numbers plain, NULL, DATE '…', TIMESTAMP '…'.
func literalSQL(v any, t sqltypes.DataType) string {
	if v == nil {
		return "NULL"
	}
	switch t.Kind {
	case sqltypes.Date:
		return "DATE '" + formatDate(v.(int32)) + "'"
	case sqltypes.Timestamp:
		return "TIMESTAMP '" + formatTimestamp(v.(int64), time.UTC) + "'"
	case sqltypes.TimestampNTZ:
		return "TIMESTAMP_NTZ '" + formatTimestamp(v.(int64), time.UTC) + "'"
	case sqltypes.Time:
		return "TIME '" + sqltypes.FormatTime(v.(int64)) + "'"
	case sqltypes.Binary:
		return "X'" + strings.ToUpper(hex.EncodeToString(v.([]byte))) + "'"
	case sqltypes.Array:
		parts := make([]string, 0)
		for _, e := range v.([]any) {
			parts = append(parts, literalSQL(e, *t.Elem))
		}
		return "ARRAY(" + strings.Join(parts, ", ") + ")"
	case sqltypes.DayTimeInterval, sqltypes.YearMonthInterval:
		return valueString(v, t, time.UTC)
	}
	return valueString(v, t, time.UTC)
}
