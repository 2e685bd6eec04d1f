package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// pythonUDF converts a CommonInlineUserDefinedFunction holding a PythonUDF. Scala and Java UDFs
// cannot run here; Python table functions (UDTFs) are a different message (pythonUDTF).
func (t *translation) pythonUDF(f *pb.CommonInlineUserDefinedFunction) (*plan.PythonUDF, error) {
	if f == nil {
		return nil, invalidPlan("CommonInlineUserDefinedFunction is missing")
	}
	switch fn := f.Function.(type) {
	case *pb.CommonInlineUserDefinedFunction_PythonUdf:
		p := fn.PythonUdf
		if p == nil || len(p.GetCommand()) == 0 {
			return nil, invalidPlan("PythonUDF is missing command")
		}
		if p.GetOutputType() == nil {
			return nil, invalidPlan("PythonUDF is missing output_type")
		}
		out, err := DataTypeFromProto(p.GetOutputType())
		if err != nil {
			return nil, err
		}
		if f.GetIsDistinct() {
			return nil, sparkerr.Unsupported("DISTINCT in a call of the Python function %q is not supported", f.GetFunctionName())
		}
		u := &plan.PythonUDF{Name: f.GetFunctionName(), PythonFunction: *PythonFunction(p), OutputType: out,
			Deterministic: f.GetDeterministic()}
		if err := t.pythonArgs(u, f.GetArguments()); err != nil {
			return nil, err
		}
		return u, nil
	case *pb.CommonInlineUserDefinedFunction_ScalarScalaUdf:
		return nil, sparkerr.Unsupported("Scala user-defined function %q cannot run on Weir (no JVM)", f.GetFunctionName())
	case *pb.CommonInlineUserDefinedFunction_JavaUdf:
		// Weir has no JVM, so no class is on its classpath: Spark's error for a class it cannot
		// load (registerJavaFunction / registerJavaUDAF of a missing class).
		name := fn.JavaUdf.GetClassName()
		return nil, sparkerr.Newf(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1329", "",
			"Can not load class %s, please make sure it is on the classpath.", name).WithParams("className", name)
	}
	return nil, invalidPlan("CommonInlineUserDefinedFunction %q is missing its function", f.GetFunctionName())
}

// pythonArgs converts a Python function's arguments into u.Args and u.ArgNames.
func (t *translation) pythonArgs(u *plan.PythonUDF, args []*pb.Expression) error {
	var err error
	u.Args, u.ArgNames, err = t.pythonCallArgs(u.Name, args)
	return err
}

// pythonCallArgs converts the arguments of a call of the Python function (or table function)
// name; NamedArgumentExpression (f(x=col)) gives a keyword argument. Positional arguments after
// keyword ones are Spark's UNEXPECTED_POSITIONAL_ARGUMENT, a repeated keyword
// DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT. The names are nil when all arguments are positional.
func (t *translation) pythonCallArgs(name string, args []*pb.Expression) ([]plan.Expr, []string, error) {
	var xs []plan.Expr
	var names []string
	named := false
	seen := map[string]bool{}
	for _, a := range args {
		key := ""
		if na, ok := a.GetExprType().(*pb.Expression_NamedArgumentExpression); ok {
			key = na.NamedArgumentExpression.GetKey()
			if key == "" {
				return nil, nil, invalidPlan("NamedArgumentExpression is missing key")
			}
			if seen[key] {
				return nil, nil, sparkerr.Analysis("DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE", "4274K",
					"Call to routine `%s` is invalid because it includes multiple argument assignments to the same parameter name `%s`. More than one named argument referred to the same parameter. Please assign a value only once.",
					name, key).WithParams("routineName", "`"+name+"`", "parameterName", "`"+key+"`")
			}
			seen[key] = true
			named = true
			a = na.NamedArgumentExpression.GetValue()
		} else if named {
			last := names[len(names)-1]
			return nil, nil, sparkerr.Analysis("UNEXPECTED_POSITIONAL_ARGUMENT", "4274K",
				"Cannot invoke routine `%s` because it contains positional argument(s) following the named argument assigned to `%s`; please rearrange them so the positional arguments come first and then retry the query again.",
				name, last).WithParams("routineName", "`"+name+"`", "parameterName", "`"+last+"`")
		}
		x, err := t.required(a, "Python function argument")
		if err != nil {
			return nil, nil, err
		}
		xs = append(xs, x)
		names = append(names, key)
	}
	if !named {
		names = nil
	}
	return xs, names, nil
}

