package parser

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// functionsAllowedReserved are reserved words that are still function names when followed by
// '(' (left('abc', 1), like(a, b)).
var functionsAllowedReserved = map[string]bool{
	"LEFT": true, "RIGHT": true, "LIKE": true, "ILIKE": true, "RLIKE": true, "REGEXP": true,
	"FILTER": true, "BETWEEN": true,
}

// primary parses a primary expression (Spark's primaryExpression without postfixes).
func (p *parser) primary() plan.Expr {
	t := p.peek()
	switch t.kind {
	case tokInteger, tokDecimal:
		p.pos++
		return p.numberLiteral(t, false)
	case tokString:
		return stringLiteral(p.stringLit())
	case tokBinary:
		p.pos++
		return binaryLiteral(t.text)
	case tokParam:
		p.pos++
		return p.param(t)
	case tokQuotedIdent:
		if p.peekAt(1).isOp("->") {
			return p.lambda()
		}
		return p.nameOrCall()
	case tokOp:
		switch t.text {
		case "*":
			p.pos++
			return plan.Star{}
		case "(":
			return p.parenthesized()
		}
		p.syntaxError()
	case tokWord:
		return p.wordPrimary(t)
	}
	p.syntaxError()
	return nil
}

func (p *parser) wordPrimary(t token) plan.Expr {
	next := p.peekAt(1)
	kw := strings.ToUpper(t.text)
	switch kw {
	case "TRUE", "FALSE":
		p.pos++
		return boolLit(kw == "TRUE")
	case "NULL":
		p.pos++
		return plan.Lit(nil, sqltypes.NullType)
	case "DATE", "TIMESTAMP", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ", "TIME":
		if next.kind == tokString {
			p.pos++
			return p.typedLiteral(kw, p.stringLit())
		}
	case "INTERVAL":
		if next.kind == tokString || next.kind == tokInteger || next.kind == tokDecimal || next.isOp("-") || next.isOp("+") {
			p.pos++
			return p.intervalLiteral()
		}
	case "CASE":
		p.pos++
		return p.caseExpr()
	case "CAST", "TRY_CAST":
		if next.isOp("(") {
			p.pos += 2
			e := p.expression()
			p.expect("AS")
			to := p.dataType()
			p.expectOp(")")
			mode := plan.CastDefault
			if kw == "TRY_CAST" {
				mode = plan.CastTry
			}
			return plan.Cast{Child: e, To: to, Mode: mode}
		}
	case "EXTRACT":
		if next.isOp("(") {
			p.pos += 2
			field := p.anyIdentifier()
			p.expect("FROM")
			src := p.expression()
			p.expectOp(")")
			return plan.Fn("extract", stringLiteral(field), src)
		}
	case "SUBSTRING", "SUBSTR", "TRIM", "POSITION", "OVERLAY":
		if next.isOp("(") {
			if e, ok := p.specialForm(kw); ok {
				return e
			}
		}
	case "STRUCT":
		if next.isOp("(") {
			p.pos += 2
			c := plan.Call{Name: "struct"}
			if !p.peek().isOp(")") {
				c.Args = []plan.Expr{p.namedExpression()}
				for p.acceptOp(",") {
					c.Args = append(c.Args, p.namedExpression())
				}
			}
			p.expectOp(")")
			return c
		}
	case "FIRST", "LAST", "ANY_VALUE":
		if next.isOp("(") && p.hasInnerIgnoreNulls() {
			p.pos += 2
			arg := p.expression()
			p.expectSeq("IGNORE", "NULLS")
			p.expectOp(")")
			return plan.Fn(strings.ToLower(kw), arg, boolLit(true))
		}
	case "TIMESTAMPADD", "DATEADD", "DATE_ADD", "TIMESTAMPDIFF", "DATEDIFF", "DATE_DIFF", "TIMEDIFF":
		if next.isOp("(") && datetimeUnits[strings.ToUpper(p.peekAt(2).text)] && p.peekAt(2).kind == tokWord && p.peekAt(3).isOp(",") {
			p.pos += 2
			unit := strings.ToUpper(p.advance().text)
			p.expectOp(",")
			a := p.valueExpression()
			p.expectOp(",")
			b := p.valueExpression()
			p.expectOp(")")
			name := "timestampadd"
			if strings.Contains(kw, "DIFF") {
				name = "timestampdiff"
			}
			return plan.Fn(name, stringLiteral(unit), a, b)
		}
	case "CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_USER", "CURRENT_TIME":
		if !next.isOp("(") {
			p.pos++
			return plan.Fn(strings.ToLower(kw))
		}
	}
	if next.isOp("->") {
		return p.lambda()
	}
	if isReserved(t) && !(next.isOp("(") && functionsAllowedReserved[kw]) {
		p.syntaxError()
	}
	return p.nameOrCall()
}

// nameOrCall parses a (dotted) column name or a function call name(args).
func (p *parser) nameOrCall() plan.Expr {
	parts := []string{p.anyIdentifier()}
	for p.peek().isOp(".") && (p.peekAt(1).kind == tokWord || p.peekAt(1).kind == tokQuotedIdent) {
		p.pos++
		parts = append(parts, p.anyIdentifier())
	}
	if !p.peek().isOp("(") {
		return plan.ColumnRef{Name: parts}
	}
	return p.functionCall(strings.Join(parts, "."))
}

