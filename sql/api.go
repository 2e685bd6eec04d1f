package sql

import (
	"strings"

	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sqltypes"
)

// ParseStatement parses one SQL statement. A query (SELECT, WITH, VALUES, TABLE, FROM …) is
// returned as plan.Query{Input: relation}; other statements as their plan.Command.
func ParseStatement(text string) (plan.Command, error) {
	return ParseStatementWithParams(text, nil, nil)
}

// ParseStatementWithParams is ParseStatement with parameter markers bound: :name markers take
// their value from named and ? markers from positional, in order (spark.sql(text, args)). An
// unbound marker is UNBOUND_SQL_PARAMETER.
func ParseStatementWithParams(text string, named map[string]plan.Expr, positional []plan.Expr) (plan.Command, error) {
	p, err := newParser(text, true)
	if err != nil {
		// SET and RESET take the raw rest of the text, which need not be valid SQL tokens.
		if w := firstWord(text); w == "SET" || w == "RESET" {
			return run(func() plan.Command {
				rp := &parser{text: text, toks: []token{
					{kind: tokWord, text: w, raw: text[strings.Index(strings.ToUpper(text), w):][:len(w)], pos: strings.Index(strings.ToUpper(text), w)},
					{kind: tokEOF, pos: len(text)},
				}}
				if w == "SET" {
					return rp.setStatement()
				}
				return rp.resetStatement()
			})
		}
		return nil, err
	}
	p.named, p.positional = named, positional
	return run(p.statement)
}

// firstWord returns the upper-cased first word of text after leading whitespace.
func firstWord(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	end := 0
	for end < len(t) && isIdentByte(t[end]) {
		end++
	}
	return strings.ToUpper(t[:end])
}

// ParseExpression parses a standalone expression, possibly with an alias ("a + 1 AS b").
func ParseExpression(text string) (plan.Expr, error) {
	p, err := newParser(text, true)
	if err != nil {
		return nil, err
	}
	return run(func() plan.Expr {
		e := p.namedExpression()
		p.expectEnd()
		return p.resolveWindowRefsIn(e, nil)
	})
}

// ParseDataType parses a type string: "int", "decimal(10,2)", "array<struct<a:int,b:string>>".
func ParseDataType(text string) (sqltypes.DataType, error) {
	p, err := newParser(text, false)
	if err != nil {
		return sqltypes.DataType{}, err
	}
	return run(func() sqltypes.DataType {
		t := p.dataType()
		p.expectEnd()
		return t
	})
}

// ParseTableSchema parses "a INT, b STRING NOT NULL" (or "a:int,b:string", or
// "struct<a:int,b:string>") into a schema.
func ParseTableSchema(text string) (sqltypes.Schema, error) {
	p, err := newParser(text, false)
	if err != nil {
		return nil, err
	}
	return run(func() sqltypes.Schema {
		if p.peek().is("STRUCT") && p.peekAt(1).isOp("<") {
			t := p.dataType()
			p.expectEnd()
			return sqltypes.Schema(t.Fields)
		}
		if p.atEnd() {
			return sqltypes.Schema{}
		}
		fields := p.columns()
		p.expectEnd()
		return sqltypes.Schema(fields)
	})
}
