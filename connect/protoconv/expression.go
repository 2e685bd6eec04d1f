package protoconv

import (
	"regexp"
	"strings"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
)

// Expression converts a Spark Connect expression to an unresolved plan expression. A
// SubqueryExpression needs the references of its enclosing WithRelations, so standalone it is
// an invalid plan.
func Expression(e *pb.Expression) (plan.Expr, error) {
	t := Converter{}.translation()
	x, err := t.expr(e)
	if err != nil {
		t.releaseAll()
		return nil, err
	}
	return x, nil
}

func (t *translation) expr(e *pb.Expression) (plan.Expr, error) {
	if e == nil || e.ExprType == nil {
		return nil, invalidPlan("Expression is missing expr_type")
	}
	switch x := e.ExprType.(type) {
	case *pb.Expression_Literal_:
		return Literal(x.Literal)
	case *pb.Expression_UnresolvedAttribute_:
		return t.attribute(x.UnresolvedAttribute)
	case *pb.Expression_UnresolvedStar_:
		return t.star(x.UnresolvedStar)
	case *pb.Expression_UnresolvedFunction_:
		f := x.UnresolvedFunction
		if f.GetFunctionName() == "" {
			return nil, invalidPlan("UnresolvedFunction is missing function_name")
		}
		args, err := t.expressions(f.GetArguments())
		if err != nil {
			return nil, err
		}
		return plan.Call{Name: f.GetFunctionName(), Args: args, Distinct: f.GetIsDistinct()}, nil
	case *pb.Expression_CallFunction:
		f := x.CallFunction
		if f.GetFunctionName() == "" {
			return nil, invalidPlan("CallFunction is missing function_name")
		}
		args, err := t.expressions(f.GetArguments())
		if err != nil {
			return nil, err
		}
		return plan.Call{Name: f.GetFunctionName(), Args: args}, nil
	case *pb.Expression_ExpressionString_:
		return parser.ParseExpression(x.ExpressionString.GetExpression())
	case *pb.Expression_Alias_:
		return t.alias(x.Alias)
	case *pb.Expression_Cast_:
		return t.cast(x.Cast)
	case *pb.Expression_SortOrder_:
		return t.sortOrder(x.SortOrder)
	case *pb.Expression_UnresolvedRegex_:
		return t.regex(x.UnresolvedRegex)
	case *pb.Expression_UnresolvedExtractValue_:
		child, err := t.required(x.UnresolvedExtractValue.GetChild(), "UnresolvedExtractValue.child")
		if err != nil {
			return nil, err
		}
		extraction, err := t.required(x.UnresolvedExtractValue.GetExtraction(), "UnresolvedExtractValue.extraction")
		if err != nil {
			return nil, err
		}
		return plan.ExtractValue{Child: child, Extraction: extraction}, nil
	case *pb.Expression_LambdaFunction_:
		return t.lambda(x.LambdaFunction)
	case *pb.Expression_UnresolvedNamedLambdaVariable_:
		return t.lambdaVar(x.UnresolvedNamedLambdaVariable)
	case *pb.Expression_Window_:
		return t.window(x.Window)
	case *pb.Expression_SubqueryExpression:
		return t.subquery(x.SubqueryExpression)
	case *pb.Expression_UpdateFields_:
		return t.updateFields(x.UpdateFields)
	case *pb.Expression_CommonInlineUserDefinedFunction:
		return t.pythonUDF(x.CommonInlineUserDefinedFunction)
	case *pb.Expression_NamedArgumentExpression:
		return nil, sparkerr.Unsupported("a named argument (%s => …) outside a Python function call is not supported",
			x.NamedArgumentExpression.GetKey())
	}
	return nil, sparkerr.Unsupported("expression type %s is not supported", oneofCase(e, "expr_type"))
}

// required converts a sub-expression that must be present.
func (t *translation) required(e *pb.Expression, what string) (plan.Expr, error) {
	if e == nil {
		return nil, invalidPlan("%s is missing", what)
	}
	return t.expr(e)
}

