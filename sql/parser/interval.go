package parser

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Interval fields, as sqltypes numbers them.
const (
	fieldYear, fieldMonth                         = 0, 1
	fieldDay, fieldHour, fieldMinute, fieldSecond = 0, 1, 2, 3
	microsPerSecond                               = int64(1_000_000)
)

// intervalUnit describes one unit word of an interval literal.
type intervalUnit struct {
	yearMonth bool
	field     int8
	// scale is months per unit (year-month) or microseconds per unit (day-time).
	scale int64
}

var intervalUnits = map[string]intervalUnit{
	"YEAR":        {true, fieldYear, 12},
	"MONTH":       {true, fieldMonth, 1},
	"WEEK":        {false, fieldDay, 7 * 86400 * microsPerSecond},
	"DAY":         {false, fieldDay, 86400 * microsPerSecond},
	"HOUR":        {false, fieldHour, 3600 * microsPerSecond},
	"MINUTE":      {false, fieldMinute, 60 * microsPerSecond},
	"SECOND":      {false, fieldSecond, microsPerSecond},
	"MILLISECOND": {false, fieldSecond, 1000},
	"MICROSECOND": {false, fieldSecond, 1},
}

func lookupUnit(t token) (string, intervalUnit, bool) {
	if t.kind != tokWord {
		return "", intervalUnit{}, false
	}
	w := strings.ToUpper(t.text)
	u, ok := intervalUnits[w]
	if !ok && strings.HasSuffix(w, "S") {
		w = strings.TrimSuffix(w, "S")
		u, ok = intervalUnits[w]
	}
	return w, u, ok
}

func intervalError(format string, args ...any) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ParseException, "INVALID_INTERVAL_FORMAT", "22006", format, args...)
}

// intervalLiteral parses the rest of an INTERVAL literal (after the keyword): value unit
// [value unit …], 'text' from TO to, or 'text' containing units. Day-time intervals are int64
// microseconds of type interval <start> to <end>; year-month intervals are int32 months. Mixing
// the two (a calendar interval) is unsupported.
func (p *parser) intervalLiteral() plan.Expr {
	if p.peek().kind == tokString {
		if _, _, ok := lookupUnit(p.peekAt(1)); !ok {
			text := p.stringLit()
			return p.unitsInterval(splitIntervalText(text), text)
		}
	}
	var pairs [][2]string
	for {
		t := p.peek()
		var value string
		switch {
		case t.kind == tokString:
			value = p.stringLit()
		case t.isOp("-") || t.isOp("+"):
			p.pos++
			n := p.advance()
			if n.kind != tokInteger && n.kind != tokDecimal {
				p.syntaxErrorAt(n, "")
			}
			value = t.text + n.text
		case t.kind == tokInteger || t.kind == tokDecimal:
			p.pos++
			value = t.text
		default:
			if len(pairs) == 0 {
				p.syntaxError()
			}
			return p.unitsInterval(pairs, "")
		}
		unitTok := p.peek()
		unit, _, ok := lookupUnit(unitTok)
		if !ok {
			p.syntaxErrorAt(unitTok, "")
		}
		p.pos++
		if len(pairs) == 0 && p.peek().is("TO") {
			p.pos++
			toTok := p.advance()
			to, _, ok := lookupUnit(toTok)
			if !ok {
				p.syntaxErrorAt(toTok, "")
			}
			return p.fromToInterval(value, unit, to)
		}
		pairs = append(pairs, [2]string{value, unit})
	}
}

// splitIntervalText splits '1 day 2 hours' into value/unit pairs (invalid text gives a pair
// with an empty unit, reported by unitsInterval).
func splitIntervalText(text string) [][2]string {
	f := strings.Fields(text)
	if len(f) > 0 && strings.EqualFold(f[0], "interval") {
		f = f[1:]
	}
	var out [][2]string
	for i := 0; i < len(f); i += 2 {
		unit := ""
		if i+1 < len(f) {
			unit = f[i+1]
		}
		out = append(out, [2]string{f[i], unit})
	}
	if len(out) == 0 {
		out = append(out, [2]string{text, ""})
	}
	return out
}

