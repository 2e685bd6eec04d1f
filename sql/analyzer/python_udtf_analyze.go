package analyzer

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// A Python UDTF declared without a return type computes it in its static analyze method, which
// Spark runs at analysis time (UnresolvedPolymorphicPythonUDTF,
// UserDefinedPythonTableFunctionAnalyzeRunner): Analyzer.AnalyzePythonUDTF runs it with each
// argument's type, its value when it is a constant expression (it reads no column and is
// deterministic: Spark's foldable), whether it is a TABLE argument and its keyword name; what it
// returns fixes the call's output schema, is handed pickled to the handler's __init__, and may
// ask for the TABLE argument's partitioning (withSinglePartition, partitionBy), ordering
// (orderBy) and columns (select), as PythonUDTFAnalyzeResult.applyToTableArgument applies them.

// PythonUDTFAnalyzeArg is one argument of a UDTF call as its analyze method receives it.
type PythonUDTFAnalyzeArg struct {
	// Type is the argument's type: for a TABLE argument, a struct of the table's columns.
	Type sqltypes.DataType
	// Value holds the value of a constant argument in its one row; nil for the others.
	Value arrow.Array
	Table bool
	// Name is a named argument's keyword ("" for a positional one).
	Name string
}

// PythonUDTFAnalyzeCall is one call of a UDTF's analyze method.
type PythonUDTFAnalyzeCall struct {
	Name string
	plan.PythonFunction
	Args []PythonUDTFAnalyzeArg
}

// PythonUDTFAnalysis is what a UDTF's analyze method returned, its SQL texts parsed.
type PythonUDTFAnalysis struct {
	// Schema is the call's output (a struct).
	Schema sqltypes.DataType
	// Pickled is the pickled AnalyzeResult the handler's __init__ receives.
	Pickled             []byte
	WithSinglePartition bool
	PartitionBy         []plan.Expr
	OrderBy             []plan.SortOrder
	// Select are the expressions over the TABLE argument's columns the handler receives
	// instead of the columns.
	Select []PythonUDTFSelected
}

// PythonUDTFSelected is one expression analyze selected from the TABLE argument.
type PythonUDTFSelected struct {
	Expr plan.Expr
	// SQL is the expression's text; Alias its name ("" when the UDTF gave none).
	SQL, Alias string
}

// analyzePythonUDTF runs u's analyze method for its call over in (table: the index of its TABLE
// argument, -1 when none) and returns the call with its return type and pickled AnalyzeResult
// set, its TABLE argument's partitioning and ordering as analyze asked, and the columns analyze
// selected from the TABLE argument (nil: all of them).
func (a *Analyzer) analyzePythonUDTF(ctx context.Context, in *resolved, u *plan.PythonUDTF, table int) (*plan.PythonUDTF, []PythonUDTFSelected, error) {
	if a.AnalyzePythonUDTF == nil {
		return nil, nil, sparkerr.Unsupported("the Python UDTF %q declares no returnType and this session runs no Python to call its analyze method", u.Name)
	}
	if err := checkArgNames(u.Name, u.ArgNames); err != nil {
		return nil, nil, err
	}
	call := &PythonUDTFAnalyzeCall{Name: u.Name, PythonFunction: u.PythonFunction}
	b := a.binderOver(in)
	for i, arg := range u.Args {
		var name string
		if u.ArgNames != nil {
			name = u.ArgNames[i]
		}
		if ta, ok := arg.(*plan.TableArgument); ok {
			src, err := a.resolve(ctx, ta.Input)
			if err != nil {
				return nil, nil, err
			}
			call.Args = append(call.Args, PythonUDTFAnalyzeArg{Type: tableArgumentType(src), Table: true, Name: name})
			continue
		}
		if _, ok := asStar(arg); ok {
			return nil, nil, sparkerr.Unsupported("a star among the arguments of the Python UDTF %q, which has an analyze method", u.Name)
		}
		x, err := b.bind(arg)
		if err != nil {
			return nil, nil, err
		}
		aa := PythonUDTFAnalyzeArg{Type: x.Type(), Name: name}
		if len(expr.ColumnsOf(x, nil)) == 0 && expr.IsDeterministic(x) {
			v, err := a.evalConstArray(x)
			if err != nil {
				return nil, nil, err
			}
			defer v.Release()
			aa.Value = v
		}
		call.Args = append(call.Args, aa)
	}
	res, err := a.AnalyzePythonUDTF(ctx, call)
	if err != nil {
		return nil, nil, err
	}
	if res.Schema.Kind != sqltypes.Struct {
		return nil, nil, sparkerr.Internal("the analyze method of the Python UDTF %q returned a %s schema", u.Name, res.Schema)
	}
	out := *u
	schema := res.Schema
	out.ReturnType = &schema
	out.AnalyzeResult = res.Pickled
	if table < 0 {
		// analyze_udtf.py refuses partitioning without a TABLE argument; select and orderBy
		// then have nothing to apply to.
		if hasTableArgument(u.Args) && (res.WithSinglePartition || len(res.PartitionBy) > 0 || len(res.OrderBy) > 0 || len(res.Select) > 0) {
			return nil, nil, sparkerr.Unsupported("the analyze method of the Python UDTF %q asks for the partitioning, ordering or columns of one of its several TABLE arguments", u.Name)
		}
		return &out, nil, nil
	}
	ta := *out.Args[table].(*plan.TableArgument)
	if err := applyAnalysisToTable(u.Name, res, &ta); err != nil {
		return nil, nil, err
	}
	out.Args = append([]plan.Expr(nil), out.Args...)
	out.Args[table] = &ta
	return &out, res.Select, nil
}

