package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// defaultRows is the row count assumed for a scan without statistics.
const defaultRows = 1_000_000

// estimateRows guesses how many rows n outputs (see doc.go, Estimates).
func estimateRows(n logical.Node, o *Options) float64 {
	switch x := n.(type) {
	case *logical.SourceScan:
		if o.Stats != nil {
			if rows, ok := o.Stats(x); ok {
				return float64(rows)
			}
		}
		return defaultRows
	case *logical.LocalData:
		var rows int64
		for _, r := range x.Records {
			rows += r.NumRows()
		}
		if x.Snapshot != nil {
			return defaultRows
		}
		return float64(rows)
	case *logical.Range:
		if x.Step == 0 {
			return 0
		}
		return max(0, float64((x.End-x.Start)/x.Step))
	case *logical.Filter:
		rows := estimateRows(x.Input, o)
		for _, c := range expr.Conjuncts(x.Cond) {
			rows *= selectivity(c)
		}
		return rows
	case *logical.Aggregate:
		if len(x.Groups) == 0 {
			return 1
		}
		return estimateRows(x.Input, o) / 10
	case *logical.Limit:
		return min(estimateRows(x.Input, o), float64(max(x.N, 0)))
	case *logical.Join:
		l, r := estimateRows(x.Left, o), estimateRows(x.Right, o)
		switch {
		case x.Type == plan.LeftSemiJoin || x.Type == plan.LeftAntiJoin:
			return l
		case len(x.LeftKeys) > 0:
			return max(l, r)
		}
		return l * r
	case *logical.Union:
		var rows float64
		for _, in := range x.Inputs {
			rows += estimateRows(in, o)
		}
		return rows
	}
	if cs := n.Children(); len(cs) == 1 {
		return estimateRows(cs[0], o)
	}
	return defaultRows
}

// selectivity is the fraction of rows a conjunct is guessed to keep.
func selectivity(c expr.Expr) float64 {
	if _, _, ok := expr.Equality(c); ok {
		return 0.1
	}
	if expr.IsOr(c) {
		s := 0.0
		for _, d := range expr.Disjuncts(c) {
			s += selectivity(d)
		}
		return min(s, 1)
	}
	return 1.0 / 3
}
