package logical

import (
	"fmt"
	"strings"

	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// PythonFunc is one Python function as a plan runs it: the client's pickled payload and its
// bound arguments (over the node's input).
type PythonFunc struct {
	Name string
	// EvalType is PySpark's PythonEvalType.
	EvalType  int32
	Command   []byte
	PythonVer string
	// ReturnType is the declared return type (a struct for the map and grouped-map kinds).
	ReturnType sqltypes.DataType
	Args       []expr.Expr
	// ArgNames are keyword names per argument ("" positional); nil when all are positional.
	ArgNames []string
	// Chained are the functions whose result is this one's only argument, innermost first
	// (f(g(h(x))) is f with Chained [h, g]; Args and ArgNames are then h's): the worker runs
	// them as one function, as Spark's ExtractPythonUDFs chains directly nested calls of one
	// eval type.
	Chained []*PythonFunc
}

// String renders the call as Spark names its column: name(arg, ...), nested calls for a chain.
func (f *PythonFunc) String() string {
	if len(f.Chained) > 0 {
		s := f.Chained[0].String()
		for _, g := range f.Chained[1:] {
			s = g.Name + "(" + s + ")"
		}
		return f.Name + "(" + s + ")"
	}
	args := make([]string, len(f.Args))
	for i, a := range f.Args {
		args[i] = a.String()
		if f.ArgNames != nil && f.ArgNames[i] != "" {
			args[i] = f.ArgNames[i] + " => " + args[i]
		}
	}
	return f.Name + "(" + strings.Join(args, ", ") + ")"
}

// PythonEval evaluates scalar Python functions of one eval type (Spark's ArrowEvalPython, or
// BatchEvalPython for pickled @udf) over each input row: its output is the input's columns
// followed by one column per function, named Names, of the function's declared type and
// nullable (Spark's PythonUDF is always nullable).
type PythonEval struct {
	Input    Node
	EvalType int32
	Funcs    []*PythonFunc
	Names    []string
}

// Schema implements Node.
func (p *PythonEval) Schema() sqltypes.Schema {
	s := append(sqltypes.Schema{}, p.Input.Schema()...)
	for i, f := range p.Funcs {
		s = append(s, sqltypes.Field{Name: p.Names[i], Type: f.ReturnType, Nullable: true})
	}
	return s
}

// Children implements Node.
func (p *PythonEval) Children() []Node { return []Node{p.Input} }

// Describe implements Node.
func (p *PythonEval) Describe() string {
	kind := "ArrowEvalPython"
	if p.EvalType == 100 {
		kind = "BatchEvalPython"
	}
	fs := make([]string, len(p.Funcs))
	for i, f := range p.Funcs {
		fs[i] = f.String()
	}
	return fmt.Sprintf("%s [%s], [%s], %d", kind, strings.Join(fs, ", "), strings.Join(p.Names, ", "), p.EvalType)
}

// structFields is the output schema of a map or grouped-map function: its struct's fields.
func structFields(t sqltypes.DataType) sqltypes.Schema { return sqltypes.Schema(t.Fields) }

// MapInPython is mapInPandas / mapInArrow (Spark's MapInPandas / MapInArrow): Func reads every
// input column of each partition's batches and returns rows of its struct type's fields.
type MapInPython struct {
	Input     Node
	Func      *PythonFunc
	IsBarrier bool
}

// Schema implements Node.
func (m *MapInPython) Schema() sqltypes.Schema { return structFields(m.Func.ReturnType) }

// Children implements Node.
func (m *MapInPython) Children() []Node { return []Node{m.Input} }

// Describe implements Node.
func (m *MapInPython) Describe() string {
	kind := "MapInPandas"
	if m.Func.EvalType == 207 {
		kind = "MapInArrow"
	}
	return fmt.Sprintf("%s %s, [%s], %t", kind, m.Func.Name, strings.Join(m.Schema().Names(), ", "), m.IsBarrier)
}

// GroupMapInPython is groupBy(keys).applyInPandas / applyInArrow (Spark's FlatMapGroupsInPandas
// / FlatMapGroupsInArrow): Func reads the rows of each group (every input column, the keys
// first for the arrow kind as Spark sends them) and returns rows of its struct type's fields.
type GroupMapInPython struct {
	Input Node
	// Keys are the grouping expressions over Input.
	Keys []expr.Expr
	Func *PythonFunc
}

// Schema implements Node.
func (g *GroupMapInPython) Schema() sqltypes.Schema { return structFields(g.Func.ReturnType) }

// Children implements Node.
func (g *GroupMapInPython) Children() []Node { return []Node{g.Input} }

// Describe implements Node.
func (g *GroupMapInPython) Describe() string {
	kind := "FlatMapGroupsInPandas"
	if g.Func.EvalType == 209 {
		kind = "FlatMapGroupsInArrow"
	}
	return fmt.Sprintf("%s [%s], %s, [%s]", kind, exprList(g.Keys), g.Func.Name, strings.Join(g.Schema().Names(), ", "))
}

// CoGroupMapInPython is cogroup().applyInPandas / applyInArrow (Spark's
// FlatMapCoGroupsInPandas / FlatMapCoGroupsInArrow): Func reads both sides' rows of each key
// and returns rows of its struct type's fields.
type CoGroupMapInPython struct {
	Left, Right         Node
	LeftKeys, RightKeys []expr.Expr
	Func                *PythonFunc
}

// Schema implements Node.
func (c *CoGroupMapInPython) Schema() sqltypes.Schema { return structFields(c.Func.ReturnType) }

// Children implements Node.
func (c *CoGroupMapInPython) Children() []Node { return []Node{c.Left, c.Right} }

// Describe implements Node.
func (c *CoGroupMapInPython) Describe() string {
	kind := "FlatMapCoGroupsInPandas"
	if c.Func.EvalType == 210 {
		kind = "FlatMapCoGroupsInArrow"
	}
	return fmt.Sprintf("%s [%s], [%s], %s, [%s]", kind, exprList(c.LeftKeys), exprList(c.RightKeys), c.Func.Name,
		strings.Join(c.Schema().Names(), ", "))
}

// AggregateInPython is an aggregation whose aggregate calls are all grouped-aggregate Python
// functions (Spark's AggregateInPandas): each function reads the rows of a group (its Args over
// Input) and returns one value. Its output is Groups' values then one column per function,
// named Names, of the function's declared type and nullable.
type AggregateInPython struct {
	Input    Node
	Groups   []expr.Expr
	EvalType int32
	Funcs    []*PythonFunc
	Names    []string
}

// Schema implements Node.
func (a *AggregateInPython) Schema() sqltypes.Schema {
	s := SchemaOf(a.Groups)
	for i, f := range a.Funcs {
		s = append(s, sqltypes.Field{Name: a.Names[i], Type: f.ReturnType, Nullable: true})
	}
	return s
}

// Children implements Node.
func (a *AggregateInPython) Children() []Node { return []Node{a.Input} }

// Describe implements Node.
func (a *AggregateInPython) Describe() string {
	fs := make([]string, len(a.Funcs))
	for i, f := range a.Funcs {
		fs[i] = f.String()
	}
	return fmt.Sprintf("AggregateInPandas [%s], [%s]", exprList(a.Groups), strings.Join(fs, ", "))
}

// PythonUDTF runs a Python table function (Spark's BatchEvalPythonUDTF / ArrowEvalPythonUDTF)
// over each input row: Func's Args are over Input, its ReturnType a struct. The output is the
// input's columns followed by the struct's fields, named Names, one output row per row the
// function returns (terminate's rows follow the last input row). A call whose arguments read no
// column runs over one empty row (no input columns).
type PythonUDTF struct {
	Input Node
	Func  *PythonFunc
	Names []string
	// PartitionChildIndexes are, for a TABLE argument with PARTITION BY, the fields of that
	// argument's struct holding the partitioning values (Input arrives clustered by them); the
	// handler is restarted where they change.
	PartitionChildIndexes []int
	// AnalyzeResult is the pickled AnalyzeResult of the handler's analyze method (nil when it
	// declared its return type), handed to its __init__.
	AnalyzeResult []byte
}

// Schema implements Node.
func (p *PythonUDTF) Schema() sqltypes.Schema {
	s := append(sqltypes.Schema{}, p.Input.Schema()...)
	for i, f := range p.Func.ReturnType.Fields {
		f.Name = p.Names[i]
		s = append(s, f)
	}
	return s
}

// Children implements Node.
func (p *PythonUDTF) Children() []Node { return []Node{p.Input} }

// Describe implements Node.
func (p *PythonUDTF) Describe() string {
	kind := "BatchEvalPythonUDTF"
	if p.Func.EvalType != 300 {
		kind = "ArrowEvalPythonUDTF"
	}
	return fmt.Sprintf("%s %s, [%s], %d", kind, p.Func.String(), strings.Join(p.Names, ", "), p.Func.EvalType)
}
