package sql

import (
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sqltypes"
)

// ParseStatement parses one SQL statement. A query (SELECT, WITH, VALUES, TABLE, FROM …) is
// returned as plan.Query{Input: relation}; other statements as their plan.Command.
func ParseStatement(text string) (plan.Command, error) {
	return nil, sparkerr.Unsupported("SQL parser not built yet")
}

// ParseExpression parses a standalone expression, possibly with an alias ("a + 1 AS b").
func ParseExpression(text string) (plan.Expr, error) {
	return nil, sparkerr.Unsupported("SQL parser not built yet")
}

// ParseDataType parses a type string: "int", "decimal(10,2)", "array<struct<a:int,b:string>>".
func ParseDataType(text string) (sqltypes.DataType, error) {
	return sqltypes.DataType{}, sparkerr.Unsupported("SQL parser not built yet")
}

// ParseTableSchema parses "a INT, b STRING NOT NULL" (or "a:int,b:string") into a schema.
func ParseTableSchema(text string) (sqltypes.Schema, error) {
	return nil, sparkerr.Unsupported("SQL parser not built yet")
}
