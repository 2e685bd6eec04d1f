// Package expr holds resolved, typed, executable expressions with Spark semantics, and the
// function registry the analyzer binds names against.
//
// An Expr evaluates column-at-a-time over a batch of user columns (an arrow.RecordBatch without
// the flow-event _marker/_retracted columns) and returns a new array of Type() with one value per
// row; the caller releases it. Column indexes are positions in that batch, i.e. in the logical
// schema of the expression's input.
//
// Aggregate functions (AggFunc) are separate: they are evaluated by the aggregate operator through
// GroupedAccumulator, which updates per-group state from argument arrays and can retract rows, so
// streaming update/complete output can be maintained from a changelog.
//
// Errors are *sparkerr.Error: binding errors are AnalysisException (UNRESOLVED_ROUTINE,
// DATATYPE_MISMATCH.*, WRONG_NUM_ARGS…); run-time errors (ANSI casts, division by zero) carry
// Spark's runtime classes.
package expr
