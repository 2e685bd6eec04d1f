package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
)

// measure(expr): Spark 4.2's Measure, the aggregate a metric view's query uses to name one of
// its measures; the analyzer replaces measure(m) over a metric view with m's aggregate
// (sql/analyzer/metric_view.go). Anywhere else it is unevaluable: the call resolves with its
// argument's type, so a schema is answered, and running it fails with Spark's INTERNAL_ERROR
// (UnevaluableAggregateFunc.aggBufferAttributes).

func init() {
	registerAggregate(1, 1, bindMeasure, "measure")
}

func bindMeasure(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	return &aggFunc{name: name, args: args, distinct: distinct, t: args[0].Type(), null: true, opts: opts, noRetract: true,
		newAcc: func(*Context) GroupedAccumulator { return unevaluableAcc{} }}, nil
}

// unevaluableAcc is the accumulator of an aggregate Spark cannot evaluate.
type unevaluableAcc struct{}

func unevaluableAggregate() *sparkerr.Error {
	return sparkerr.Internal("UnevaluableAggregateFunc.aggBufferAttributes should not be called.")
}

func (unevaluableAcc) Grow(int)                              {}
func (unevaluableAcc) SizeBytes() int64                      { return 0 }
func (unevaluableAcc) Update([]uint32, []arrow.Array) error  { return unevaluableAggregate() }
func (unevaluableAcc) Retract([]uint32, []arrow.Array) error { return unevaluableAggregate() }
func (unevaluableAcc) Result(*Context, []uint32) (arrow.Array, error) {
	return nil, unevaluableAggregate()
}
