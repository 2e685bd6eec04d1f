package parser

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// parser is a recursive-descent parser over a token slice. Syntax errors unwind the parse by
// panicking with a parseFailure, which the entry points (run) turn back into an error.
type parser struct {
	text string
	toks []token
	pos  int

	// params are the bound parameter values (spark.sql args); nil when none were given.
	named      map[string]plan.Expr
	positional []plan.Expr
	nextPos    int

	// ctes is the stack of WITH scopes, innermost last (see cte.go).
	ctes []cteScope
	// rowCtorAt marks token positions where a parenthesised row constructor (a, b) began.
	rowCtorAt map[int]bool
	// windowRefs counts OVER name references waiting for a WINDOW clause; lastWindowRef is the
	// name of the latest one (for the error when one is never defined).
	windowRefs    int
	lastWindowRef string
	// depth is the current nesting of expressions and queries (bounded by maxDepth).
	depth int
	// exprNest counts the expr frames open in the current query (see expr).
	exprNest int
	// ctx, when set, stops the parse (see enter); steps counts enter calls between checks.
	ctx   context.Context
	steps int
}

// checkEvery is how many tokens (lexing) or nesting steps (parsing) pass between checks of
// the context.
const checkEvery = 1024

// parseCanceled carries the context's error out of a parse through a panic, as parseFailure.
type parseCanceled struct{ err error }

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 1000

// enter increments the nesting depth, failing beyond maxDepth; callers defer p.leave().
func (p *parser) enter() {
	if p.ctx != nil {
		if p.steps++; p.steps%checkEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				panic(parseCanceled{err})
			}
		}
	}
	p.depth++
	if p.depth > maxDepth {
		panic(parseFailure{err: tooComplex(), fatal: true})
	}
}

func (p *parser) leave() { p.depth-- }

// parseFailure carries a parse error through panics inside the parser.
type parseFailure struct {
	err *sparkerr.Error
	// fatal failures (nesting too deep) are not retried by speculative parsing.
	fatal bool
}

func newParser(text string, params bool) (*parser, error) {
	return newParserContext(nil, text, params)
}

// newParserContext is newParser whose lexing and parsing stop with ctx's error when ctx is
// done (a nil ctx never stops).
func newParserContext(ctx context.Context, text string, params bool) (*parser, error) {
	toks, err := lex(ctx, text, params)
	if err != nil {
		return nil, err
	}
	return &parser{text: text, toks: toks, rowCtorAt: map[int]bool{}, ctx: ctx}, nil
}

// run calls f, converting a parseFailure panic into its error and any other panic into an
// internal error, so that no input can crash the caller.
func run[T any](f func() T) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			if pf, ok := r.(parseFailure); ok {
				err = pf.err
				return
			}
			if pc, ok := r.(parseCanceled); ok {
				err = pc.err
				return
			}
			err = sparkerr.Internal("SQL parser failed unexpectedly: %v", r)
		}
	}()
	return f(), nil
}

// fail aborts the parse with err.
func (p *parser) fail(err *sparkerr.Error) { panic(parseFailure{err: err}) }

// syntaxError aborts with PARSE_SYNTAX_ERROR at the current token.
func (p *parser) syntaxError() { p.syntaxErrorAt(p.peek(), "") }

func (p *parser) syntaxErrorAt(t token, hint string) {
	p.fail(sparkerr.Parse(t.display(), hint))
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) advance() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

// accept consumes the keyword kw if it is next.
func (p *parser) accept(kw string) bool {
	if p.peek().is(kw) {
		p.pos++
		return true
	}
	return false
}

// acceptSeq consumes the keywords kws if they are all next, in order.
func (p *parser) acceptSeq(kws ...string) bool {
	for i, kw := range kws {
		if !p.peekAt(i).is(kw) {
			return false
		}
	}
	p.pos += len(kws)
	return true
}

func (p *parser) acceptOp(op string) bool {
	if p.peek().isOp(op) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(kw string) {
	if !p.accept(kw) {
		p.syntaxError()
	}
}

func (p *parser) expectOp(op string) {
	if !p.acceptOp(op) {
		p.syntaxError()
	}
}

// expectEnd requires the end of input, allowing trailing semicolons.
func (p *parser) expectEnd() {
	for p.acceptOp(";") {
	}
	if t := p.peek(); t.kind != tokEOF {
		// Like ANTLR's "extraneous input": the hint is given when dropping this one token
		// would complete the statement.
		hint := ""
		if p.atEndFrom(p.pos + 1) {
			hint = ": extra input " + t.display()
		}
		p.syntaxErrorAt(t, hint)
	}
}

// atEnd reports whether only semicolons remain.
func (p *parser) atEnd() bool { return p.atEndFrom(p.pos) }

func (p *parser) atEndFrom(pos int) bool {
	for i := pos; i < len(p.toks); i++ {
		if !p.toks[i].isOp(";") {
			return p.toks[i].kind == tokEOF
		}
	}
	return true
}

// reserved are words that cannot be bare column names or aliases (without backquotes): clause
// keywords and Spark's strict non-reserved words.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`SELECT FROM WHERE GROUP HAVING ORDER LIMIT OFFSET UNION INTERSECT
		EXCEPT MINUS JOIN INNER LEFT RIGHT FULL CROSS NATURAL SEMI ANTI ON USING WINDOW LATERAL SORT
		CLUSTER DISTRIBUTE AS AND OR NOT IS IN BETWEEN LIKE ILIKE RLIKE REGEXP WHEN THEN ELSE END
		WITH VALUES TABLESAMPLE PIVOT UNPIVOT QUALIFY ESCAPE DIV OVER INTO CASE`) {
		reserved[w] = true
	}
}

func isReserved(t token) bool { return t.kind == tokWord && reserved[strings.ToUpper(t.text)] }

// isIdent reports whether t can be an identifier (a quoted identifier or a non-reserved word).
func isIdent(t token) bool {
	return t.kind == tokQuotedIdent || t.kind == tokWord && !isReserved(t)
}

// identifier consumes an identifier. Keywords are allowed only if non-reserved.
func (p *parser) identifier() string {
	t := p.peek()
	if !isIdent(t) {
		p.syntaxError()
	}
	p.pos++
	return t.text
}

// anyIdentifier consumes an identifier where any word is allowed (after AS, after '.').
func (p *parser) anyIdentifier() string {
	t := p.peek()
	if t.kind != tokQuotedIdent && t.kind != tokWord {
		p.syntaxError()
	}
	p.pos++
	return t.text
}

// multipartName parses a.b.c.
func (p *parser) multipartName() []string {
	parts := []string{p.identifier()}
	for p.peek().isOp(".") {
		p.pos++
		parts = append(parts, p.anyIdentifier())
	}
	return parts
}

// identifierList parses ( a, b, c ).
func (p *parser) identifierList() []string {
	p.expectOp("(")
	var names []string
	for {
		names = append(names, p.anyIdentifier())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return names
}

// stringLit consumes one or more adjacent string literals (concatenated, as Spark does).
func (p *parser) stringLit() string {
	if p.peek().kind != tokString {
		p.syntaxError()
	}
	var b strings.Builder
	for p.peek().kind == tokString {
		b.WriteString(p.advance().text)
	}
	return b.String()
}
