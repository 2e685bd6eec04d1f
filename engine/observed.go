package engine

import (
	"github.com/weirhq/weir/operators"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// ObservedMetrics is the metrics row of one df.observe in a batch query, by the observation's
// name: Values (sqltypes' Go value conventions) follow Schema.
type ObservedMetrics struct {
	Name   string
	Schema sqltypes.Schema
	Values []any
}

// ObservedMetrics returns the metrics of the query's observations (df.observe) that were
// computed: those whose node saw the end of its input, so all of them once Next returned
// io.EOF. Spark reports them with the result, after its rows.
func (r *Result) ObservedMetrics() []ObservedMetrics {
	var out []ObservedMetrics
	for _, o := range r.observed {
		if rep, ok := o.Report(operators.EndOfDataEpoch); ok {
			out = append(out, ObservedMetrics{Name: o.Name, Schema: o.Schema, Values: rep.Values})
		}
	}
	return out
}