// pythonUDTF converts a CommonInlineUserDefinedTableFunction (a call of a Python UDTF). The
// eval types Weir runs are SQL_TABLE_UDF and SQL_ARROW_TABLE_UDF; a handler without a declared
// return type (its analyze method computes it, which needs pyspark.sql.worker.analyze_udtf) and
// PyArrow-native UDTFs (@arrow_udtf, SQL_ARROW_UDTF) are refused.
func (t *translation) pythonUDTF(f *pb.CommonInlineUserDefinedTableFunction) (*plan.PythonUDTF, error) {
	if f == nil {
		return nil, invalidPlan("CommonInlineUserDefinedTableFunction is missing")
	}
	p := f.GetPythonUdtf()
	if p == nil || len(p.GetCommand()) == 0 {
		return nil, invalidPlan("CommonInlineUserDefinedTableFunction %q is missing its PythonUDTF command", f.GetFunctionName())
	}
	switch p.GetEvalType() {
	case udtfEvalType, arrowUDTFEvalType:
	case pyarrowUDTFEvalType:
		return nil, sparkerr.Unsupported("the PyArrow-native Python UDTF %q (@arrow_udtf, eval type %d) is not supported; use @udtf", f.GetFunctionName(), p.GetEvalType())
	default:
		return nil, sparkerr.Analysis("INVALID_UDTF_EVAL_TYPE", "42000",
			"The eval type of the UDTF '%s' is invalid. It must be one of 'SQL_TABLE_UDF, SQL_ARROW_TABLE_UDF'.",
			f.GetFunctionName()).WithParams("name", f.GetFunctionName(), "eval_type", "SQL_TABLE_UDF, SQL_ARROW_TABLE_UDF")
	}
	u := &plan.PythonUDTF{Name: f.GetFunctionName(), Deterministic: f.GetDeterministic(),
		PythonFunction: plan.PythonFunction{Command: p.GetCommand(), PythonVer: p.GetPythonVer(), EvalType: p.GetEvalType()}}
	if p.ReturnType != nil {
		rt, err := DataTypeFromProto(p.GetReturnType())
		if un, ok := p.GetReturnType().GetKind().(*pb.DataType_Unparsed_); ok {
			// A returnType string is a DDL schema ("a: int, b: string") as often as a type.
			rt, err = parser.ParseDDL(un.Unparsed.GetDataTypeString())
		}
		if err != nil {
			return nil, err
		}
		if rt.Kind != sqltypes.Struct {
			return nil, invalidPlan("Invalid Python user-defined table function return type. Expect a struct type, but got %s.", rt.SQL())
		}
		u.ReturnType = &rt
	}
	var err error
	if u.Args, u.ArgNames, err = t.pythonCallArgs(u.Name, f.GetArguments()); err != nil {
		return nil, err
	}
	return u, nil
}

// The UDTF eval types (pyspark.util.PythonEvalType).
const (
	udtfEvalType        = 300 // SQL_TABLE_UDF
	arrowUDTFEvalType   = 301 // SQL_ARROW_TABLE_UDF
	pyarrowUDTFEvalType = 302 // SQL_ARROW_UDTF
)

// pythonTableFunction is a Python UDTF call as a DataFrame (udtf_obj(lit(1), …)).
func (t *translation) pythonTableFunction(f *pb.CommonInlineUserDefinedTableFunction) (plan.Relation, error) {
	u, err := t.pythonUDTF(f)
	if err != nil {
		return nil, err
	}
	return &plan.PythonTableFunction{Func: u}, nil
}

// lateralJoin is df.lateralJoin(right[, on][, how]). The right side Weir runs is a Python UDTF
// call (optionally aliased), whose arguments read the left side's columns (col.outer() sends a
// plain column reference): a plan.PythonTableFunction over the left side, the condition a
// Filter over it. Spark 4.2 answers a left lateral join without condition as the inner one,
// and so does Weir; with a condition it null-pads rejected rows, which Weir refuses, as it does
// a right side that is not a UDTF call (a subquery with outer references).
func (t *translation) lateralJoin(j *pb.LateralJoin) (plan.Relation, error) {
	left, err := t.input(j.GetLeft(), "LateralJoin left")
	if err != nil {
		return nil, err
	}
	right, err := t.input(j.GetRight(), "LateralJoin right")
	if err != nil {
		return nil, err
	}
	var alias string
	if a, ok := right.(*plan.SubqueryAlias); ok && len(a.ColumnNames) == 0 {
		alias, right = a.Alias, a.Input
	}
	f, ok := right.(*plan.PythonTableFunction)
	if !ok || f.Input != nil {
		return nil, sparkerr.Unsupported("lateralJoin with a right side other than a Python UDTF call (lateral subqueries)")
	}
	switch j.GetJoinType() {
	case pb.Join_JOIN_TYPE_INNER, pb.Join_JOIN_TYPE_CROSS:
	case pb.Join_JOIN_TYPE_LEFT_OUTER:
		if j.GetJoinCondition() != nil {
			return nil, sparkerr.Unsupported("a left lateralJoin with a join condition; use an inner lateralJoin with the condition, or filter its rows")
		}
	default:
		return nil, invalidPlan("LateralJoin has an unsupported join_type %s", j.GetJoinType())
	}
	out := &plan.PythonTableFunction{RelCommon: f.RelCommon, Func: f.Func, Input: left, Alias: alias}
	if j.GetJoinCondition() == nil {
		return out, nil
	}
	cond, err := t.expr(j.GetJoinCondition())
	if err != nil {
		return nil, err
	}
	return &plan.Filter{Input: out, Condition: cond}, nil
}