// applyAnalysisToTable is PythonUDTFAnalyzeResult.applyToTableArgument: analyze's partitioning
// and ordering replace the call's, which may not partition itself when analyze does.
func applyAnalysisToTable(name string, res *PythonUDTFAnalysis, ta *plan.TableArgument) error {
	if res.WithSinglePartition && len(res.PartitionBy) > 0 {
		return metadataInvalid(name, "the 'with_single_partition' field cannot be assigned to true if the 'partition_by' list is non-empty")
	}
	if len(res.OrderBy) > 0 && !res.WithSinglePartition && len(res.PartitionBy) == 0 {
		return metadataInvalid(name, "the 'order_by' field cannot be non-empty unless the 'with_single_partition' field is set to true or the 'partition_by' list is non-empty")
	}
	if (res.WithSinglePartition || len(res.PartitionBy) > 0) && (ta.SinglePartition || len(ta.PartitionBy) > 0) {
		const requested = "specified its own required partitioning of the input table"
		const call = "specified the WITH SINGLE PARTITION or PARTITION BY clause; please remove these clauses and retry the query again."
		return sparkerr.Analysis("TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL", "22023",
			"Failed to evaluate the table function %s because its table metadata %s, but the function call %s",
			name, requested, call).WithParams("functionName", name, "requestedMetadata", requested, "invalidFunctionCallProperty", call)
	}
	if res.WithSinglePartition {
		ta.SinglePartition = true
	}
	if len(res.PartitionBy) > 0 {
		ta.PartitionBy = res.PartitionBy
	}
	if len(res.OrderBy) > 0 {
		ta.OrderBy = res.OrderBy
	}
	return nil
}

func metadataInvalid(name, reason string) error {
	return sparkerr.Analysis("TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INVALID", "22023",
		"Failed to evaluate the table function %s because its table metadata was invalid; %s.", name, reason).
		WithParams("functionName", name, "reason", reason)
}

// tableArgumentType is the type of a TABLE argument over r: a struct of its columns.
func tableArgumentType(r *resolved) sqltypes.DataType {
	fields := make([]sqltypes.Field, len(r.cols))
	for i, c := range r.cols {
		fields[i] = sqltypes.Field{Name: c.name, Type: c.typ, Nullable: c.nullable}
	}
	return sqltypes.DataType{Kind: sqltypes.Struct, Fields: fields}
}

// evalConstArray evaluates an expression that reads no column into a one-row array.
func (a *Analyzer) evalConstArray(e expr.Expr) (arrow.Array, error) {
	ctx := &expr.Context{Mem: memory.DefaultAllocator, ANSI: a.Options.ANSI}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	return e.Eval(ctx, one)
}

// selectedTableColumns are the expressions analyze selected from a TABLE argument, each with
// the name eval's Row gives it: its alias, or the column's name for a plain column reference
// (any other expression needs an alias, as in Spark).
func selectedTableColumns(sel []PythonUDTFSelected) ([]plan.Expr, []string, error) {
	exprs := make([]plan.Expr, len(sel))
	names := make([]string, len(sel))
	for i, s := range sel {
		exprs[i], names[i] = s.Expr, s.Alias
		if s.Alias != "" {
			continue
		}
		c, ok := s.Expr.(plan.ColumnRef)
		if !ok {
			return nil, nil, sparkerr.Analysis("UDTF_INVALID_REQUESTED_SELECTED_EXPRESSION_FROM_ANALYZE_METHOD_REQUIRES_ALIAS", "42802",
				"Failed to evaluate the user-defined table function because its 'analyze' method returned a requested 'select' expression (%s) that does not include a corresponding alias; please update the UDTF to specify an alias there and then try the query again.",
				s.SQL).WithParams("expression", s.SQL)
		}
		names[i] = c.Name[len(c.Name)-1]
	}
	return exprs, names, nil
}
