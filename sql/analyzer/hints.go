package analyzer

import (
	"context"
	"fmt"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// joinStrategies maps Spark's join strategy hint names (case-insensitive) to the strategy a
// ResolvedHint shows (Spark's JoinStrategyHint hintAliases and displayName).
var joinStrategies = map[string]string{
	"BROADCAST": "broadcast", "BROADCASTJOIN": "broadcast", "MAPJOIN": "broadcast",
	"SHUFFLE_MERGE": "merge", "MERGE": "merge", "MERGEJOIN": "merge",
	"SHUFFLE_HASH": "shuffle_hash", "SHUFFLE_REPLICATE_NL": "shuffle_replicate_nl",
}

// namedHint is a join strategy hint naming a relation (SELECT /*+ BROADCAST(t) */).
type namedHint struct {
	name     []string
	strategy string
}

// hintScopeKey keys the named join hints in force while the analyzer resolves a hint's input.
type hintScopeKey struct{}

// resolveHint resolves a hint as Spark's ResolveHints do: a join strategy hint without
// parameters marks its whole input (ResolvedHint); one with relation names marks the
// relations of its input so named (resolveHinted); COALESCE, REPARTITION,
// REPARTITION_BY_RANGE and REBALANCE repartition; any other hint is dropped (Spark logs a
// warning and removes it).
func (a *Analyzer) resolveHint(ctx context.Context, n *plan.Hint) (*resolved, error) {
	upper := strings.ToUpper(n.Name)
	if strategy, ok := joinStrategies[upper]; ok {
		if len(n.Params) == 0 {
			in, err := a.resolve(ctx, n.Input)
			if err != nil {
				return nil, err
			}
			return a.keepScope(in, &logical.ResolvedHint{Input: in.node, Strategy: strategy}), nil
		}
		scope, _ := ctx.Value(hintScopeKey{}).([]namedHint)
		scope = append([]namedHint(nil), scope...)
		for _, p := range n.Params {
			name, err := hintRelationName(p)
			if err != nil {
				return nil, err
			}
			scope = append(scope, namedHint{name: name, strategy: strategy})
		}
		return a.resolve(context.WithValue(ctx, hintScopeKey{}, scope), n.Input)
	}
	switch upper {
	case "COALESCE", "REPARTITION", "REPARTITION_BY_RANGE", "REBALANCE":
		r, err := repartitionHint(upper, n)
		if err != nil {
			return nil, err
		}
		return a.resolveRepartition(ctx, r)
	}
	return a.resolve(ctx, n.Input)
}

// hintRelationName is a join strategy hint's parameter as a relation name: an identifier or
// a string (Spark's ResolveJoinStrategyHints).
func hintRelationName(p plan.Expr) ([]string, error) {
	switch x := hintParam(p).(type) {
	case plan.ColumnRef:
		return x.Name, nil
	case plan.Literal:
		if s, ok := x.Value.(string); ok {
			return parser.ParseMultipartIdentifier(s)
		}
	}
	return nil, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1046", "",
		"Join strategy hint parameter should be an identifier or string but was %q (class %s).",
		hintParamSQL(p), "org.apache.spark.sql.catalyst.expressions.Literal")
}

func hintParamSQL(p plan.Expr) string {
	if l, ok := hintParam(p).(plan.Literal); ok {
		return fmt.Sprint(l.Value)
	}
	return fmt.Sprint(p)
}

// hintParam is a hint parameter as a value (the parser makes values, protoconv either).
func hintParam(p plan.Expr) plan.Expr {
	switch x := p.(type) {
	case *plan.Literal:
		return *x
	case *plan.ColumnRef:
		return *x
	case *plan.SortOrder:
		return *x
	}
	return p
}

// repartitionHint is the repartition a COALESCE(n), REPARTITION([n,] cols…),
// REPARTITION_BY_RANGE([n,] cols…) or REBALANCE(cols…) hint asks for (Spark's
// ResolveCoalesceHints); strings name columns.
func repartitionHint(name string, n *plan.Hint) (*plan.Repartition, error) {
	r := &plan.Repartition{Input: n.Input, Shuffle: name != "COALESCE"}
	params := n.Params
	if len(params) > 0 && name != "REBALANCE" {
		if l, ok := hintParam(params[0]).(plan.Literal); ok && l.Type.Kind == sqltypes.Integer {
			r.NumPartitions = l.Value.(int32)
			params = params[1:]
			if r.NumPartitions <= 0 {
				return nil, sparkerr.IllegalArgument("requirement failed: Number of partitions (%d) must be positive.", r.NumPartitions)
			}
		}
	}
	if name == "COALESCE" {
		if r.NumPartitions == 0 || len(params) > 0 {
			return nil, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1048", "", "COALESCE Hint expects a partition number as a parameter.")
		}
		return r, nil
	}
	for _, p := range params {
		switch x := hintParam(p).(type) {
		case plan.Literal:
			s, ok := x.Value.(string)
			if !ok {
				return nil, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1049", "",
					"%s Hint parameter should include columns, but %s found.", name, hintParamSQL(p))
			}
			r.Exprs = append(r.Exprs, plan.ColumnRef{Name: []string{s}})
		case plan.SortOrder:
			r.Exprs = append(r.Exprs, x.Child)
		default:
			r.Exprs = append(r.Exprs, p)
		}
	}
	if r.NumPartitions == 0 && len(r.Exprs) == 0 {
		// REPARTITION / REBALANCE without parameters: the default number of partitions.
		r.Exprs = nil
		r.NumPartitions = int32(defaultPartitions)
	}
	return r, nil
}

// resolveHinted resolves a relation a named join hint may mark (a SubqueryAlias or a table
// or view by name): it is wrapped in a ResolvedHint when a hint in force names it (the hint's
// name parts match the end of the relation's qualifier), and the hints in force do not reach
// below it (Spark's ResolveJoinStrategyHints stops at a SubqueryAlias or View).
func (a *Analyzer) resolveHinted(ctx context.Context, qualifier []string, resolve func(context.Context) (*resolved, error)) (*resolved, error) {
	scope, _ := ctx.Value(hintScopeKey{}).([]namedHint)
	if len(scope) == 0 {
		return resolve(ctx)
	}
	r, err := resolve(context.WithValue(ctx, hintScopeKey{}, []namedHint(nil)))
	if err != nil {
		return nil, err
	}
	for _, h := range scope {
		if a.hintNames(h.name, qualifier) {
			r = a.keepScope(r, &logical.ResolvedHint{Input: r.node, Strategy: h.strategy})
			break
		}
	}
	return r, nil
}

// hintNames reports whether a hint's relation name matches the end of qualifier.
func (a *Analyzer) hintNames(name, qualifier []string) bool {
	if len(name) == 0 || len(name) > len(qualifier) {
		return false
	}
	tail := qualifier[len(qualifier)-len(name):]
	for i := range name {
		if a.CaseSensitive && name[i] != tail[i] || !a.CaseSensitive && !strings.EqualFold(name[i], tail[i]) {
			return false
		}
	}
	return true
}
