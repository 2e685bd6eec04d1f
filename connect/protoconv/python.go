package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// pythonUDF converts a CommonInlineUserDefinedFunction holding a PythonUDF. Scala and Java UDFs
// cannot run here; Python table functions (UDTFs) are a different message and refused by the
// relation conversion.
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
		return nil, sparkerr.Unsupported("Java user-defined function %q cannot run on Weir (no JVM)", f.GetFunctionName())
	}
	return nil, invalidPlan("CommonInlineUserDefinedFunction %q is missing its function", f.GetFunctionName())
}

// pythonArgs converts a Python function's arguments; NamedArgumentExpression (f(x=col)) gives
// a keyword argument. Positional arguments after keyword ones are Spark's
// UNEXPECTED_POSITIONAL_ARGUMENT, a repeated keyword DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.
func (t *translation) pythonArgs(u *plan.PythonUDF, args []*pb.Expression) error {
	named := false
	seen := map[string]bool{}
	for _, a := range args {
		key := ""
		if na, ok := a.GetExprType().(*pb.Expression_NamedArgumentExpression); ok {
			key = na.NamedArgumentExpression.GetKey()
			if key == "" {
				return invalidPlan("NamedArgumentExpression is missing key")
			}
			if seen[key] {
				return sparkerr.Analysis("DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE", "4274K",
					"Call to routine `%s` is invalid because it includes multiple argument assignments to the same parameter name `%s`. More than one named argument referred to the same parameter. Please assign a value only once.",
					u.Name, key).WithParams("routineName", "`"+u.Name+"`", "parameterName", "`"+key+"`")
			}
			seen[key] = true
			named = true
			a = na.NamedArgumentExpression.GetValue()
		} else if named {
			return sparkerr.Analysis("UNEXPECTED_POSITIONAL_ARGUMENT", "4274K",
				"Cannot invoke routine `%s` because it contains positional argument(s) following the named argument assigned to `%s`; please rearrange them so the positional arguments come first and then retry the query again.",
				u.Name, u.ArgNames[len(u.ArgNames)-1]).WithParams("routineName", "`"+u.Name+"`", "parameterName", "`"+u.ArgNames[len(u.ArgNames)-1]+"`")
		}
		x, err := t.required(a, "PythonUDF argument")
		if err != nil {
			return err
		}
		u.Args = append(u.Args, x)
		u.ArgNames = append(u.ArgNames, key)
	}
	if !named {
		u.ArgNames = nil
	}
	return nil
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
