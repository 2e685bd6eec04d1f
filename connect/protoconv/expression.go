package protoconv

import (
	"regexp"
	"strings"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql"
)

// Expression converts a Spark Connect expression to an unresolved plan expression.
func Expression(e *pb.Expression) (plan.Expr, error) {
	if e == nil || e.ExprType == nil {
		return nil, invalidPlan("Expression is missing expr_type")
	}
	switch x := e.ExprType.(type) {
	case *pb.Expression_Literal_:
		return Literal(x.Literal)
	case *pb.Expression_UnresolvedAttribute_:
		return attribute(x.UnresolvedAttribute)
	case *pb.Expression_UnresolvedStar_:
		return star(x.UnresolvedStar)
	case *pb.Expression_UnresolvedFunction_:
		f := x.UnresolvedFunction
		if f.GetFunctionName() == "" {
			return nil, invalidPlan("UnresolvedFunction is missing function_name")
		}
		args, err := expressions(f.GetArguments())
		if err != nil {
			return nil, err
		}
		return plan.Call{Name: f.GetFunctionName(), Args: args, Distinct: f.GetIsDistinct()}, nil
	case *pb.Expression_CallFunction:
		f := x.CallFunction
		if f.GetFunctionName() == "" {
			return nil, invalidPlan("CallFunction is missing function_name")
		}
		args, err := expressions(f.GetArguments())
		if err != nil {
			return nil, err
		}
		return plan.Call{Name: f.GetFunctionName(), Args: args}, nil
	case *pb.Expression_ExpressionString_:
		return sql.ParseExpression(x.ExpressionString.GetExpression())
	case *pb.Expression_Alias_:
		return alias(x.Alias)
	case *pb.Expression_Cast_:
		return cast(x.Cast)
	case *pb.Expression_SortOrder_:
		return sortOrder(x.SortOrder)
	case *pb.Expression_UnresolvedRegex_:
		return regex(x.UnresolvedRegex)
	case *pb.Expression_UnresolvedExtractValue_:
		child, err := required(x.UnresolvedExtractValue.GetChild(), "UnresolvedExtractValue.child")
		if err != nil {
			return nil, err
		}
		extraction, err := required(x.UnresolvedExtractValue.GetExtraction(), "UnresolvedExtractValue.extraction")
		if err != nil {
			return nil, err
		}
		return plan.ExtractValue{Child: child, Extraction: extraction}, nil
	case *pb.Expression_LambdaFunction_:
		return lambda(x.LambdaFunction)
	case *pb.Expression_UnresolvedNamedLambdaVariable_:
		return lambdaVar(x.UnresolvedNamedLambdaVariable)
	case *pb.Expression_Window_:
		return window(x.Window)
	case *pb.Expression_UpdateFields_:
		return nil, sparkerr.Unsupported("expression type UpdateFields (Column.withField / dropFields) is not supported")
	case *pb.Expression_CommonInlineUserDefinedFunction:
		return nil, sparkerr.Unsupported("expression type CommonInlineUserDefinedFunction (user-defined function %q) is not supported",
			x.CommonInlineUserDefinedFunction.GetFunctionName())
	}
	return nil, sparkerr.Unsupported("expression type %s is not supported", oneofCase(e, "expr_type"))
}

// required converts a sub-expression that must be present.
func required(e *pb.Expression, what string) (plan.Expr, error) {
	if e == nil {
		return nil, invalidPlan("%s is missing", what)
	}
	return Expression(e)
}

