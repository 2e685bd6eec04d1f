package parser

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/weirhq/weir/sparkerr"
)

// lex splits text into tokens following Spark's SqlBaseLexer: whitespace and comments (-- …,
// /* … */ nested) are skipped, except a /*+ hint */ right after SELECT, which becomes
// tokHintStart, its statements' tokens and tokHintEnd; the slice always ends with a tokEOF token.
func lex(ctx context.Context, text string, params bool) ([]token, error) {
	l := lexer{src: text, params: params}
	for {
		if ctx != nil && len(l.toks)%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		l.toks = append(l.toks, t)
		if t.kind == tokEOF {
			return l.toks, nil
		}
	}
}

type lexer struct {
	src    string
	pos    int
	toks   []token
	params bool // whether :name is a parameter marker (statements and expressions, not types)
	inHint bool // between tokHintStart and tokHintEnd
}

// hintStarts reports whether a /*+ at the lexer's position opens a hint: right after SELECT.
func (l *lexer) hintStarts() bool {
	return !l.inHint && strings.HasPrefix(l.src[l.pos:], "/*+") && len(l.toks) > 0 && l.toks[len(l.toks)-1].is("SELECT")
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) peekByte(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

// skipSpace skips whitespace and comments.
func (l *lexer) skipSpace() error {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case c == '-' && l.peekByte(1) == '-':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == '/' && l.peekByte(1) == '*':
			if l.hintStarts() {
				return nil
			}
			start := l.pos
			depth := 0
			for {
				if l.pos >= len(l.src) {
					return sparkerr.New(sparkerr.ParseException, "UNCLOSED_BRACKETED_COMMENT", "42601",
						"Found an unclosed bracketed comment. Please, append */ at the end of the comment.").
						WithParams("position", strconv.Itoa(start))
				}
				if l.src[l.pos] == '/' && l.peekByte(1) == '*' {
					depth++
					l.pos += 2
					continue
				}
				if l.src[l.pos] == '*' && l.peekByte(1) == '/' {
					depth--
					l.pos += 2
					if depth == 0 {
						break
					}
					continue
				}
				l.pos++
			}
		default:
			return nil
		}
	}
	return nil
}

// operators, longest first.
var operators = []string{
	"<=>", ">>>", "<=", ">=", "<>", "!=", "!>", "!<", "==", "||", "::", "->", "=>", "<<", ">>",
	"=", "<", ">", "!", "+", "-", "*", "/", "%", "~", "&", "|", "^", "(", ")", "[", "]", ",", ".", ";", ":",
}

func (l *lexer) next() (token, error) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[l.pos]
	mk := func(kind tokenKind, text string) token {
		return token{kind: kind, text: text, raw: l.src[start:l.pos], pos: start}
	}
	switch {
	case l.hintStarts():
		l.pos += 3
		l.inHint = true
		return mk(tokHintStart, "/*+"), nil
	case l.inHint && strings.HasPrefix(l.src[l.pos:], "*/"):
		l.pos += 2
		l.inHint = false
		return mk(tokHintEnd, "*/"), nil
	case c == '\'' || c == '"':
		s, err := l.quoted(c, false)
		if err != nil {
			return token{}, err
		}
		return mk(tokString, s), nil
	case (c == 'r' || c == 'R') && (l.peekByte(1) == '\'' || l.peekByte(1) == '"'):
		l.pos++
		s, err := l.quoted(l.src[l.pos], true)
		if err != nil {
			return token{}, err
		}
		return mk(tokString, s), nil
	case (c == 'x' || c == 'X') && l.peekByte(1) == '\'':
		l.pos += 2
		end := strings.IndexByte(l.src[l.pos:], '\'')
		if end < 0 {
			l.pos = len(l.src)
			return token{}, sparkerr.Parse("'"+l.src[start:]+"'", "")
		}
		hex := l.src[l.pos : l.pos+end]
		l.pos += end + 1
		return mk(tokBinary, hex), nil
	case c == '$' && l.peekByte(1) == '$':
		// $$…$$: a dollar-quoted body (a metric view's YAML), taken verbatim.
		end := strings.Index(l.src[l.pos+2:], "$$")
		if end < 0 {
			l.pos = len(l.src)
			return token{}, sparkerr.Parse("'"+l.src[start:]+"'", "")
		}
		body := l.src[l.pos+2 : l.pos+2+end]
		l.pos += end + 4
		return mk(tokString, body), nil
	case c == '`':
		l.pos++
		var b strings.Builder
		for {
			if l.pos >= len(l.src) {
				return token{}, sparkerr.Parse("'"+l.src[start:]+"'", "")
			}
			if l.src[l.pos] == '`' {
				if l.peekByte(1) == '`' {
					b.WriteByte('`')
					l.pos += 2
					continue
				}
				l.pos++
				break
			}
			b.WriteByte(l.src[l.pos])
			l.pos++
		}
		return mk(tokQuotedIdent, b.String()), nil
	case isDigit(c) || c == '.' && isDigit(l.peekByte(1)):
		return l.number(start)
	case c == '?':
		l.pos++
		return mk(tokParam, "?"), nil
	case c == ':' && l.params && l.peekByte(1) != ':' && isIdentByte(l.peekByte(1)) && l.prevAllowsParam():
		l.pos++
		for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
			l.pos++
		}
		return mk(tokParam, l.src[start+1:l.pos]), nil
	case isIdentByte(c):
		for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
			l.pos++
		}
		return mk(tokWord, l.src[start:l.pos]), nil
	}
	for _, op := range operators {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += len(op)
			return mk(tokOp, op), nil
		}
	}
	_, size := utf8.DecodeRuneInString(l.src[l.pos:])
	return token{}, sparkerr.Parse("'"+l.src[l.pos:l.pos+size]+"'", "")
}

