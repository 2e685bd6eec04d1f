package planner

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// pythonSpec is the Python runner of the plan, or Spark's error when the server runs none.
func (b *builder) pythonSpec(n logical.Node) (operators.PythonSpec, error) {
	if b.opts.Python == nil || b.opts.Python.Runner == nil {
		return operators.PythonSpec{}, sparkerr.Unsupported("%s needs Python workers: start the server with --python", n.Describe())
	}
	return *b.opts.Python, nil
}

func (b *builder) pythonFunc(f *logical.PythonFunc) operators.PythonFunc {
	out := operators.PythonFunc{Command: f.Command, Args: f.Args, ArgNames: f.ArgNames,
		ReturnType: sqltypes.ToArrow(f.ReturnType, b.tz)}
	for _, g := range f.Chained {
		out.Chained = append(out.Chained, g.Command)
	}
	return out
}

// python plans the Python nodes: PythonEval, PythonUDTF and MapInPython keep their input's partitions
// (their own node on a forward edge: they finish their worker task at barriers and end of
// data); GroupMapInPython, CoGroupMapInPython and AggregateInPython hash-partition their
// inputs on the keys (AggregateInPython without keys gathers them into one partition).
func (b *builder) python(n logical.Node, ins []*flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	out, err := b.pythonNode(n, ins, schema)
	if err != nil {
		return nil, err
	}
	switch n := n.(type) {
	case *logical.MapInPython:
		b.pythonNodes = append(b.pythonNodes, pythonNode{node: out, gang: n.IsBarrier})
	case *logical.PythonEval, *logical.PythonUDTF:
		b.pythonNodes = append(b.pythonNodes, pythonNode{node: out})
	default:
		b.pythonNodes = append(b.pythonNodes, pythonNode{node: out, lazy: true})
	}
	return out, nil
}

func (b *builder) pythonNode(n logical.Node, ins []*flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	spec, err := b.pythonSpec(n)
	if err != nil {
		return nil, err
	}
	switch n := n.(type) {
	case *logical.PythonEval:
		funcs := make([]operators.PythonFunc, len(n.Funcs))
		for i, f := range n.Funcs {
			funcs[i] = b.pythonFunc(f)
		}
		kind := "ArrowEvalPython"
		if n.EvalType == 100 {
			kind = "BatchEvalPython"
		}
		return b.node(kind, ins[0].Parallelism, schema,
			operators.PythonEval(b.ctx, spec, n.EvalType, n.Funcs[0].PythonVer, funcs), forward(ins[0])), nil
	case *logical.PythonUDTF:
		kind := "BatchEvalPythonUDTF"
		if n.Func.EvalType != 300 {
			kind = "ArrowEvalPythonUDTF"
		}
		return b.node(kind, ins[0].Parallelism, schema,
			operators.PythonUDTF(b.ctx, spec, n.Func.EvalType, n.Func.PythonVer, n.Func.Name, b.pythonFunc(n.Func), n.PartitionChildIndexes, n.AnalyzeResult),
			forward(ins[0])), nil
	case *logical.MapInPython:
		f := b.pythonFunc(n.Func)
		f.ColumnNames = exprNames(n.Func.Args)
		par := ins[0].Parallelism
		if !n.IsBarrier {
			return b.node("MapInPython", par, schema,
				operators.PythonMap(b.ctx, spec, n.Func.EvalType, n.Func.PythonVer, f), forward(ins[0])), nil
		}
		if b.opts.Streaming && logical.IsStreaming(n) {
			return nil, unsupportedStreaming(n, "mapInPandas / mapInArrow with barrier=True is not supported with streaming DataFrames/Datasets")
		}
		fields := make([]arrow.Field, len(n.Func.Args))
		for i, a := range n.Func.Args {
			fields[i] = arrow.Field{Name: f.ColumnNames[i], Type: sqltypes.ToArrow(a.Type(), b.tz), Nullable: true}
		}
		return b.node("MapInPython", par, schema,
			operators.PythonBarrierMap(b.ctx, spec, n.Func.EvalType, n.Func.PythonVer, f, pyworker.NewBarrier(par), arrow.NewSchema(fields, nil)),
			forward(ins[0])), nil
	case *logical.GroupMapInPython:
		if b.opts.Streaming && logical.IsStreaming(n) {
			return nil, unsupportedStreaming(n, "applyInPandas / applyInArrow (FlatMapGroupsInPandas) is not supported with streaming DataFrames/Datasets")
		}
		side := b.groupSide(n.Func.Args, n.Keys)
		return b.node("FlatMapGroupsInPython", b.opts.Partitions, schema,
			operators.PythonGroupMap(b.ctx, spec, n.Func.EvalType, n.Func.PythonVer, b.pythonFunc(n.Func), []operators.PythonGroupSide{side}),
			b.hashed(ins[0], n.Keys)), nil
	case *logical.AggregateInPython:
		if b.opts.Streaming && logical.IsStreaming(n) {
			return nil, unsupportedStreaming(n, "Streaming aggregation doesn't support group aggregate pandas UDF")
		}
		funcs := make([]operators.PythonFunc, len(n.Funcs))
		for i, f := range n.Funcs {
			funcs[i] = b.pythonFunc(f)
		}
		op := operators.PythonAggregate(b.ctx, spec, n.EvalType, n.Funcs[0].PythonVer, funcs, n.Groups)
		if len(n.Groups) == 0 {
			return b.node("AggregateInPandas", 1, schema, op, flow.Input{From: ins[0], Exchange: flow.Gather}), nil
		}
		return b.node("AggregateInPandas", b.opts.Partitions, schema, op, b.hashed(ins[0], n.Groups)), nil
	case *logical.CoGroupMapInPython:
		if b.opts.Streaming && logical.IsStreaming(n) {
			return nil, unsupportedStreaming(n, "CoGrouping with a streaming DataFrame/Dataset is not supported")
		}
		sides := []operators.PythonGroupSide{b.groupSide(allRefs(n.Left.Schema()), n.LeftKeys),
			b.groupSide(allRefs(n.Right.Schema()), n.RightKeys)}
		return b.node("FlatMapCoGroupsInPython", b.opts.Partitions, schema,
			operators.PythonGroupMap(b.ctx, spec, n.Func.EvalType, n.Func.PythonVer, b.pythonFunc(n.Func), sides),
			b.hashed(ins[0], n.LeftKeys), b.hashed(ins[1], n.RightKeys)), nil
	}
	return nil, sparkerr.Internal("planner: %s is not a Python node", n.Describe())
}

func (b *builder) groupSide(args, keys []expr.Expr) operators.PythonGroupSide {
	s := operators.PythonGroupSide{Args: args, Keys: keys}
	all := append(append([]expr.Expr(nil), args...), keys...)
	for _, e := range all {
		s.Types = append(s.Types, sqltypes.ToArrow(e.Type(), b.tz))
	}
	s.Names = exprNames(all)
	return s
}

// exprNames names the worker's columns for es as Spark does: a column by its name, any other
// expression by its SQL text.
func exprNames(es []expr.Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// allRefs references every column of s.
func allRefs(s sqltypes.Schema) []expr.Expr {
	return columns(s, allColumns(len(s)))
}