// unitsInterval sums value/unit pairs into one ANSI interval literal.
func (p *parser) unitsInterval(pairs [][2]string, text string) plan.Expr {
	var months, micros int64
	ym, dt := false, false
	var start, end int8 = 127, -1
	for _, pr := range pairs {
		w, u, ok := lookupUnit(token{kind: tokWord, text: pr[1]})
		if !ok {
			if text == "" {
				text = pr[0] + " " + pr[1]
			}
			p.fail(intervalError("Cannot parse the INTERVAL value: '%s'.", text))
		}
		v, ok := scaledValue(pr[0], u.scale, w != "MONTH" && w != "MICROSECOND")
		if !ok {
			p.fail(intervalError("Cannot parse the INTERVAL value %s for unit %s.", pr[0], w))
		}
		if u.yearMonth {
			ym = true
			months += v
		} else {
			dt = true
			micros += v
		}
		start, end = min(start, u.field), max(end, u.field)
	}
	if ym && dt {
		p.fail(unsupported("interval literals mixing year-month and day-time units (calendar intervals) are not supported"))
	}
	if ym {
		if months > 1<<31-1 || months < -(1<<31) {
			p.fail(intervalError("Interval value is out of range."))
		}
		return plan.Lit(int32(months), sqltypes.YearMonthIntervalType(start, end))
	}
	return plan.Lit(micros, sqltypes.DayTimeIntervalType(start, end))
}

// scaledValue parses a signed integer (or, if fractional, a decimal with up to microsecond
// precision) and multiplies it by scale.
func scaledValue(s string, scale int64, fractional bool) (int64, bool) {
	s = strings.TrimSpace(s)
	if !fractional || !strings.Contains(s, ".") {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, false
		}
		r := new(big.Int).Mul(big.NewInt(v), big.NewInt(scale))
		return r.Int64(), r.IsInt64()
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	r.Mul(r, new(big.Rat).SetInt64(scale))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	return q.Int64(), q.IsInt64()
}

// fromToInterval parses 'text' FROM TO TO, e.g. '1 02:03:04.5' DAY TO SECOND or '1-2' YEAR TO
// MONTH.
func (p *parser) fromToInterval(text, from, to string) plan.Expr {
	bad := func() plan.Expr {
		p.fail(intervalError("Interval string does not match %s to %s format: '%s'.", strings.ToLower(from), strings.ToLower(to), text))
		return nil
	}
	s := strings.TrimSpace(text)
	neg := false
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		neg = s[0] == '-'
		s = s[1:]
	}
	if from == "YEAR" && to == "MONTH" {
		y, m, ok := strings.Cut(s, "-")
		yv, err1 := strconv.ParseInt(y, 10, 32)
		mv, err2 := strconv.ParseInt(m, 10, 32)
		if !ok || err1 != nil || err2 != nil || mv > 11 || yv < 0 || mv < 0 {
			return bad()
		}
		months := yv*12 + mv
		if neg {
			months = -months
		}
		return plan.Lit(int32(months), sqltypes.YearMonthIntervalType(fieldYear, fieldMonth))
	}
	fu, ok1 := intervalUnits[from]
	tu, ok2 := intervalUnits[to]
	if !ok1 || !ok2 || fu.yearMonth || tu.yearMonth || fu.field >= tu.field || to == "MILLISECOND" || to == "MICROSECOND" || from == "WEEK" {
		p.fail(intervalError("Intervals FROM %s TO %s are not supported.", from, to))
	}
	// Split into fields: DAY is separated by a space, the rest by ':'.
	var fields []string
	if fu.field == fieldDay {
		d, rest, ok := strings.Cut(s, " ")
		if !ok {
			return bad()
		}
		fields = append([]string{d}, strings.Split(strings.TrimSpace(rest), ":")...)
	} else {
		fields = strings.Split(s, ":")
	}
	if len(fields) != int(tu.field-fu.field)+1 {
		return bad()
	}
	var micros int64
	limits := []int64{-1, 23, 59, 59}
	for k, f := range fields {
		field := int(fu.field) + k
		u := intervalUnits[[]string{"DAY", "HOUR", "MINUTE", "SECOND"}[field]]
		v, ok := scaledValue(f, u.scale, field == fieldSecond)
		if !ok || v < 0 || (k > 0 && v >= (limits[field]+1)*u.scale) || f == "" {
			return bad()
		}
		micros += v
	}
	if neg {
		micros = -micros
	}
	return plan.Lit(micros, sqltypes.DayTimeIntervalType(fu.field, tu.field))
}