// prevAllowsParam reports whether a ':' here starts a named parameter marker rather than a
// struct-type separator ("a:int"): parameters follow operators, keywords and '(' or ','.
func (l *lexer) prevAllowsParam() bool {
	if len(l.toks) == 0 {
		return true
	}
	p := l.toks[len(l.toks)-1]
	switch p.kind {
	case tokOp:
		return p.text != ")" && p.text != "]"
	case tokWord:
		_, kw := paramPrecedingKeywords[strings.ToUpper(p.text)]
		return kw
	}
	return false
}

var paramPrecedingKeywords = map[string]struct{}{
	"SELECT": {}, "WHERE": {}, "AND": {}, "OR": {}, "NOT": {}, "LIMIT": {}, "OFFSET": {}, "THEN": {},
	"ELSE": {}, "WHEN": {}, "CASE": {}, "IN": {}, "LIKE": {}, "BETWEEN": {}, "HAVING": {}, "BY": {},
	"ON": {}, "IS": {}, "VALUES": {}, "DISTINCT": {}, "ALL": {},
}

// quoted reads a string literal opened by q at l.pos, unescaping backslash sequences unless
// raw. As in Spark 4.2's lexer, a doubled quote inside a non-raw literal is one quote ('it”s' is
// it's, "a""b" is a"b; r'it”s' is still two adjacent literals); adjacent literals the parser
// concatenates ('a' 'b' is ab).
func (l *lexer) quoted(q byte, raw bool) (string, error) {
	start := l.pos
	l.pos++
	var b strings.Builder
	for {
		if l.pos >= len(l.src) {
			return "", sparkerr.Parse("'"+l.src[start:]+"'", "")
		}
		c := l.src[l.pos]
		if c == q && !raw && l.pos+1 < len(l.src) && l.src[l.pos+1] == q {
			b.WriteByte(q)
			l.pos += 2
			continue
		}
		if c == q {
			l.pos++
			return b.String(), nil
		}
		if c == '\\' && !raw && l.pos+1 < len(l.src) {
			l.pos++
			l.unescape(&b)
			continue
		}
		b.WriteByte(c)
		l.pos++
	}
}

// unescape handles the character(s) after a backslash at l.pos, as Spark's unescapeSQLString.
func (l *lexer) unescape(b *strings.Builder) {
	c := l.src[l.pos]
	hexRun := func(n int) bool {
		if l.pos+1+n > len(l.src) {
			return false
		}
		v, err := strconv.ParseUint(l.src[l.pos+1:l.pos+1+n], 16, 32)
		if err != nil || v > utf8.MaxRune {
			return false
		}
		b.WriteRune(rune(v))
		l.pos += 1 + n
		return true
	}
	switch c {
	case 'u':
		if hexRun(4) {
			return
		}
	case 'U':
		if hexRun(8) {
			return
		}
	case '0', '1', '2', '3':
		if l.pos+3 <= len(l.src) && isOctal(l.src[l.pos+1]) && isOctal(l.src[l.pos+2]) {
			v, _ := strconv.ParseUint(l.src[l.pos:l.pos+3], 8, 32)
			b.WriteRune(rune(v))
			l.pos += 3
			return
		}
	}
	l.pos++
	switch c {
	case '0':
		b.WriteByte(0)
	case 'b':
		b.WriteByte('\b')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'Z':
		b.WriteByte(0x1a)
	case '%', '_':
		b.WriteByte('\\')
		b.WriteByte(c)
	default:
		b.WriteByte(c)
	}
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// number lexes a numeric literal. A run of letters and digits that is not a valid number is an
// identifier (Spark allows identifiers such as 1a).
func (l *lexer) number(start int) (token, error) {
	mk := func(kind tokenKind) token {
		return token{kind: kind, text: l.src[start:l.pos], raw: l.src[start:l.pos], pos: start}
	}
	digits := func() int {
		n := 0
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
			n++
		}
		return n
	}
	intDigits := digits()
	frac := false
	if l.pos < len(l.src) && l.src[l.pos] == '.' {
		frac = true
		l.pos++
		digits()
	}
	exp := false
	if c := l.peekByte(0); c == 'e' || c == 'E' {
		save := l.pos
		l.pos++
		if c := l.peekByte(0); c == '+' || c == '-' {
			l.pos++
		}
		if digits() > 0 {
			exp = true
		} else {
			l.pos = save
		}
	}
	// Optional suffix.
	suffixStart := l.pos
	for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
		l.pos++
	}
	suffix := strings.ToUpper(l.src[suffixStart:l.pos])
	switch {
	case suffix == "":
		if frac || exp {
			return mk(tokDecimal), nil
		}
		return mk(tokInteger), nil
	case suffix == "D" || suffix == "F" || suffix == "BD":
		return mk(tokDecimal), nil
	case (suffix == "L" || suffix == "S" || suffix == "Y") && !frac && !exp:
		return mk(tokInteger), nil
	}
	if !frac && intDigits > 0 {
		// Digits followed by letters: an identifier such as 1a or 2e (Spark's IDENTIFIER).
		return token{kind: tokWord, text: l.src[start:l.pos], raw: l.src[start:l.pos], pos: start}, nil
	}
	return token{}, sparkerr.Parse("'"+l.src[start:l.pos]+"'", "")
}
