package parser

import (
	"github.com/weirhq/weir/sql/collation"
	"strings"

	"github.com/weirhq/weir/sql/plan"
)

// Binding powers, loosest first, following SqlBaseParser's booleanExpression/valueExpression.
const (
	bpNone      = iota
	bpOr        // OR
	bpAnd       // AND
	bpNot       // prefix NOT / !
	bpPredicate // IS, [NOT] BETWEEN/IN/LIKE/ILIKE/RLIKE
	bpCompare   // = == <> != < <= > >= <=>
	bpBitOr     // |
	bpBitXor    // ^
	bpBitAnd    // &
	bpShift     // << >> >>>
	bpAdditive  // + - ||
	bpMultiply  // * / % DIV
	bpUnary     // prefix - + ~
)

var binaryOps = map[string]struct {
	bp   int
	name string
}{
	"=": {bpCompare, "=="}, "==": {bpCompare, "=="}, "<>": {bpCompare, "!="}, "!=": {bpCompare, "!="},
	"<": {bpCompare, "<"}, "<=": {bpCompare, "<="}, ">": {bpCompare, ">"}, ">=": {bpCompare, ">="},
	"!>": {bpCompare, "<="}, "!<": {bpCompare, ">="},
	"<=>": {bpCompare, "<=>"}, "|": {bpBitOr, "|"}, "^": {bpBitXor, "^"}, "&": {bpBitAnd, "&"},
	"<<": {bpShift, "<<"}, ">>": {bpShift, ">>"}, ">>>": {bpShift, ">>>"},
	"+": {bpAdditive, "+"}, "-": {bpAdditive, "-"}, "||": {bpAdditive, "concat"},
	"*": {bpMultiply, "*"}, "/": {bpMultiply, "/"}, "%": {bpMultiply, "%"},
}

// expression parses a full boolean expression.
func (p *parser) expression() plan.Expr { return p.expr(bpNone) }

// valueExpression parses an expression that stops before predicates, AND and OR (Spark's
// valueExpression), as used for BETWEEN bounds and LIKE patterns.
func (p *parser) valueExpression() plan.Expr { return p.expr(bpPredicate) }

// exprLoop is the Pratt loop: a prefix expression, then infix operators binding tighter than
// minBP.
func (p *parser) exprLoop(minBP int) plan.Expr {
	p.enter()
	defer p.leave()
	start := p.pos
	left := p.prefix()
	for {
		t := p.peek()
		switch {
		case t.kind == tokOp:
			op, ok := binaryOps[t.text]
			if !ok || op.bp <= minBP {
				return left
			}
			p.pos++
			left = plan.Fn(op.name, left, p.expr(op.bp))
		case t.is("OR") || t.is("AND"):
			bp, name := bpOr, "or"
			if t.is("AND") {
				bp, name = bpAnd, "and"
			}
			if bp <= minBP {
				return left
			}
			p.pos++
			left = plan.Fn(name, left, p.expr(bp))
		case t.is("DIV"):
			if bpMultiply <= minBP {
				return left
			}
			p.pos++
			left = plan.Fn("div", left, p.expr(bpMultiply))
		case p.atPredicate():
			if bpPredicate <= minBP {
				return left
			}
			left = p.predicate(left, start)
		default:
			return left
		}
	}
}

// atPredicate reports whether a predicate (IS …, [NOT] IN/BETWEEN/LIKE/…) starts here.
func (p *parser) atPredicate() bool {
	t := p.peek()
	if t.is("IS") {
		return true
	}
	if t.is("NOT") || t.isOp("!") {
		t = p.peekAt(1)
	}
	for _, kw := range []string{"IN", "BETWEEN", "LIKE", "ILIKE", "RLIKE", "REGEXP"} {
		if t.is(kw) {
			return true
		}
	}
	return false
}