// functionCall parses (args) and the optional WITHIN GROUP (ORDER BY …), FILTER, IGNORE/RESPECT
// NULLS and OVER clauses.
func (p *parser) functionCall(name string) plan.Expr {
	p.expectOp("(")
	call := plan.Call{Name: name}
	if p.accept("DISTINCT") {
		call.Distinct = true
	} else {
		p.accept("ALL")
	}
	if !p.peek().isOp(")") {
		call.Args, call.ArgNames = p.functionArguments()
	}
	p.expectOp(")")
	if p.peek().is("WITHIN") && p.peekAt(1).is("GROUP") {
		p.pos += 2
		p.expectOp("(")
		p.expect("ORDER")
		p.expect("BY")
		call.WithinGroup = p.sortItems()
		p.expectOp(")")
	}
	if p.peek().is("FILTER") && p.peekAt(1).isOp("(") {
		p.pos += 2
		p.expect("WHERE")
		call.Filter = p.expression()
		p.expectOp(")")
	}
	if p.acceptSeq("IGNORE", "NULLS") {
		switch strings.ToLower(name) {
		case "first", "last", "first_value", "last_value", "any_value", "nth_value":
			call.Args = append(call.Args, boolLit(true))
		case "lag", "lead":
			// lag(x[, offset[, default]]) IGNORE NULLS is lag(x, offset, default, true).
			if len(call.Args) < 2 {
				call.Args = append(call.Args, plan.Lit(int32(1), sqltypes.IntegerType))
			}
			if len(call.Args) < 3 {
				call.Args = append(call.Args, plan.Lit(nil, sqltypes.NullType))
			}
			call.Args = append(call.Args, boolLit(true))
		default:
			p.fail(unsupported("IGNORE NULLS is not supported for function %s", name))
		}
	} else {
		p.acceptSeq("RESPECT", "NULLS")
	}
	if p.accept("OVER") {
		return p.windowSpec(call)
	}
	return call
}

// functionArguments parses a call's comma-separated arguments, each an expression or a named
// argument `name => expression`; names is nil when no argument is named.
func (p *parser) functionArguments() (args []plan.Expr, names []string) {
	named := false
	for {
		name := ""
		if t := p.peek(); (t.kind == tokWord || t.kind == tokQuotedIdent) && p.peekAt(1).isOp("=>") {
			name = p.anyIdentifier()
			p.expectOp("=>")
			named = true
		}
		args = append(args, p.expression())
		names = append(names, name)
		if !p.peek().isOp(",") {
			break
		}
		p.pos++
	}
	if !named {
		names = nil
	}
	return args, names
}

// specialForm parses the keyword-argument forms SUBSTRING(s FROM p FOR l), TRIM(BOTH x FROM s),
// POSITION(a IN b) and OVERLAY(a PLACING b FROM p FOR l). ok is false (and nothing is consumed)
// when the call uses the ordinary comma form.
func (p *parser) specialForm(kw string) (plan.Expr, bool) {
	save := p.pos
	name := strings.ToLower(p.advance().text)
	p.pos++ // (
	switch kw {
	case "SUBSTRING", "SUBSTR":
		s := p.valueExpression()
		if !p.accept("FROM") {
			break
		}
		args := []plan.Expr{s, p.valueExpression()}
		if p.accept("FOR") {
			args = append(args, p.valueExpression())
		}
		p.expectOp(")")
		return plan.Call{Name: name, Args: args}, true
	case "TRIM":
		fn := "btrim"
		switch {
		case p.accept("BOTH"):
		case p.accept("LEADING"):
			fn = "ltrim"
		case p.accept("TRAILING"):
			fn = "rtrim"
		default:
			if p.peek().is("FROM") {
				break
			}
			first := p.valueExpression()
			if !p.accept("FROM") {
				p.pos = save
				return nil, false
			}
			src := p.valueExpression()
			p.expectOp(")")
			return plan.Fn(fn, src, first), true
		}
		var trimStr plan.Expr
		if !p.peek().is("FROM") {
			trimStr = p.valueExpression()
		}
		p.expect("FROM")
		src := p.valueExpression()
		p.expectOp(")")
		if trimStr == nil {
			return plan.Fn(fn, src), true
		}
		return plan.Fn(fn, src, trimStr), true
	case "POSITION":
		sub := p.valueExpression()
		if !p.accept("IN") {
			break
		}
		str := p.valueExpression()
		p.expectOp(")")
		return plan.Fn("locate", sub, str), true
	case "OVERLAY":
		in := p.valueExpression()
		if !p.accept("PLACING") {
			break
		}
		args := []plan.Expr{in, p.valueExpression()}
		p.expect("FROM")
		args = append(args, p.valueExpression())
		if p.accept("FOR") {
			args = append(args, p.valueExpression())
		}
		p.expectOp(")")
		return plan.Call{Name: "overlay", Args: args}, true
	}
	p.pos = save
	return nil, false
}

