package parser

import "strings"

// tokenKind classifies a lexical token.
type tokenKind uint8

const (
	tokEOF tokenKind = iota
	// tokWord is an unquoted identifier or keyword; keywords are recognised by the parser,
	// case-insensitively, from the word's text.
	tokWord
	// tokQuotedIdent is a `backquoted` identifier: never a keyword.
	tokQuotedIdent
	// tokString is a '…' or "…" string literal; text is the unescaped value.
	tokString
	// tokInteger is digits with an optional L/S/Y suffix ("12", "12L").
	tokInteger
	// tokDecimal is a number with a fraction and/or exponent and optional D/F/BD suffix, or
	// digits with a D/F/BD suffix ("1.5", "1e3", "1.5BD", "2D").
	tokDecimal
	// tokBinary is X'…': text holds the hex digits.
	tokBinary
	// tokOp is punctuation or an operator; text is the symbol.
	tokOp
	// tokParam is a parameter marker: text is "?" or the name after ':'.
	tokParam
	// tokHintStart and tokHintEnd enclose the statements of a /*+ … */ hint right after SELECT
	// (elsewhere such a comment is skipped as a comment); the statements between them are
	// lexed as ordinary tokens.
	tokHintStart
	tokHintEnd
)

// token is one lexical token. pos is its byte offset in the text; raw is the source text.
type token struct {
	kind tokenKind
	text string
	raw  string
	pos  int
}

// is reports whether t is the keyword kw (an unquoted word, case-insensitive).
func (t token) is(kw string) bool {
	return t.kind == tokWord && strings.EqualFold(t.text, kw)
}

// isOp reports whether t is the operator op.
func (t token) isOp(op string) bool { return t.kind == tokOp && t.text == op }

// display renders the token as Spark's error messages show it: 'FROM', or "end of input".
func (t token) display() string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return "'" + t.raw + "'"
}
