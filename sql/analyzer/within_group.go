package analyzer

import (
	"strconv"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
)

// orderedSetOrder is the bound WITHIN GROUP (ORDER BY key [DESC]) of an ordered-set aggregate
// (percentile_cont, percentile_disc).
type orderedSetOrder struct {
	key  expr.Expr
	desc bool
}

// withinGroup binds c's WITHIN GROUP clause: one sort key, as Spark requires.
func (b *binder) withinGroup(c plan.Call) (*orderedSetOrder, error) {
	if len(c.WithinGroup) != 1 {
		return nil, sparkerr.Analysis("INVALID_WITHIN_GROUP_EXPRESSION.WRONG_NUM_ORDERINGS", "42K0K",
			"Invalid function `%s` with WITHIN GROUP. The function requires 1 orderings in WITHIN GROUP but got %d.",
			c.Name, len(c.WithinGroup)).WithParams("funcName", "`"+c.Name+"`", "expectedNum", "1", "actualNum", strconv.Itoa(len(c.WithinGroup)))
	}
	key, err := b.bind(c.WithinGroup[0].Child)
	if err != nil {
		return nil, err
	}
	return &orderedSetOrder{key: key, desc: c.WithinGroup[0].Descending}, nil
}

// bindAggregate binds name(args) with this WITHIN GROUP clause, or as a plain aggregate when o
// is nil.
func (o *orderedSetOrder) bindAggregate(name string, args []expr.Expr, distinct bool, opts expr.Options) (expr.AggFunc, error) {
	if o == nil {
		return expr.BindAggregate(name, args, distinct, opts)
	}
	return expr.BindOrderedSet(name, args, distinct, o.key, o.desc, opts)
}
