package planner

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/state"
)

// window plans a logical.Window: its input hash-partitioned on the partition keys (gathered into
// one partition when there are none), one operators.Window per partition, spilling past the
// operator memory budget (state.BudgetFromConf, as streaming state). On a stream it is
// Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING.
func (b *builder) window(n *logical.Window, in *flow.Node, schema *arrow.Schema) (*flow.Node, error) {
	if b.opts.Streaming && logical.IsStreaming(n) {
		return nil, streamingWindow(n, n.Names)
	}
	order := make([]operators.SortKey, len(n.OrderBy))
	for i, k := range n.OrderBy {
		order[i] = operators.SortKey{Expr: k.Expr, Descending: k.Descending, NullsFirst: k.NullsFirst}
	}
	budget, err := state.BudgetFromConf(b.opts.Conf)
	if err != nil {
		return nil, err
	}
	op := operators.Window(b.ctx, operators.WindowSpec{PartitionBy: n.PartitionBy, OrderBy: order, Funcs: n.Funcs, Budget: budget})
	if len(n.PartitionBy) == 0 {
		return b.node("Window", 1, schema, op, flow.Input{From: in, Exchange: flow.Gather}), nil
	}
	return b.node("Window", b.opts.Partitions, schema, op, b.hashed(in, n.PartitionBy)), nil
}

// streamingWindow is Spark's UnsupportedOperationChecker error for a window function over a
// stream, naming the functions, the columns holding them (cols, one per function) and their
// specifications.
func streamingWindow(n *logical.Window, cols []string) *sparkerr.Error {
	funcs := make([]string, len(n.Funcs))
	specs := make([]string, len(n.Funcs))
	for i, f := range n.Funcs {
		funcs[i] = strings.ToUpper(f.SQL)
		specs[i] = strings.ToUpper(strings.TrimPrefix(n.Names[i], f.SQL+" OVER "))
	}
	fl, sl := strings.Join(funcs, ","), strings.Join(specs, ",")
	cl := "`" + strings.Join(cols, "`,`") + "`"
	return sparkerr.Analysis("NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING", "42KDE",
		"Window function is not supported in %s (as column %s) on streaming DataFrames/Datasets. Structured Streaming only supports time-window aggregation using the WINDOW function. (window specification: %s)",
		fl, cl, sl).WithParams("windowFunc", fl, "columnName", cl, "windowSpec", sl)
}

// windowColumnNames names the column each of w's functions ends up in: the output name of the
// first expression of p (the select over w) that reads it, else the function's own name.
func windowColumnNames(p *logical.Project, w *logical.Window) []string {
	base := len(w.Input.Schema())
	names := append([]string(nil), w.Names...)
	found := make([]bool, len(names))
	for _, e := range p.Exprs {
		var walk func(x expr.Expr)
		walk = func(x expr.Expr) {
			if c, ok := x.(*expr.Column); ok {
				if i := c.Index - base; i >= 0 && i < len(names) && !found[i] {
					names[i], found[i] = expr.OutputName(e), true
				}
				return
			}
			for _, ch := range x.Children() {
				walk(ch)
			}
		}
		walk(e)
	}
	return names
}