// predicate parses a predicate applied to left; leftStart is left's first token position.
func (p *parser) predicate(left plan.Expr, leftStart int) plan.Expr {
	if p.accept("IS") {
		not := p.accept("NOT")
		var e plan.Expr
		switch {
		case p.accept("NULL"):
			if not {
				return plan.Fn("isnotnull", left)
			}
			return plan.Fn("isnull", left)
		case p.accept("UNKNOWN"):
			if not {
				return plan.Fn("isnotnull", left)
			}
			return plan.Fn("isnull", left)
		case p.peek().is("TRUE") || p.peek().is("FALSE"):
			e = plan.Fn("<=>", left, boolLit(p.advance().is("TRUE")))
		case p.acceptSeq("DISTINCT", "FROM"):
			e = plan.Fn("<=>", left, p.valueExpression())
			not = !not
		default:
			p.syntaxError()
		}
		if not {
			return plan.Fn("not", e)
		}
		return e
	}
	not := p.accept("NOT") || p.acceptOp("!")
	var e plan.Expr
	switch {
	case p.accept("BETWEEN"):
		lower := p.valueExpression()
		p.expect("AND")
		upper := p.valueExpression()
		e = plan.Fn("between", left, lower, upper)
	case p.accept("IN"):
		p.expectOp("(")
		if q, ok := p.parenQuery(); ok {
			values := []plan.Expr{left}
			if c, ok := left.(plan.Call); ok && c.Name == "struct" && p.rowCtorAt[leftStart] {
				values = c.Args
			}
			return plan.InSubquery{Values: values, Plan: q, Not: not}
		}
		args := []plan.Expr{left}
		for {
			args = append(args, p.expression())
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		e = plan.Call{Name: "in", Args: args}
	case p.peek().is("LIKE") || p.peek().is("ILIKE"):
		name := strings.ToLower(p.advance().text)
		if t := p.peek(); t.is("ANY") || t.is("SOME") || t.is("ALL") {
			p.fail(unsupported("%s %s (…) patterns are not supported", strings.ToUpper(name), strings.ToUpper(t.text)))
		}
		c := plan.Fn(name, left, p.valueExpression())
		if p.accept("ESCAPE") {
			c.Args = append(c.Args, stringLiteral(p.stringLit()))
		}
		e = c
	case p.accept("RLIKE") || p.accept("REGEXP"):
		e = plan.Fn("rlike", left, p.valueExpression())
	default:
		p.syntaxError()
	}
	if not {
		return plan.Fn("not", e)
	}
	return e
}

// prefix parses a prefix operator application or a primary expression with its postfixes.
func (p *parser) prefix() plan.Expr {
	t := p.peek()
	switch {
	case t.is("NOT") || t.isOp("!"):
		p.pos++
		return plan.Fn("not", p.expr(bpNot))
	case t.isOp("-"):
		p.pos++
		if n := p.peek(); n.kind == tokInteger || n.kind == tokDecimal {
			p.pos++
			return p.postfix(p.numberLiteral(n, true))
		}
		return plan.Fn("negative", p.expr(bpUnary))
	case t.isOp("+"):
		p.pos++
		return plan.Fn("positive", p.expr(bpUnary))
	case t.isOp("~"):
		p.pos++
		return plan.Fn("~", p.expr(bpUnary))
	case t.is("EXISTS") && p.peekAt(1).isOp("("):
		// EXISTS (query); exists(array, lambda) is the higher-order function.
		p.pos += 2
		if q, ok := p.parenQuery(); ok {
			return plan.Exists{Plan: q}
		}
		p.pos -= 2
	}
	return p.postfix(p.primary())
}

// postfix applies [index], .field, .*, ::type and COLLATE name to e.
func (p *parser) postfix(e plan.Expr) plan.Expr {
	for {
		switch {
		case p.acceptOp("["):
			idx := p.expression()
			p.expectOp("]")
			e = plan.ExtractValue{Child: e, Extraction: idx}
		case p.peek().isOp(".") && p.peekAt(1).isOp("*"):
			ref, ok := e.(plan.ColumnRef)
			if !ok {
				p.syntaxErrorAt(p.peekAt(1), "")
			}
			p.pos += 2
			return plan.Star{Target: ref.Name}
		case p.peek().isOp("."):
			p.pos++
			name := p.anyIdentifier()
			if ref, ok := e.(plan.ColumnRef); ok {
				ref.Name = append(append([]string(nil), ref.Name...), name)
				e = ref
			} else {
				e = plan.ExtractValue{Child: e, Extraction: stringLiteral(name)}
			}
		case p.peek().isOp(":") && semiStructuredPathStart(p.peekAt(1)):
			p.pos++
			e = p.semiStructuredExtract(e)
		case p.peek().isOp(":") && p.peekAt(1).isOp("*"):
			p.syntaxErrorAt(p.peekAt(1), "")
		case p.acceptOp("::"):
			c := plan.Cast{Child: e, To: p.dataType(), Mode: plan.CastDefault}
			if al, ok := e.(plan.Alias); ok && isSemiStructuredExtract(al) {
				// v:a::int keeps the path's name, as Spark names it.
				c.Child = al.Child
				e = plan.Alias{Child: c, Names: al.Names}
				continue
			}
			e = c
		case p.peek().is("COLLATE") && (p.peekAt(1).kind == tokWord || p.peekAt(1).kind == tokQuotedIdent):
			p.pos++
			full, last := p.collationWords()
			if _, err := collation.Lookup(full); err != nil {
				p.fail(collation.InvalidName(full))
			}
			e = plan.Fn("collate", e, stringLiteral(last))
		default:
			return e
		}
	}
}

// semiStructuredPathStart reports whether t can start the path of v:path.
func semiStructuredPathStart(t token) bool {
	return t.kind == tokWord || t.kind == tokQuotedIdent || t.isOp("[")
}

// semiStructuredExtract parses the path of Spark's semi-structured extract v:a.b[0]['c d'] (after
// the colon): variant_get(v, '$.a.b[0]['c d']'), named after the path's last key (unnamed when
// the path has no key, as Spark names it variant_get(v, $[0])).
func (p *parser) semiStructuredExtract(v plan.Expr) plan.Expr {
	var path strings.Builder
	path.WriteByte('$')
	last := ""
	key := func(k string) {
		last = k
		if isPlainPathKey(k) {
			path.WriteString("." + k)
		} else {
			path.WriteString("['" + k + "']")
		}
	}
	first := true
	for {
		switch t := p.peek(); {
		case first && (t.kind == tokWord || t.kind == tokQuotedIdent):
			key(p.anyIdentifier())
		case !first && t.isOp(".") && (p.peekAt(1).kind == tokWord || p.peekAt(1).kind == tokQuotedIdent):
			p.pos++
			key(p.anyIdentifier())
		case t.isOp("[") && p.peekAt(1).kind == tokString && p.peekAt(2).isOp("]"):
			key(p.peekAt(1).text)
			p.pos += 3
		case t.isOp("[") && p.peekAt(1).kind == tokInteger && p.peekAt(2).isOp("]"):
			path.WriteString("[" + p.peekAt(1).text + "]")
			p.pos += 3
		case first:
			p.syntaxErrorAt(p.peekAt(1), "")
		default:
			call := plan.Fn("variant_get", v, stringLiteral(path.String()))
			if last == "" {
				return call
			}
			return plan.Alias{Child: call, Names: []string{last}}
		}
		first = false
	}
}

// isPlainPathKey reports whether a variant path may name k as .k.
func isPlainPathKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isSemiStructuredExtract reports whether al is the named variant_get of a v:path.
func isSemiStructuredExtract(al plan.Alias) bool {
	c, ok := al.Child.(plan.Call)
	return ok && len(al.Names) == 1 && c.Name == "variant_get" && len(c.Args) == 2
}

// namedExpression parses expr [[AS] alias | AS (a, b)].
func (p *parser) namedExpression() plan.Expr {
	e := p.expression()
	if p.accept("AS") {
		if p.peek().isOp("(") {
			return plan.Alias{Child: e, Names: p.identifierList()}
		}
		return plan.Alias{Child: e, Names: []string{p.anyIdentifier()}}
	}
	if isIdent(p.peek()) {
		return plan.Alias{Child: e, Names: []string{p.advance().text}}
	}
	return e
}

// expressionList parses e1, e2, ….
func (p *parser) expressionList() []plan.Expr {
	var out []plan.Expr
	for {
		out = append(out, p.expression())
		if !p.acceptOp(",") {
			return out
		}
	}
}
