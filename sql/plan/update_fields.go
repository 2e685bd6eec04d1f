package plan

// UpdateFields is Column.withField(Field, Value) and, with Value nil, Column.dropFields(Field)
// (Spark Connect's UpdateFields): Struct with the field at the dotted path Field (backquotes
// quote a name holding dots) set to Value or dropped.
type UpdateFields struct {
	Struct Expr
	Field  string
	Value  Expr
}

func (UpdateFields) isExpr() {}