// registerTableFunction is spark.udtf.register (the RegisterTableFunction command).
func (t *translation) registerTableFunction(f *pb.CommonInlineUserDefinedTableFunction) (plan.Command, error) {
	if f.GetFunctionName() == "" {
		return nil, invalidPlan("CommonInlineUserDefinedTableFunction is missing function_name")
	}
	u, err := t.pythonUDTF(f)
	if err != nil {
		return nil, err
	}
	return plan.RegisterPythonTableFunction{Func: u}, nil
}

// mapPartitions is mapInPandas / mapInArrow.
func (t *translation) mapPartitions(m *pb.MapPartitions) (plan.Relation, error) {
	in, err := t.input(m.GetInput(), "MapPartitions")
	if err != nil {
		return nil, err
	}
	f, err := t.pythonUDF(m.GetFunc())
	if err != nil {
		return nil, err
	}
	return &plan.MapInPython{Input: in, Func: f, IsBarrier: m.GetIsBarrier()}, nil
}

// groupMap is groupBy(...).applyInPandas / applyInArrow. The stateful forms
// (applyInPandasWithState, transformWithState: state schema, initial state or timeouts) are
// refused.
func (t *translation) groupMap(g *pb.GroupMap) (plan.Relation, error) {
	if g == nil {
		return nil, invalidPlan("GroupMap is empty")
	}
	if g.IsMapGroupsWithState != nil || g.StateSchema != nil || g.InitialInput != nil || g.TransformWithStateInfo != nil {
		return nil, sparkerr.Unsupported("GroupMap with state (mapGroupsWithState, applyInPandasWithState, transformWithState) is not supported")
	}
	if len(g.GetSortingExpressions()) > 0 {
		return nil, sparkerr.Unsupported("GroupMap with sorting expressions is not supported")
	}
	in, err := t.input(g.GetInput(), "GroupMap")
	if err != nil {
		return nil, err
	}
	keys, err := t.expressions(g.GetGroupingExpressions())
	if err != nil {
		return nil, err
	}
	f, err := t.pythonUDF(g.GetFunc())
	if err != nil {
		return nil, err
	}
	return &plan.GroupMapInPython{Input: in, Grouping: keys, Func: f}, nil
}

// coGroupMap is groupBy(...).cogroup(other.groupBy(...)).applyInPandas / applyInArrow.
func (t *translation) coGroupMap(g *pb.CoGroupMap) (plan.Relation, error) {
	if len(g.GetInputSortingExpressions()) > 0 || len(g.GetOtherSortingExpressions()) > 0 {
		return nil, sparkerr.Unsupported("CoGroupMap with sorting expressions is not supported")
	}
	left, err := t.input(g.GetInput(), "CoGroupMap")
	if err != nil {
		return nil, err
	}
	right, err := t.input(g.GetOther(), "CoGroupMap other")
	if err != nil {
		return nil, err
	}
	lk, err := t.expressions(g.GetInputGroupingExpressions())
	if err != nil {
		return nil, err
	}
	rk, err := t.expressions(g.GetOtherGroupingExpressions())
	if err != nil {
		return nil, err
	}
	f, err := t.pythonUDF(g.GetFunc())
	if err != nil {
		return nil, err
	}
	return &plan.CoGroupMapInPython{Left: left, Right: right, LeftGrouping: lk, RightGrouping: rk, Func: f}, nil
}

// registerFunction is spark.udf.register of a Python function (the RegisterFunction command).
func (t *translation) registerFunction(f *pb.CommonInlineUserDefinedFunction) (plan.Command, error) {
	if f.GetFunctionName() == "" {
		return nil, invalidPlan("CommonInlineUserDefinedFunction is missing function_name")
	}
	u, err := t.pythonUDF(f)
	if err != nil {
		return nil, err
	}
	return plan.RegisterPythonFunction{Func: u}, nil
}
