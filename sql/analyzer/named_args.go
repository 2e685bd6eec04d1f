package analyzer

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// routineParam is a parameter of a builtin Spark declares with a FunctionSignature (an
// ExpressionBuilder): its name and, for an optional one, its default.
type routineParam struct {
	name string
	def  *plan.Literal
}

// routineParams are the signatures of the builtins whose calls may name their arguments.
var routineParams = map[string][]routineParam{}

func init() {
	lgNom := routineParam{"lgNomEntries", &plan.Literal{Value: int32(12), Type: sqltypes.IntegerType}}
	mode := routineParam{"mode", &plan.Literal{Value: "sum", Type: sqltypes.StringType}}
	for _, t := range []string{"double", "integer"} {
		routineParams["tuple_sketch_agg_"+t] = []routineParam{{"key", nil}, {"summary", nil}, lgNom, mode}
		routineParams["tuple_union_agg_"+t] = []routineParam{{"child", nil}, lgNom, mode}
		for _, f := range []string{"tuple_union_", "tuple_union_theta_"} {
			routineParams[f+t] = []routineParam{{"first", nil}, {"second", nil}, lgNom, mode}
		}
	}
}

// arrangeArgs puts the arguments of a call of a routine with a signature in its parameter order
// (Spark's NamedParametersSupport.defaultRearrange, names matched case-insensitively), the
// omitted optional ones as their defaults; a required one missing is
// REQUIRED_PARAMETER_NOT_FOUND, named or not. Naming an argument of a builtin without a
// signature is NAMED_PARAMETERS_NOT_SUPPORTED.
func arrangeArgs(c plan.Call) (plan.Call, error) {
	name := strings.ToLower(c.Name)
	params, ok := routineParams[name]
	if !ok {
		return c, namedArgsUnsupported(c)
	}
	if err := checkArgNames(name, c.ArgNames); err != nil {
		return c, err
	}
	positional := len(c.Args)
	if c.ArgNames != nil {
		positional = 0
		for _, n := range c.ArgNames {
			if n == "" {
				positional++
			}
		}
	}
	out := c
	out.ArgNames = nil
	if positional > len(params) {
		return out, nil // the binder reports the arity
	}
	args := make([]plan.Expr, len(params))
	copy(args, c.Args[:positional])
	for i, n := range c.ArgNames[min(positional, len(c.ArgNames)):] {
		at := -1
		for j, p := range params {
			if strings.EqualFold(p.name, n) {
				at = j
			}
		}
		switch {
		case at < 0:
			return c, unrecognizedParameter(name, n, params)
		case at < positional:
			return c, sparkerr.Analysis("DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.BOTH_POSITIONAL_AND_NAMED", "4274K",
				"Call to routine `%s` is invalid because it includes multiple argument assignments to the same parameter name `%s`. A positional argument and named argument both referred to the same parameter. Please remove the named argument referring to this parameter.",
				name, params[at].name).WithParams("routineName", "`"+name+"`", "parameterName", "`"+params[at].name+"`")
		}
		args[at] = c.Args[positional+i]
	}
	for j, p := range params {
		if args[j] != nil {
			continue
		}
		if p.def == nil {
			// Spark reports index 0 whatever the parameter's position.
			return c, sparkerr.Analysis("REQUIRED_PARAMETER_NOT_FOUND", "4274K",
				"Cannot invoke routine `%s` because the parameter named `%s` is required, but the routine call did not supply a value. Please update the routine call to supply an argument value (either positionally at index 0 or by name) and retry the query again.",
				name, p.name).WithParams("routineName", "`"+name+"`", "parameterName", "`"+p.name+"`", "index", "0")
		}
		args[j] = *p.def
	}
	out.Args = args
	return out, nil
}

func unrecognizedParameter(name, arg string, params []routineParam) *sparkerr.Error {
	var names []string
	for _, p := range params {
		names = append(names, "`"+p.name+"`")
	}
	list := strings.Join(names, " ")
	return sparkerr.Analysis("UNRECOGNIZED_PARAMETER_NAME", "4274K",
		"Cannot invoke routine `%s` because the routine call included a named argument reference for the argument named `%s`, but this routine does not include any signature containing an argument with this name. Did you mean one of the following? [%s].",
		name, arg, list).WithParams("routineName", "`"+name+"`", "argumentName", "`"+arg+"`", "proposal", list)
}
