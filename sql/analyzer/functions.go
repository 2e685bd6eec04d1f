package analyzer

import (
	"sort"

	"github.com/weirhq/weir/sql/expr"
)

// syntaxFunctions are names in Spark's function list that Weir's front doors turn into other
// calls or plans before analysis: CAST (and ::) is plan.Cast, `a || b` is concat, range(…) in FROM
// is plan.Range.
var syntaxFunctions = []string{"cast", "||", "range"}

// FunctionNames lists every function a query can call, sorted (SHOW FUNCTIONS, the catalog's
// listFunctions): expr's registry (expr.FunctionNames), the window-only functions, grouping and
// grouping_id, which this package binds itself, and syntaxFunctions.
func FunctionNames() []string {
	names := expr.FunctionNames()
	for n := range rankingFuncs {
		names = append(names, n)
	}
	names = append(names, offsetFuncs...)
	names = append(names, "grouping", "grouping_id")
	names = append(names, syntaxFunctions...)
	sort.Strings(names)
	return names
}