func (t *translation) expressions(es []*pb.Expression) ([]plan.Expr, error) {
	if len(es) == 0 {
		return nil, nil
	}
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		x, err := t.expr(e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func (t *translation) attribute(a *pb.Expression_UnresolvedAttribute) (plan.Expr, error) {
	if a == nil {
		a = &pb.Expression_UnresolvedAttribute{}
	}
	parts, err := SplitIdentifier(a.GetUnparsedIdentifier())
	if err != nil {
		return nil, err
	}
	return plan.ColumnRef{Name: parts, PlanID: PlanIDFromClient(a.PlanId), IsMetadata: a.GetIsMetadataColumn()}, nil
}

func (t *translation) star(s *pb.Expression_UnresolvedStar) (plan.Expr, error) {
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

func (t *translation) alias(a *pb.Expression_Alias) (plan.Alias, error) {
	if a == nil {
		a = &pb.Expression_Alias{}
	}
	child, err := t.required(a.GetExpr(), "Alias.expr")
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

func (t *translation) cast(c *pb.Expression_Cast) (plan.Expr, error) {
	if c == nil {
		c = &pb.Expression_Cast{}
	}
	child, err := t.required(c.GetExpr(), "Cast.expr")
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
func (t *translation) sortOrder(s *pb.Expression_SortOrder) (plan.SortOrder, error) {
	if s == nil {
		return plan.SortOrder{}, invalidPlan("SortOrder is missing")
	}
	child, err := t.required(s.GetChild(), "SortOrder.child")
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

func (t *translation) sortOrders(ss []*pb.Expression_SortOrder) ([]plan.SortOrder, error) {
	if len(ss) == 0 {
		return nil, nil
	}
	out := make([]plan.SortOrder, len(ss))
	for i, s := range ss {
		o, err := t.sortOrder(s)
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
func (t *translation) regex(r *pb.Expression_UnresolvedRegex) (plan.Expr, error) {
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

func (t *translation) lambdaVar(v *pb.Expression_UnresolvedNamedLambdaVariable) (plan.LambdaVar, error) {
	if len(v.GetNameParts()) == 0 {
		return plan.LambdaVar{}, invalidPlan("UnresolvedNamedLambdaVariable is missing name_parts")
	}
	return plan.LambdaVar{Name: strings.Join(v.GetNameParts(), ".")}, nil
}

func (t *translation) lambda(l *pb.Expression_LambdaFunction) (plan.Expr, error) {
	body, err := t.required(l.GetFunction(), "LambdaFunction.function")
	if err != nil {
		return nil, err
	}
	if n := len(l.GetArguments()); n < 1 || n > 3 {
		return nil, invalidPlan("LambdaFunction requires 1 ~ 3 arguments, but got %d ones!", n)
	}
	params := make([]string, len(l.GetArguments()))
	for i, a := range l.GetArguments() {
		v, err := t.lambdaVar(a)
		if err != nil {
			return nil, err
		}
		params[i] = v.Name
	}
	return plan.Lambda{Params: params, Body: body}, nil
}

func (t *translation) window(w *pb.Expression_Window) (plan.Expr, error) {
	fn, err := t.required(w.GetWindowFunction(), "Window.window_function")
	if err != nil {
		return nil, err
	}
	part, err := t.expressions(w.GetPartitionSpec())
	if err != nil {
		return nil, err
	}
	order, err := t.sortOrders(w.GetOrderSpec())
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
		if frame.Lower, err = t.frameBound(f.GetLower(), "lower"); err != nil {
			return nil, err
		}
		if frame.Upper, err = t.frameBound(f.GetUpper(), "upper"); err != nil {
			return nil, err
		}
		out.Frame = frame
	}
	return out, nil
}

func (t *translation) frameBound(b *pb.Expression_Window_WindowFrame_FrameBoundary, which string) (*plan.FrameBound, error) {
	switch v := b.GetBoundary().(type) {
	case *pb.Expression_Window_WindowFrame_FrameBoundary_CurrentRow:
		return &plan.FrameBound{CurrentRow: true}, nil
	case *pb.Expression_Window_WindowFrame_FrameBoundary_Unbounded:
		return &plan.FrameBound{Unbounded: true}, nil
	case *pb.Expression_Window_WindowFrame_FrameBoundary_Value:
		off, err := t.required(v.Value, "Window frame "+which+" value")
		if err != nil {
			return nil, err
		}
		return &plan.FrameBound{Offset: off}, nil
	}
	return nil, invalidPlan("Window frame %s boundary is missing", which)
}

// subquery converts DataFrame.scalar() / exists() / isin(df) / asTable(): the subquery plan is
// the WithRelations reference with the expression's plan id.
func (t *translation) subquery(s *pb.SubqueryExpression) (plan.Expr, error) {
	kind := s.GetSubqueryType()
	ref, ok := t.refs[s.GetPlanId()]
	if !ok {
		return nil, invalidPlan("SubqueryExpression refers to plan id %d, which is not a WithRelations reference", s.GetPlanId())
	}
	// A reference may itself contain subqueries; stop cycles between references.
	delete(t.refs, s.GetPlanId())
	rel, err := t.relation(ref)
	t.refs[s.GetPlanId()] = ref
	if err != nil {
		return nil, err
	}
	switch kind {
	case pb.SubqueryExpression_SUBQUERY_TYPE_TABLE_ARG:
		return t.tableArgument(rel, s.GetTableArgOptions())
	case pb.SubqueryExpression_SUBQUERY_TYPE_SCALAR:
		return plan.ScalarSubquery{Plan: rel}, nil
	case pb.SubqueryExpression_SUBQUERY_TYPE_EXISTS:
		return plan.Exists{Plan: rel}, nil
	case pb.SubqueryExpression_SUBQUERY_TYPE_IN:
		values, err := t.expressions(s.GetInSubqueryValues())
		if err != nil {
			return nil, err
		}
		if len(values) == 0 {
			return nil, invalidPlan("IN subquery has no values")
		}
		return plan.InSubquery{Values: values, Plan: rel}, nil
	}
	return nil, invalidPlan("SubqueryExpression has an unknown subquery_type %s", kind)
}

// tableArgument is df.asTable()[.partitionBy(…) | .withSinglePartition()][.orderBy(…)] passed
// to a table function: a plan.TableArgument over rel.
func (t *translation) tableArgument(rel plan.Relation, o *pb.SubqueryExpression_TableArgOptions) (plan.Expr, error) {
	out := &plan.TableArgument{Input: rel, SinglePartition: o.GetWithSinglePartition()}
	var err error
	if out.PartitionBy, err = t.expressions(o.GetPartitionSpec()); err != nil {
		return nil, err
	}
	if out.OrderBy, err = t.sortOrders(o.GetOrderSpec()); err != nil {
		return nil, err
	}
	return out, nil
}

// updateFields is Column.withField / dropFields (a value expression or none).
func (t *translation) updateFields(u *pb.Expression_UpdateFields) (plan.Expr, error) {
	st, err := t.required(u.GetStructExpression(), "UpdateFields.struct_expression")
	if err != nil {
		return nil, err
	}
	out := plan.UpdateFields{Struct: st, Field: u.GetFieldName()}
	if v := u.GetValueExpression(); v != nil {
		if out.Value, err = t.expr(v); err != nil {
			return nil, err
		}
	}
	return out, nil
}
