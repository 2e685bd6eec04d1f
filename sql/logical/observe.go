package logical

import (
	"strings"

	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// CollectMetrics is df.observe: Input's rows pass through unchanged while the global
// aggregates Aggs are computed over them; Metrics (over the aggregates' results, column i
// being Aggs[i]) are the named metric values reported under Name — once for a batch query,
// per micro-batch for a stream.
//
// It deliberately has no WithChildren: the optimizer leaves it and everything under it as
// analyzed (no filter moves below it, which would change what the metrics count).
type CollectMetrics struct {
	Input   Node
	Name    string
	Aggs    []expr.AggFunc
	Metrics []expr.Expr
}

// Schema implements Node: the input's.
func (c *CollectMetrics) Schema() sqltypes.Schema { return c.Input.Schema() }

// MetricsSchema is the schema of the metrics row (names as the client sees them).
func (c *CollectMetrics) MetricsSchema() sqltypes.Schema { return SchemaOf(c.Metrics) }

// AggSchema is the schema of the aggregates' row, the input of Metrics.
func (c *CollectMetrics) AggSchema() sqltypes.Schema {
	s := make(sqltypes.Schema, len(c.Aggs))
	for i, a := range c.Aggs {
		s[i] = sqltypes.Field{Name: a.String(), Type: a.Type(), Nullable: a.Nullable()}
	}
	return s
}

// Children implements Node.
func (c *CollectMetrics) Children() []Node { return []Node{c.Input} }

// Describe implements Node.
func (c *CollectMetrics) Describe() string {
	ms := make([]string, len(c.Metrics))
	for i, m := range c.Metrics {
		ms[i] = m.String()
	}
	return "CollectMetrics " + c.Name + ", [" + strings.Join(ms, ", ") + "]"
}