// caseExpr parses the rest of CASE … END into Call "when".
func (p *parser) caseExpr() plan.Expr {
	var subject plan.Expr
	if !p.peek().is("WHEN") {
		subject = p.expression()
	}
	var args []plan.Expr
	for p.accept("WHEN") {
		cond := p.expression()
		if subject != nil {
			cond = plan.Fn("==", subject, cond)
		}
		p.expect("THEN")
		args = append(args, cond, p.expression())
	}
	if len(args) == 0 {
		p.syntaxError()
	}
	if p.accept("ELSE") {
		args = append(args, p.expression())
	}
	p.expect("END")
	return plan.Call{Name: "when", Args: args}
}

// parenthesized parses (expr), a row constructor (a, b), a scalar subquery (SELECT …) or a
// lambda (x, y) -> body.
func (p *parser) parenthesized() plan.Expr {
	if p.isParenLambda() {
		return p.lambda()
	}
	start := p.pos
	p.pos++
	if q, ok := p.parenQuery(); ok {
		return plan.ScalarSubquery{Plan: q}
	}
	first := p.namedExpression()
	if !p.acceptOp(",") {
		p.expectOp(")")
		if _, isAlias := first.(plan.Alias); isAlias {
			return plan.Fn("struct", first)
		}
		return first
	}
	args := []plan.Expr{first}
	for {
		args = append(args, p.namedExpression())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	p.rowCtorAt[start] = true
	return plan.Call{Name: "struct", Args: args}
}

// isParenLambda reports whether ( ident, … ) -> starts here.
func (p *parser) isParenLambda() bool {
	i := 1
	for {
		t := p.peekAt(i)
		if t.kind != tokWord && t.kind != tokQuotedIdent {
			return p.peekAt(i).isOp(")") && i == 1 && p.peekAt(i+1).isOp("->")
		}
		i++
		if p.peekAt(i).isOp(")") {
			return p.peekAt(i + 1).isOp("->")
		}
		if !p.peekAt(i).isOp(",") {
			return false
		}
		i++
	}
}

// lambda parses x -> body or (x, y) -> body; references to the parameters in body become
// plan.LambdaVar (x.f becomes ExtractValue(LambdaVar x, 'f')).
func (p *parser) lambda() plan.Expr {
	var params []string
	if p.acceptOp("(") {
		for !p.acceptOp(")") {
			params = append(params, p.anyIdentifier())
			p.acceptOp(",")
		}
	} else {
		params = []string{p.anyIdentifier()}
	}
	p.expectOp("->")
	body := p.expression()
	p.checkDepth(body)
	return plan.Lambda{Params: params, Body: bindLambdaVars(body, params)}
}

// param substitutes a parameter marker by its bound value.
func (p *parser) param(t token) plan.Expr {
	if t.text == "?" {
		if p.nextPos < len(p.positional) {
			e := p.positional[p.nextPos]
			p.nextPos++
			return e
		}
		p.fail(unboundParam("_" + itoa(p.nextPos+1)))
	}
	if e, ok := p.named[t.text]; ok {
		return e
	}
	p.fail(unboundParam(t.text))
	return nil
}

func unboundParam(name string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.AnalysisException, "UNBOUND_SQL_PARAMETER", "42P02",
		"Found the unbound parameter: %s. Please, fix `args` and provide a mapping of the parameter to either a SQL literal or collection constructor functions such as `map()`, `array()`, `struct()`.", name).
		WithParams("name", name)
}

func unsupported(format string, args ...any) *sparkerr.Error {
	return sparkerr.Unsupported(format, args...)
}

// parenQuery parses query ) after an opening parenthesis if a query starts here. When the query
// itself starts with '(' ("((SELECT 1) + 1)"), it is tried speculatively and ok is false (with
// nothing consumed) if the text is not a query.
func (p *parser) parenQuery() (q plan.Relation, ok bool) {
	if !p.startsQuery() {
		return nil, false
	}
	if !p.peek().isOp("(") {
		q = p.query()
		p.expectOp(")")
		return q, true
	}
	ok = p.speculate(func() {
		q = p.query()
		p.expectOp(")")
	})
	return q, ok
}

func isName(s, name string) bool { return strings.EqualFold(s, name) }

// datetimeUnits are the units of TIMESTAMPADD/TIMESTAMPDIFF.
var datetimeUnits = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "DAYOFYEAR": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true,
}

// hasInnerIgnoreNulls reports whether the parenthesised argument list starting at the next
// token but one ends with IGNORE NULLS (first(x IGNORE NULLS)).
func (p *parser) hasInnerIgnoreNulls() bool {
	depth := 0
	for i := 1; ; i++ {
		t := p.peekAt(i)
		switch {
		case t.kind == tokEOF:
			return false
		case t.isOp("(") || t.isOp("["):
			depth++
		case t.isOp(")") || t.isOp("]"):
			depth--
			if depth == 0 {
				return p.peekAt(i-2).is("IGNORE") && p.peekAt(i-1).is("NULLS")
			}
		}
	}
}

func (p *parser) expectSeq(kws ...string) {
	for _, kw := range kws {
		p.expect(kw)
	}
}
