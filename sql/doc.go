// Package sql is Weir's hand-written Spark SQL parser: a lexer, a recursive-descent parser for
// statements and queries, and a Pratt parser for expressions, following Spark's grammar
// (SqlBaseParser.g4) for the subset Weir supports. It produces package plan's unresolved
// relations, commands and expressions; it never resolves names or types.
//
// Entry points mirror Spark's ParserInterface: ParseStatement (spark.sql text), ParseExpression
// (selectExpr, expr(), filter strings), ParseDataType and ParseTableSchema (DDL type strings).
// Errors are *sparkerr.Error with Java class ParseException (PARSE_SYNTAX_ERROR and friends).
package sql
