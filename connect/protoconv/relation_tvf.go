package protoconv

import (
	"strings"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// tableValuedFunction is spark.tvf.name(args…) (UnresolvedTableValuedFunction): range with
// integer literal arguments is plan.Range; any other name is a table function call over one
// empty row (plan.Generate with TableFunction set), as SQL's FROM name(args…), which the
// analyzer resolves (generators such as explode or variant_explode, else
// UNRESOLVABLE_TABLE_VALUED_FUNCTION).
func (t *translation) tableValuedFunction(f *pb.UnresolvedTableValuedFunction) (plan.Relation, error) {
	args, err := t.expressions(f.GetArguments())
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(f.GetFunctionName(), "range") {
		return tvfRange(args)
	}
	return &plan.Generate{Input: &plan.Values{Rows: [][]plan.Expr{{}}}, TableFunction: true,
		Generator: plan.Call{Name: f.GetFunctionName(), Args: args}}, nil
}

// tvfRange is spark.tvf.range(end) / (start, end[, step[, numPartitions]]).
func tvfRange(args []plan.Expr) (plan.Relation, error) {
	n := make([]int64, len(args))
	for i, a := range args {
		lit, _ := a.(plan.Literal)
		switch v := lit.Value.(type) {
		case int64:
			n[i] = v
		case int32:
			n[i] = int64(v)
		case int16:
			n[i] = int64(v)
		case int8:
			n[i] = int64(v)
		default:
			return nil, sparkerr.Unsupported("range() arguments must be integer literals")
		}
	}
	r := &plan.Range{Step: 1}
	switch len(n) {
	case 1:
		r.End = n[0]
	case 2, 3, 4:
		r.Start, r.End = n[0], n[1]
		if len(n) > 2 {
			r.Step = n[2]
		}
		if len(n) > 3 {
			r.NumPartitions, r.HasNumPartitions = int32(n[3]), true
		}
	default:
		return nil, sparkerr.Newf(sparkerr.AnalysisException, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
			"The `range` requires [1, 2, 3, 4] parameters but the actual number is %d. Please, refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
			len(n)).WithParams("functionName", "`range`", "expectedNum", "[1, 2, 3, 4]", "actualNum", itoa(int64(len(n))))
	}
	return r, nil
}
