package analyzer

import (
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sparkerr"
)

// bindParameters substitutes spark.sql(text, args) parameters into the parsed query.
func bindParameters(rel plan.Relation, named map[string]plan.Expr, positional []plan.Expr) (plan.Relation, error) {
	if len(named) == 0 && len(positional) == 0 {
		return rel, nil
	}
	return nil, sparkerr.Unsupported("parameterized SQL (spark.sql with args) is not supported yet")
}
