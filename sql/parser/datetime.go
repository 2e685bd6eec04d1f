package parser

import (
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// typedLiteral builds DATE/TIMESTAMP/TIMESTAMP_NTZ/TIMESTAMP_LTZ/TIME 'value'.
//
// TIME becomes an int64 nanoseconds-since-midnight TIME(6) literal. DATE becomes an int32 days literal and TIMESTAMP_NTZ an int64 microseconds literal. A
// TIMESTAMP (= TIMESTAMP_LTZ) whose text carries a zone offset (Z, +08:00, UTC+1) becomes an
// int64 UTC-microseconds literal; without a zone (or with a region id such as
// America/Los_Angeles) its interpretation depends on the session time zone, so it becomes
// Cast(string literal AS timestamp) with CastANSI, which the analyzer evaluates in the session
// zone. The text is validated here either way.
func (p *parser) typedLiteral(kw, value string) plan.Expr {
	bad := func() plan.Expr {
		p.fail(invalidTypedLiteral(kw, value))
		return nil
	}
	switch kw {
	case "DATE":
		ts, ok := parseDateTime(value, true)
		if !ok {
			return bad()
		}
		return plan.Lit(int32(ts.days()), sqltypes.DateType)
	case "TIME":
		nanos, ok := sqltypes.ParseTime(value)
		if !ok {
			return bad()
		}
		return plan.Lit(nanos, sqltypes.TimeType(sqltypes.MaxTimePrecision))
	case "TIMESTAMP_NTZ":
		ts, ok := parseDateTime(value, false)
		if !ok || ts.zone != "" {
			return bad()
		}
		return plan.Lit(ts.micros(0), sqltypes.TimestampNTZType)
	}
	ts, ok := parseDateTime(value, false)
	if !ok {
		return bad()
	}
	if ts.zone == "" {
		return plan.Cast{Child: stringLiteral(value), To: sqltypes.TimestampType, Mode: plan.CastANSI}
	}
	if off, ok := parseZoneOffset(ts.zone); ok {
		return plan.Lit(ts.micros(off), sqltypes.TimestampType)
	}
	if _, err := time.LoadLocation(ts.zone); err != nil && !strings.Contains(ts.zone, "/") {
		return bad()
	}
	return plan.Cast{Child: stringLiteral(value), To: sqltypes.TimestampType, Mode: plan.CastANSI}
}

// dateTime is a parsed date/timestamp string: civil fields and the zone text ("" if none).
type dateTime struct {
	year, month, day        int
	hour, minute, sec, usec int
	zone                    string
}

func (d dateTime) days() int64 {
	return time.Date(d.year, time.Month(d.month), d.day, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// micros is the instant in microseconds since the epoch for a zone offset in seconds.
func (d dateTime) micros(offsetSec int) int64 {
	secs := time.Date(d.year, time.Month(d.month), d.day, d.hour, d.minute, d.sec, 0, time.UTC).Unix()
	return (secs-int64(offsetSec))*1_000_000 + int64(d.usec)
}

// parseDateTime parses Spark's date/timestamp string forms:
// [+-]yyyy[-[m]m[-[d]d]][( |T)[h]h[:[m]m[:[s]s[.ffffff]]]][zone]. For dates (dateOnly), anything
// after a ' ' or 'T' following the day is ignored, as Spark does.
func parseDateTime(s string, dateOnly bool) (dateTime, bool) {
	s = strings.TrimSpace(s)
	d := dateTime{month: 1, day: 1}
	i := 0
	num := func(min, max int) (int, bool) {
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j-i < min || j-i > max {
			return 0, false
		}
		v, _ := strconv.Atoi(s[i:j])
		i = j
		return v, true
	}
	sign := 1
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		if s[i] == '-' {
			sign = -1
		}
		i++
	}
	y, ok := num(4, 7)
	if !ok {
		return d, false
	}
	d.year = sign * y
	if i < len(s) && s[i] == '-' {
		i++
		if d.month, ok = num(1, 2); !ok {
			return d, false
		}
		if i < len(s) && s[i] == '-' {
			i++
			if d.day, ok = num(1, 2); !ok {
				return d, false
			}
		}
	}
	if d.month < 1 || d.month > 12 || d.day < 1 || d.day > daysIn(d.year, d.month) {
		return d, false
	}
	if i == len(s) {
		return d, true
	}
	if s[i] != ' ' && s[i] != 'T' {
		return d, false
	}
	if dateOnly {
		return d, true
	}
	i++
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && isDigit(s[i]) {
		if d.hour, ok = num(1, 2); !ok || d.hour > 23 {
			return d, false
		}
		if i < len(s) && s[i] == ':' {
			i++
			if d.minute, ok = num(1, 2); !ok || d.minute > 59 {
				return d, false
			}
			if i < len(s) && s[i] == ':' {
				i++
				if d.sec, ok = num(1, 2); !ok || d.sec > 59 {
					return d, false
				}
				if i < len(s) && s[i] == '.' {
					i++
					j := i
					for j < len(s) && isDigit(s[j]) {
						j++
					}
					frac := s[i:j]
					if len(frac) > 9 {
						return d, false
					}
					frac = (frac + "000000")[:6]
					d.usec, _ = strconv.Atoi(frac)
					i = j
				}
			}
		}
	}
	d.zone = strings.TrimSpace(s[i:])
	return d, true
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseZoneOffset parses Z, UTC, GMT, UT, optionally followed by an offset, or a bare offset
// ±h[h][[:]mm[[:]ss]], into seconds east of UTC.
func parseZoneOffset(z string) (int, bool) {
	u := strings.ToUpper(z)
	switch u {
	case "Z", "UTC", "GMT", "UT":
		return 0, true
	}
	for _, pre := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(u, pre) && len(u) > len(pre) && (u[len(pre)] == '+' || u[len(pre)] == '-') {
			u = u[len(pre):]
			break
		}
	}
	if u == "" || (u[0] != '+' && u[0] != '-') {
		return 0, false
	}
	sign := 1
	if u[0] == '-' {
		sign = -1
	}
	parts := strings.Split(u[1:], ":")
	if len(parts) == 1 {
		p := parts[0]
		switch len(p) {
		case 1, 2:
			parts = []string{p}
		case 4:
			parts = []string{p[:2], p[2:]}
		case 6:
			parts = []string{p[:2], p[2:4], p[4:]}
		default:
			return 0, false
		}
	}
	if len(parts) > 3 {
		return 0, false
	}
	mult := []int{3600, 60, 1}
	total := 0
	for k, part := range parts {
		if part == "" || len(part) > 2 {
			return 0, false
		}
		v, err := strconv.Atoi(part)
		if err != nil || (k == 0 && v > 18) || (k > 0 && v > 59) {
			return 0, false
		}
		total += v * mult[k]
	}
	return sign * total, true
}
