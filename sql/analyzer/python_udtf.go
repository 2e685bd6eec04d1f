package analyzer

import (
	"context"
	"fmt"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Python table functions (@udtf): a call used as a relation, or a registered UDTF called in
// FROM, is a logical.PythonUDTF over one empty row, its arguments bound there (so they read no
// column), its output the return type's fields (Spark's Generate of a PythonUDTF over
// OneRowRelation). A registered UDTF called in a lateral join (FROM t, LATERAL f(t.a); t JOIN
// LATERAL f(a)) is a logical.PythonUDTF over t: its arguments read t's columns per row and each
// returned row follows its input row's columns, as Spark's Generate of the UDTF over t; so is
// df.lateralJoin(udtf_obj(col("a").outer())) (plan.PythonTableFunction with an Input).

// The UDTF eval types the analyzer places (pyspark.util.PythonEvalType).
const (
	evalTableUDF      = 300
	evalArrowTableUDF = 301
)

func (a *Analyzer) resolvePythonTableFunction(ctx context.Context, n *plan.PythonTableFunction) (*resolved, error) {
	var input plan.Relation = &plan.Values{Rows: [][]plan.Expr{{}}}
	if n.Input != nil {
		input = n.Input
	}
	in, err := a.resolve(ctx, input)
	if err != nil {
		return nil, err
	}
	return a.pythonUDTFCall(ctx, in, n.Func, n.Alias, nil)
}

// pythonTableFunctionCall is a registered UDTF f called in FROM as n (f(args) [AS alias(names)]).
func (a *Analyzer) pythonTableFunctionCall(ctx context.Context, in *resolved, f *plan.PythonUDTF, n *plan.Generate) (*resolved, error) {
	if n.Generator.Distinct || n.Generator.Filter != nil {
		return nil, sparkerr.Unsupported("DISTINCT or FILTER in a call of the Python table function %q", f.Name)
	}
	u := *f
	u.Args, u.ArgNames = n.Generator.Args, n.Generator.ArgNames
	if len(in.cols) > 0 && hasTableArgument(u.Args) {
		// A call with a TABLE argument reads no column of the lateral join's left side (Spark's
		// lateral join of it is a cross join with the call's rows). Spark refuses it for a
		// non-deterministic UDTF over a left side of more than one row
		// (NON_DETERMINISTIC_LATERAL_SUBQUERIES); Weir does not check that.
		call := &plan.Generate{Input: &plan.Values{Rows: [][]plan.Expr{{}}}, Generator: n.Generator,
			Alias: n.Alias, ColumnNames: n.ColumnNames, TableFunction: true}
		return a.resolve(ctx, &plan.Join{Left: n.Input, Right: call, Type: plan.CrossJoin})
	}
	return a.pythonUDTFCall(ctx, in, &u, n.Alias, n.ColumnNames)
}

func hasTableArgument(args []plan.Expr) bool {
	for _, arg := range args {
		if _, ok := arg.(*plan.TableArgument); ok {
			return true
		}
	}
	return false
}

// pythonUDTFCall runs the UDTF call u over in's rows, or over its TABLE argument's when it has
// one.
func (a *Analyzer) pythonUDTFCall(ctx context.Context, in *resolved, u *plan.PythonUDTF, alias string, aliases []string) (*resolved, error) {
	table := -1
	count := 0
	for i, arg := range u.Args {
		if _, ok := arg.(*plan.TableArgument); ok {
			table = i
			count++
		}
	}
	if count > 1 && !a.AllowMultipleTableArguments {
		return nil, sparkerr.Analysis("TABLE_VALUED_FUNCTION_TOO_MANY_TABLE_ARGUMENTS", "54023",
			"There are too many table arguments for table-valued function.\nIt allows one table argument, but got: %d.\nIf you want to allow it, please set \"spark.sql.allowMultipleTableArguments.enabled\" to \"true\"",
			count).WithParams("num", fmt.Sprint(count))
	}
	if table >= 0 && len(in.cols) > 0 {
		return nil, sparkerr.Unsupported("a TABLE argument of the Python table function %q in a lateral join", u.Name)
	}
	var sel []PythonUDTFSelected
	if u.ReturnType == nil {
		var err error
		one := table
		if count > 1 {
			one = -1 // analyze's requests would apply to no single TABLE argument
		}
		if u, sel, err = a.analyzePythonUDTF(ctx, in, u, one); err != nil {
			return nil, err
		}
	}
	switch {
	case count > 1:
		return a.pythonUDTFOverTables(ctx, u, alias, aliases)
	case table >= 0:
		return a.pythonUDTFOverTable(ctx, u, table, sel, alias, aliases)
	}
	return a.pythonUDTFOver(in, u, alias, aliases)
}

// pythonUDTFOverTables runs the UDTF call u with several TABLE arguments
// (spark.sql.tvf.allowMultipleTableArguments.enabled) over the cross join of their tables, as
// Spark does: each argument is a row of its table as a struct. Their PARTITION BY, WITH SINGLE
// PARTITION and ORDER BY clauses are not supported.
func (a *Analyzer) pythonUDTFOverTables(ctx context.Context, u *plan.PythonUDTF, alias string, aliases []string) (*resolved, error) {
	var input plan.Relation
	args := append([]plan.Expr(nil), u.Args...)
	for i, arg := range u.Args {
		ta, ok := arg.(*plan.TableArgument)
		if !ok {
			continue
		}
		if len(ta.PartitionBy) > 0 || ta.SinglePartition || len(ta.OrderBy) > 0 {
			return nil, sparkerr.Unsupported("PARTITION BY, WITH SINGLE PARTITION or ORDER BY in a call of the Python table function %q with several TABLE arguments", u.Name)
		}
		src, err := a.resolve(ctx, ta.Input)
		if err != nil {
			return nil, err
		}
		var fields []plan.Expr
		for _, c := range src.cols {
			fields = append(fields, plan.Lit(c.name, sqltypes.StringType), plan.Col(c.name))
		}
		name := fmt.Sprintf("udtf_table_%d", i)
		var side plan.Relation = &plan.Project{Input: ta.Input,
			Exprs: []plan.Expr{plan.Alias{Child: plan.Fn("named_struct", fields...), Names: []string{name}}}}
		if input == nil {
			input = side
		} else {
			input = &plan.Join{Left: input, Right: side, Type: plan.CrossJoin}
		}
		args[i] = plan.Col(name)
	}
	in, err := a.resolve(ctx, input)
	if err != nil {
		return nil, err
	}
	c := *u
	c.Args = args
	r, err := a.pythonUDTFOver(in, &c, alias, aliases)
	if err != nil {
		return nil, err
	}
	out := make([]expr.Expr, 0, len(r.cols)-len(in.cols))
	for i := len(in.cols); i < len(r.cols); i++ {
		out = append(out, r.ref(i))
	}
	return r.project(out), nil
}

// pythonUDTFOverTable runs the UDTF call u whose argument table is a TABLE argument over that
// argument's rows, as Spark does: the argument is each row as a struct of the table's columns
// (or of the expressions sel its analyze method selected from them); with PARTITION BY the rows
// are hash-partitioned by the partitioning expressions (appended to the struct as
// partition_by_<i> fields, which the worker compares between consecutive rows to restart the
// handler and removes before eval) and sorted within partitions by them and ORDER BY; WITH
// SINGLE PARTITION puts them in one partition, sorted by ORDER BY. The output is the function's
// columns only.
func (a *Analyzer) pythonUDTFOverTable(ctx context.Context, u *plan.PythonUDTF, table int, sel []PythonUDTFSelected, alias string, aliases []string) (*resolved, error) {
	ta := u.Args[table].(*plan.TableArgument)
	src, err := a.resolve(ctx, ta.Input)
	if err != nil {
		return nil, err
	}
	selExprs, selNames, err := selectedTableColumns(sel)
	if err != nil {
		return nil, err
	}
	input := ta.Input
	// The struct's fields (name, value pairs): the table's columns, or the selected expressions
	// (hidden columns udtf_select_<i>), then the partitioning values.
	var fields []plan.Expr
	if len(sel) == 0 {
		for _, c := range src.cols {
			fields = append(fields, plan.Lit(c.name, sqltypes.StringType), plan.Col(c.name))
		}
	}
	exprs := []plan.Expr{plan.Star{}}
	for i, e := range selExprs {
		name := fmt.Sprintf("udtf_select_%d", i)
		exprs = append(exprs, plan.Alias{Child: e, Names: []string{name}})
		fields = append(fields, plan.Lit(selNames[i], sqltypes.StringType), plan.Col(name))
	}
	var partIdx []int
	switch {
	case len(ta.PartitionBy) > 0:
		var keys []plan.Expr
		var order []plan.SortOrder
		for i, p := range ta.PartitionBy {
			name := fmt.Sprintf("partition_by_%d", i)
			exprs = append(exprs, plan.Alias{Child: p, Names: []string{name}})
			keys = append(keys, plan.Col(name))
			order = append(order, plan.SortOrder{Child: plan.Col(name), NullsFirst: true})
			partIdx = append(partIdx, len(fields)/2)
			fields = append(fields, plan.Lit(name, sqltypes.StringType), plan.Col(name))
		}
		input = &plan.Project{Input: input, Exprs: exprs}
		input = &plan.Repartition{Input: input, Exprs: keys}
		input = &plan.Sort{Input: input, Order: append(order, ta.OrderBy...)}
	case ta.SinglePartition:
		if len(exprs) > 1 {
			input = &plan.Project{Input: input, Exprs: exprs}
		}
		input = &plan.Repartition{Input: input, NumPartitions: 1, Shuffle: true}
		if len(ta.OrderBy) > 0 {
			input = &plan.Sort{Input: input, Order: ta.OrderBy}
		}
	case len(exprs) > 1:
		input = &plan.Project{Input: input, Exprs: exprs}
	}
	in, err := a.resolve(ctx, input)
	if err != nil {
		return nil, err
	}
	args := append([]plan.Expr(nil), u.Args...)
	args[table] = plan.Fn("named_struct", fields...)
	c := *u
	c.Args = args
	r, err := a.pythonUDTFOver(in, &c, alias, aliases)
	if err != nil {
		return nil, err
	}
	r.node.(*logical.PythonUDTF).PartitionChildIndexes = partIdx
	out := make([]expr.Expr, 0, len(r.cols)-len(in.cols))
	for i := len(in.cols); i < len(r.cols); i++ {
		out = append(out, r.ref(i))
	}
	return r.project(out), nil
}

// pythonUDTFOver runs the UDTF call u over in's rows, its columns named aliases (else the
// return type's field names) and qualified by alias.
func (a *Analyzer) pythonUDTFOver(in *resolved, u *plan.PythonUDTF, alias string, aliases []string) (*resolved, error) {
	if u.EvalType != evalTableUDF && u.EvalType != evalArrowTableUDF {
		return nil, sparkerr.Analysis("INVALID_UDF_EVAL_TYPE", "42000",
			"The Python table function %s is of eval type %d, which Weir does not run (SQL_TABLE_UDF or SQL_ARROW_TABLE_UDF).",
			u.Name, u.EvalType).WithParams("evalType", fmt.Sprint(u.EvalType))
	}
	if u.ReturnType == nil {
		return nil, sparkerr.Internal("the Python UDTF %q has no return type after analysis", u.Name)
	}
	// Bind the arguments as a Python function's (stars expand, keyword names kept).
	call := &plan.PythonUDF{Name: u.Name, PythonFunction: u.PythonFunction, OutputType: *u.ReturnType,
		Deterministic: u.Deterministic, Args: u.Args, ArgNames: u.ArgNames}
	f, err := a.bindPythonFunc(a.binderOver(in), call)
	if err != nil {
		return nil, err
	}
	fields := u.ReturnType.Fields
	names, err := tableFunctionNames(fields, aliases)
	if err != nil {
		return nil, err
	}
	var q []string
	if alias != "" {
		q = []string{alias}
	}
	cols := append([]column(nil), in.cols...)
	for i, fl := range fields {
		cols = append(cols, column{name: names[i], qualifier: q, typ: fl.Type, nullable: fl.Nullable})
	}
	return &resolved{node: &logical.PythonUDTF{Input: in.node, Func: f, Names: names, AnalyzeResult: u.AnalyzeResult}, cols: cols}, nil
}
