package parser

import (
	"context"

	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
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
	return ParseStatementContext(context.Background(), text, named, positional)
}

// ParseStatementContext is ParseStatementWithParams that stops with ctx's error soon after
// ctx is done (the lexer and parser check it every checkEvery steps).
func ParseStatementContext(ctx context.Context, text string, named map[string]plan.Expr, positional []plan.Expr) (plan.Command, error) {
	p, err := newParserContext(ctx, text, true)
	if err != nil {
		// SET and RESET take the raw rest of the text, which need not consist of SQL tokens.
		l := lexer{src: text}
		if first, ferr := l.next(); ferr == nil && (first.is("SET") || first.is("RESET")) {
			rp := &parser{text: text, toks: []token{first, {kind: tokEOF, pos: len(text)}}}
			if first.is("SET") {
				return run(rp.setStatement)
			}
			return run(rp.resetStatement)
		}
		return nil, err
	}
	p.named, p.positional = named, positional
	return run(func() plan.Command {
		cmd := p.statement()
		p.checkWindowRefs()
		p.relationDepth(cmd)
		return cmd
	})
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
		p.relationDepth(e)
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

// ParseDDL parses a DDL type string the way Spark's DataType.fromDDL does: as a data type
// ("int", "struct<a:int>"), or else as a table schema ("a int, b string"), which becomes a
// struct type. If both fail, the data type error is returned.
func ParseDDL(text string) (sqltypes.DataType, error) {
	t, err := ParseDataType(text)
	if err == nil {
		return t, nil
	}
	if s, serr := ParseTableSchema(text); serr == nil {
		return s.AsStruct(), nil
	}
	return sqltypes.DataType{}, err
}

// ParseMultipartIdentifier splits a possibly qualified, possibly backquoted name such as
// db.`my table` into its parts (spark.table, DataFrameReader.table, Catalog APIs).
func ParseMultipartIdentifier(text string) ([]string, error) {
	p, err := newParser(text, false)
	if err != nil {
		return nil, err
	}
	return run(func() []string {
		parts := []string{p.anyIdentifier()}
		for p.acceptOp(".") {
			parts = append(parts, p.anyIdentifier())
		}
		p.expectEnd()
		return parts
	})
}
