package plan

import sqltypes "github.com/weirhq/weir/sql/types"

// Expr is an unresolved expression.
type Expr interface{ isExpr() }

// Literal is a constant of a known Spark type. Value uses sqltypes' Go value conventions.
type Literal struct {
	Value any
	Type  sqltypes.DataType
}

// ColumnRef names a column, possibly qualified ("t.a" is ["t","a"]; "s.f" may also be a struct
// field access). PlanID, when non-zero, pins the reference to the relation with that plan id.
type ColumnRef struct {
	Name   []string
	PlanID int64
	// IsMetadata marks a metadata column reference (Spark's getMetadataColumn); rare.
	IsMetadata bool
}

// Star is `*` or `t.*`; Target is the qualifier (empty for a bare star). PlanID as in ColumnRef.
type Star struct {
	Target []string
	PlanID int64
}

// Call is a function call or operator by Spark name (see package doc).
type Call struct {
	Name string
	Args []Expr
	// ArgNames are the names of SQL named arguments (f(a => x), Spark's
	// NamedArgumentExpression), per argument ("" for a positional one); nil when all are
	// positional.
	ArgNames []string
	Distinct bool
	// Filter is an aggregate FILTER (WHERE …) clause, or nil.
	Filter Expr
	// WithinGroup is an ordered-set aggregate's WITHIN GROUP (ORDER BY …) clause, or nil.
	WithinGroup []SortOrder
}

// Alias names an expression's output. Multi-name aliases (for generators) have several Names.
type Alias struct {
	Child    Expr
	Names    []string
	Metadata string
}

// CastMode selects cast semantics.
type CastMode uint8

// Cast modes.
const (
	CastDefault CastMode = iota // follow spark.sql.ansi.enabled
	CastLegacy                  // non-ANSI: invalid input gives NULL
	CastANSI                    // invalid input fails
	CastTry                     // try_cast: invalid input gives NULL, even in ANSI mode
)

// Cast converts Child to To. If To is unknown at translation time, TypeString holds the
// unparsed DDL type string, and the analyzer parses it.
type Cast struct {
	Child      Expr
	To         sqltypes.DataType
	TypeString string
	Mode       CastMode
}

// SortOrder is an ordering key; NullsFirst defaults per Spark: true for ascending.
type SortOrder struct {
	Child      Expr
	Descending bool
	NullsFirst bool
}

// ExtractValue is child[extraction]: struct field by name, array element by index, map value
// by key (Spark's UnresolvedExtractValue).
type ExtractValue struct {
	Child      Expr
	Extraction Expr
}

// LambdaVar is a lambda parameter reference, named.
type LambdaVar struct{ Name string }

// Lambda is a lambda function (x, y) -> body for higher-order functions.
type Lambda struct {
	Params []string
	Body   Expr
}

// ScalarSubquery is a subquery used as a value; InSubquery tests membership; Exists tests
// non-emptiness.
type ScalarSubquery struct{ Plan Relation }

// InSubquery is `values IN (subquery)`.
type InSubquery struct {
	Values []Expr
	Plan   Relation
	Not    bool
}

// Exists is `EXISTS (subquery)`.
type Exists struct {
	Plan Relation
	Not  bool
}

// WindowFrame bounds; a nil bound is UNBOUNDED, CurrentRow is a zero-offset literal.
type WindowFrame struct {
	IsRange bool // RANGE vs ROWS
	Lower   *FrameBound
	Upper   *FrameBound
}

// FrameBound is one end of a frame.
type FrameBound struct {
	CurrentRow bool
	Unbounded  bool
	Offset     Expr
}

// Window is `fn OVER (PARTITION BY … ORDER BY … frame)`.
type Window struct {
	Func        Expr
	PartitionBy []Expr
	OrderBy     []SortOrder
	Frame       *WindowFrame
}

func (Literal) isExpr()        {}
func (ColumnRef) isExpr()      {}
func (Star) isExpr()           {}
func (Call) isExpr()           {}
func (Alias) isExpr()          {}
func (Cast) isExpr()           {}
func (SortOrder) isExpr()      {}
func (ExtractValue) isExpr()   {}
func (LambdaVar) isExpr()      {}
func (Lambda) isExpr()         {}
func (ScalarSubquery) isExpr() {}
func (InSubquery) isExpr()     {}
func (Exists) isExpr()         {}
func (Window) isExpr()         {}

// Col is a convenience constructor for a ColumnRef from dotted parts.
func Col(parts ...string) ColumnRef { return ColumnRef{Name: parts} }

// Fn is a convenience constructor for a Call.
func Fn(name string, args ...Expr) Call { return Call{Name: name, Args: args} }

// Lit is a convenience constructor for a literal with an explicit type.
func Lit(v any, t sqltypes.DataType) Literal { return Literal{Value: v, Type: t} }
