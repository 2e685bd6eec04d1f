package expr

import (
	"math/big"
	"strings"
	"unicode"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// to_number(s, fmt) and try_to_number: a string read with a number format (Spark's number
// patterns: 0 and 9 digits, . or D the decimal point, , or G a thousands separator, $, S and MI
// signs, PR angle brackets for negatives; case-insensitive) as DECIMAL(digits in fmt, digits
// after its point). The format must be a constant; a malformed one is INVALID_FORMAT.* at
// analysis, an input that does not match it INVALID_FORMAT.MISMATCH_INPUT (to_number) or NULL
// (try_to_number). A NULL format gives NULL of DECIMAL(10,0).

func init() {
	registerScalar(2, 2, bindToNumber, "to_number", "try_to_number")
}

// numToken is one element of a number format.
type numToken struct {
	kind numTokenKind
	// digits: how many, and whether exactly that many (a 0 before the decimal point).
	n     int
	exact bool
	// group: the digits and separators of a digit group, rightmost first.
	group []numToken
	// invalid: the character.
	c byte
}

type numTokenKind uint8

const (
	numDigits numTokenKind = iota
	numSeparator
	numGroup
	numPoint
	numDollar
	numSign
	numMinus
	numOpen
	numClose
	numInvalid
)

// describe is the token as Spark's format errors name it.
func (t numToken) describe() string {
	switch t.kind {
	case numDigits, numGroup:
		return "digit sequence"
	case numSeparator:
		return ", or G"
	case numPoint:
		return ". or D"
	case numDollar:
		return "$"
	case numSign:
		return "S"
	case numMinus:
		return "MI"
	case numOpen, numClose:
		return "PR"
	}
	return "character '" + string(t.c) + "''"
}

// numberFormat is a checked number format.
type numberFormat struct {
	text             string
	tokens           []numToken
	precision, scale int
}

// parseNumberFormat tokenizes an upper-cased format, groups runs of digits and separators, and
// checks it as Spark's ToNumberParser does (the same checks, in the same order).
func parseNumberFormat(f string) (*numberFormat, error) {
	var raw []numToken
	point := false
	for i := 0; i < len(f); {
		switch c := f[i]; {
		case c == '0' || c == '9':
			j := i
			for j < len(f) && (f[j] == '0' || f[j] == '9') {
				j++
			}
			raw = append(raw, numToken{kind: numDigits, n: j - i, exact: c == '0' && !point})
			i = j
			continue
		case c == '.' || c == 'D':
			raw = append(raw, numToken{kind: numPoint})
			point = true
		case c == ',' || c == 'G':
			raw = append(raw, numToken{kind: numSeparator})
		case c == '$':
			raw = append(raw, numToken{kind: numDollar})
		case c == 'S':
			raw = append(raw, numToken{kind: numSign})
		case c == 'M' && i+1 < len(f) && f[i+1] == 'I':
			raw = append(raw, numToken{kind: numMinus})
			i++
		case c == 'P' && i+1 < len(f) && f[i+1] == 'R':
			raw = append(append([]numToken{{kind: numOpen}}, raw...), numToken{kind: numClose})
			i++
		default:
			raw = append(raw, numToken{kind: numInvalid, c: c})
		}
		i++
	}
	nf := &numberFormat{text: f}
	var group []numToken
	flush := func() {
		if len(group) > 0 {
			rev := make([]numToken, len(group))
			for i, t := range group {
				rev[len(group)-1-i] = t
			}
			nf.tokens = append(nf.tokens, numToken{kind: numGroup, group: rev})
			group = nil
		}
	}
	for _, t := range raw {
		if t.kind == numDigits || t.kind == numSeparator {
			group = append(group, t)
			continue
		}
		flush()
		nf.tokens = append(nf.tokens, t)
	}
	flush()
	afterPoint := false
	for _, t := range nf.tokens {
		if t.kind == numPoint {
			afterPoint = true
		}
		for _, g := range t.group {
			if g.kind == numDigits {
				nf.precision += g.n
				if afterPoint {
					nf.scale += g.n
				}
			}
		}
	}
	return nf, nf.check()
}

func (nf *numberFormat) invalid(sub, format string, args ...any) error {
	q := "'" + strings.ReplaceAll(nf.text, "'", "\\'") + "'"
	return sparkerr.Newf(sparkerr.AnalysisException, "INVALID_FORMAT."+sub, "42601",
		"The format is invalid: %s. "+format, append([]any{q}, args...)...).WithParams("format", q)
}

func (nf *numberFormat) index(k numTokenKind) int {
	for i, t := range nf.tokens {
		if t.kind == k {
			return i
		}
	}
	return -1
}

func (nf *numberFormat) check() error {
	if nf.text == "" {
		return nf.invalid("EMPTY", "The number format string cannot be empty.")
	}
	digits := nf.index(numGroup)
	if digits < 0 {
		return nf.invalid("WRONG_NUM_DIGIT", "The format string requires at least one number digit.")
	}
	dollar, point := nf.index(numDollar), nf.index(numPoint)
	if digits < dollar {
		return nf.invalid("CUR_MUST_BEFORE_DIGIT", "Currency characters must appear before digits in the number format.")
	}
	if point >= 0 && point < dollar {
		return nf.invalid("CUR_MUST_BEFORE_DEC", "Currency characters must appear before any decimal point in the number format.")
	}
	for i, t := range nf.tokens {
		if t.kind != numGroup {
			continue
		}
		before := point < 0 || i < point
		for j, g := range t.group {
			if g.kind != numSeparator {
				continue
			}
			if !before {
				return nf.invalid("THOUSANDS_SEPS_MUST_BEFORE_DEC", "Thousands separators (, or G) may not appear after the decimal point in the number format.")
			}
			if j == 0 || j == len(t.group)-1 || t.group[j-1].kind == numSeparator || t.group[j+1].kind == numSeparator {
				return nf.invalid("CONT_THOUSANDS_SEPS", "Thousands separators (, or G) must have digits in between them in the number format.")
			}
		}
	}
	for _, k := range []numTokenKind{numPoint, numSign, numMinus, numDollar, numClose} {
		n := 0
		for _, t := range nf.tokens {
			if t.kind == k {
				n++
			}
		}
		if n > 1 {
			return nf.invalid("WRONG_NUM_TOKEN", "At most one %s is allowed in the number format.", numToken{kind: k}.describe())
		}
	}
	// [PR] [MI|S] [$] digits [.] digits [$] [PR|MI|S], each at most once, in this order.
	order := [][]numTokenKind{{numOpen}, {numMinus, numSign}, {numDollar}, {numGroup}, {numPoint}, {numGroup}, {numDollar}, {numMinus, numSign, numClose}}
	i := 0
	for _, allowed := range order {
		for _, k := range allowed {
			if i < len(nf.tokens) && nf.tokens[i].kind == k {
				i++
				break
			}
		}
	}
	if i < len(nf.tokens) {
		return nf.invalid("UNEXPECTED_TOKEN", "Found the unexpected %s in the format string; the structure of the format string must match: `[MI|S]` `[$]` `[0|9|G|,]*` `[.|D]` `[0|9]*` `[$]` `[PR|MI|S]`.",
			nf.tokens[i].describe())
	}
	return nil
}

// parse reads s with the format: the unscaled value at the format's scale, false when s does
// not match.
func (nf *numberFormat) parse(s string) (*big.Int, bool) {
	var before, after strings.Builder
	pos := 0
	point, open, closed, negate := false, false, false, false
	for _, t := range nf.tokens {
		var c byte
		have := pos < len(s)
		if have {
			c = s[pos]
		}
		switch t.kind {
		case numGroup:
			next, ok := nf.parseGroup(t.group, s, pos, point, &before, &after)
			if !ok {
				return nil, false
			}
			pos = next
		case numPoint:
			if have && c == '.' {
				point = true
				pos++
			}
		case numDollar:
			if have {
				if c != '$' {
					return nil, false
				}
				pos++
			}
		case numSign:
			if have && (c == '+' || c == '-') {
				negate = negate != (c == '-')
				pos++
			}
		case numMinus:
			if have && c == '-' {
				negate = !negate
				pos++
			}
		case numOpen:
			if have && c == '<' {
				if open {
					return nil, false
				}
				open = true
				pos++
			}
		case numClose:
			if have && c == '>' {
				if !open {
					return nil, false
				}
				closed, negate = true, !negate
				pos++
			}
		}
	}
	if pos < len(s) || open != closed || before.Len()+after.Len() == 0 {
		return nil, false
	}
	digits := before.String() + after.String() + strings.Repeat("0", nf.scale-after.Len())
	v, _ := new(big.Int).SetString(digits, 10)
	if negate {
		v.Neg(v)
	}
	return v, true
}

// parseGroup reads a run of digits, separators and blanks at pos against a digit group (rightmost
// first): the input's groups, counted from the right, must not outnumber the format's, and each
// must have exactly (0) or at most (9) the format's digits.
func (nf *numberFormat) parseGroup(group []numToken, s string, pos int, point bool, before, after *strings.Builder) (int, bool) {
	var sizes []int // rightmost group first
	n := 0
	for ; pos < len(s); pos++ {
		c := rune(s[pos])
		if c == ',' {
			sizes = append([]int{n}, sizes...)
			n = 0
			continue
		}
		if unicode.IsSpace(c) {
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		n++
		if point {
			after.WriteByte(byte(c))
		} else {
			before.WriteByte(byte(c))
		}
	}
	sizes = append([]int{n}, sizes...)
	var want []numToken
	for _, g := range group {
		if g.kind == numDigits {
			want = append(want, g)
		}
	}
	if len(sizes) > len(want) {
		return 0, false
	}
	for i, w := range want {
		got := 0
		if i < len(sizes) {
			got = sizes[i]
		}
		if (w.exact && got != w.n) || got > w.n {
			return 0, false
		}
	}
	return pos, true
}

func bindToNumber(name string, args []Expr, opts Options) (Expr, error) {
	in, err := coerceArgs(name, args, opts, sqltypes.StringType, sqltypes.StringType)
	if err != nil {
		return nil, err
	}
	fv, ok := literalValue(in[1])
	if !ok {
		what := "format"
		if _, isCol := in[1].(*Column); isCol {
			what = "attributereference"
		}
		return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
			"the input `%s` should be a foldable \"STRING\" expression; however, got %s.", what, quoteSQL(args[1].String())).
			WithParams("inputName", "`"+what+"`", "inputType", `"STRING"`, "inputExpr", quoteSQL(args[1].String()))
	}
	if fv == nil {
		return nullableStrict(name, in, sqltypes.DecimalType(10, 0), func(*Context, []any) (any, error) { return nil, nil }), nil
	}
	nf, err := parseNumberFormat(strings.ToUpper(fv.(string)))
	if err != nil {
		return nil, err
	}
	try := name == "try_to_number"
	f := nullableStrict(name, in, sqltypes.DecimalType(int32(nf.precision), int32(nf.scale)), func(_ *Context, a []any) (any, error) {
		s := a[0].(string)
		v, ok := nf.parse(s)
		if ok {
			return bigToNum(v), nil
		}
		if try {
			return nil, nil
		}
		return nil, sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_FORMAT.MISMATCH_INPUT", "42601",
			"The format is invalid: %s. The input \"STRING\" %s does not match the format.", nf.text, s).
			WithParams("inputType", `"STRING"`, "input", s, "format", nf.text)
	})
	f.null = try || anyNullable(in)
	return f, nil
}