func expressions(es []*pb.Expression) ([]plan.Expr, error) {
	if len(es) == 0 {
		return nil, nil
	}
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		x, err := Expression(e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func attribute(a *pb.Expression_UnresolvedAttribute) (plan.Expr, error) {
	if a == nil {
		a = &pb.Expression_UnresolvedAttribute{}
	}
	parts, err := SplitIdentifier(a.GetUnparsedIdentifier())
	if err != nil {
		return nil, err
	}
	return plan.ColumnRef{Name: parts, PlanID: PlanIDFromClient(a.PlanId), IsMetadata: a.GetIsMetadataColumn()}, nil
}

func star(s *pb.Expression_UnresolvedStar) (plan.Expr, error) {
	if s == nil {
		s = &pb.Expression_UnresolvedStar{}
	}
	st := plan.Star{PlanID: PlanIDFromClient(s.PlanId)}
	if s.UnparsedTarget == nil {
		return st, nil
	}
	target := s.GetUnparsedTarget()
	if !strings.HasSuffix(target, ".*") {
		return nil, invalidPlan("UnresolvedStar requires a unparsed target ending with '.*', but got %s.", target)
	}
	parts, err := SplitIdentifier(strings.TrimSuffix(target, ".*"))
	if err != nil {
		return nil, err
	}
	st.Target = parts
	return st, nil
}

func alias(a *pb.Expression_Alias) (plan.Alias, error) {
	if a == nil {
		a = &pb.Expression_Alias{}
	}
	child, err := required(a.GetExpr(), "Alias.expr")
	if err != nil {
		return plan.Alias{}, err
	}
	if len(a.GetName()) == 0 {
		return plan.Alias{}, invalidPlan("Alias is missing name")
	}
	if a.Metadata != nil && len(a.GetName()) > 1 {
		return plan.Alias{}, invalidPlan("Alias expressions with more than 1 identifier must not use optional metadata.")
	}
	return plan.Alias{Child: child, Names: append([]string(nil), a.GetName()...), Metadata: a.GetMetadata()}, nil
}

func cast(c *pb.Expression_Cast) (plan.Expr, error) {
	if c == nil {
		c = &pb.Expression_Cast{}
	}
	child, err := required(c.GetExpr(), "Cast.expr")
	if err != nil {
		return nil, err
	}
	out := plan.Cast{Child: child}
	switch t := c.CastToType.(type) {
	case *pb.Expression_Cast_Type:
		if out.To, err = DataTypeFromProto(t.Type); err != nil {
			return nil, err
		}
	case *pb.Expression_Cast_TypeStr:
		if t.TypeStr == "" {
			return nil, invalidPlan("Cast.type_str is empty")
		}
		out.TypeString = t.TypeStr
	default:
		return nil, invalidPlan("Cast is missing cast_to_type")
	}
	switch c.GetEvalMode() {
	case pb.Expression_Cast_EVAL_MODE_LEGACY:
		out.Mode = plan.CastLegacy
	case pb.Expression_Cast_EVAL_MODE_ANSI:
		out.Mode = plan.CastANSI
	case pb.Expression_Cast_EVAL_MODE_TRY:
		out.Mode = plan.CastTry
	case pb.Expression_Cast_EVAL_MODE_UNSPECIFIED:
		out.Mode = plan.CastDefault
	default:
		return nil, invalidPlan("unknown Cast eval_mode %d", c.GetEvalMode())
	}
	return out, nil
}

// sortOrder converts an ordering; unspecified direction is ascending and unspecified null
// ordering follows Spark (ascending: nulls first, descending: nulls last).
func sortOrder(s *pb.Expression_SortOrder) (plan.SortOrder, error) {
	if s == nil {
		return plan.SortOrder{}, invalidPlan("SortOrder is missing")
	}
	child, err := required(s.GetChild(), "SortOrder.child")
	if err != nil {
		return plan.SortOrder{}, err
	}
	out := plan.SortOrder{Child: child}
	switch s.GetDirection() {
	case pb.Expression_SortOrder_SORT_DIRECTION_UNSPECIFIED, pb.Expression_SortOrder_SORT_DIRECTION_ASCENDING:
	case pb.Expression_SortOrder_SORT_DIRECTION_DESCENDING:
		out.Descending = true
	default:
		return plan.SortOrder{}, invalidPlan("unknown SortOrder direction %d", s.GetDirection())
	}
	switch s.GetNullOrdering() {
	case pb.Expression_SortOrder_SORT_NULLS_UNSPECIFIED:
		out.NullsFirst = !out.Descending
	case pb.Expression_SortOrder_SORT_NULLS_FIRST:
		out.NullsFirst = true
	case pb.Expression_SortOrder_SORT_NULLS_LAST:
		out.NullsFirst = false
	default:
		return plan.SortOrder{}, invalidPlan("unknown SortOrder null_ordering %d", s.GetNullOrdering())
	}
	return out, nil
}

func sortOrders(ss []*pb.Expression_SortOrder) ([]plan.SortOrder, error) {
	if len(ss) == 0 {
		return nil, nil
	}
	out := make([]plan.SortOrder, len(ss))
	for i, s := range ss {
		o, err := sortOrder(s)
		if err != nil {
			return nil, err
		}
		out[i] = o
	}
	return out, nil
}

var (
	// Spark's ParserUtils.escapedIdentifier and qualifiedEscapedIdentifier.
	escapedIdentifier          = regexp.MustCompile("^`((?s).+)`$")
	qualifiedEscapedIdentifier = regexp.MustCompile("^((?s).+)\\.`((?s).+)`$")
	plainName                  = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
)

// regex converts Column.colRegex / df.colRegex. Like Spark, a name that is not backquoted is an
// ordinary column reference. A backquoted regex is supported when it selects everything (".*",
// ".+") or is a plain name; other regular expressions are unsupported.
func regex(r *pb.Expression_UnresolvedRegex) (plan.Expr, error) {
	if r == nil {
		r = &pb.Expression_UnresolvedRegex{}
	}
	name := r.GetColName()
	var qualifier []string
	pattern := ""
	if m := qualifiedEscapedIdentifier.FindStringSubmatch(name); m != nil && !escapedIdentifier.MatchString(name) {
		q, err := SplitIdentifier(m[1])
		if err != nil {
			return nil, err
		}
		qualifier, pattern = q, m[2]
	} else if m := escapedIdentifier.FindStringSubmatch(name); m != nil {
		pattern = m[1]
	} else {
		parts, err := SplitIdentifier(name)
		if err != nil {
			return nil, err
		}
		return plan.ColumnRef{Name: parts, PlanID: PlanIDFromClient(r.PlanId)}, nil
	}
	switch {
	case pattern == ".*" || pattern == ".+":
		return plan.Star{Target: qualifier, PlanID: PlanIDFromClient(r.PlanId)}, nil
	case plainName.MatchString(pattern):
		return plan.ColumnRef{Name: append(qualifier, pattern), PlanID: PlanIDFromClient(r.PlanId)}, nil
	}
	return nil, sparkerr.Unsupported("column regular expression %s is not supported", name)
}

func lambdaVar(v *pb.Expression_UnresolvedNamedLambdaVariable) (plan.LambdaVar, error) {
	if len(v.GetNameParts()) == 0 {
		return plan.LambdaVar{}, invalidPlan("UnresolvedNamedLambdaVariable is missing name_parts")
	}
	return plan.LambdaVar{Name: strings.Join(v.GetNameParts(), ".")}, nil
}

func lambda(l *pb.Expression_LambdaFunction) (plan.Expr, error) {
	body, err := required(l.GetFunction(), "LambdaFunction.function")
	if err != nil {
		return nil, err
	}
	if n := len(l.GetArguments()); n < 1 || n > 3 {
		return nil, invalidPlan("LambdaFunction requires 1 ~ 3 arguments, but got %d ones!", n)
	}
	params := make([]string, len(l.GetArguments()))
	for i, a := range l.GetArguments() {
		v, err := lambdaVar(a)
		if err != nil {
			return nil, err
		}
		params[i] = v.Name
	}
	return plan.Lambda{Params: params, Body: body}, nil
}

func window(w *pb.Expression_Window) (plan.Expr, error) {
	fn, err := required(w.GetWindowFunction(), "Window.window_function")
	if err != nil {
		return nil, err
	}
	part, err := expressions(w.GetPartitionSpec())
	if err != nil {
		return nil, err
	}
	order, err := sortOrders(w.GetOrderSpec())
	if err != nil {
		return nil, err
	}
	out := plan.Window{Func: fn, PartitionBy: part, OrderBy: order}
	if f := w.GetFrameSpec(); f != nil {
		frame := &plan.WindowFrame{}
		switch f.GetFrameType() {
		case pb.Expression_Window_WindowFrame_FRAME_TYPE_ROW:
		case pb.Expression_Window_WindowFrame_FRAME_TYPE_RANGE:
			frame.IsRange = true
		default:
			return nil, invalidPlan("Window frame is missing frame_type")
		}
		if frame.Lower, err = frameBound(f.GetLower(), "lower"); err != nil {
			return nil, err
		}
		if frame.Upper, err = frameBound(f.GetUpper(), "upper"); err != nil {
			return nil, err
		}
		out.Frame = frame
	}
	return out, nil
}

func frameBound(b *pb.Expression_Window_WindowFrame_FrameBoundary, which string) (*plan.FrameBound, error) {
	switch v := b.GetBoundary().(type) {
	case *pb.Expression_Window_WindowFrame_FrameBoundary_CurrentRow:
		return &plan.FrameBound{CurrentRow: true}, nil
	case *pb.Expression_Window_WindowFrame_FrameBoundary_Unbounded:
		return &plan.FrameBound{Unbounded: true}, nil
	case *pb.Expression_Window_WindowFrame_FrameBoundary_Value:
		off, err := required(v.Value, "Window frame "+which+" value")
		if err != nil {
			return nil, err
		}
		return &plan.FrameBound{Offset: off}, nil
	}
	return nil, invalidPlan("Window frame %s boundary is missing", which)
}
