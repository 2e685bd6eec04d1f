package optimizer

import (
	"math"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
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
		case x.Type == plan.LeftSemiJoin && len(x.LeftKeys) > 0:
			// A left row is kept when its key is among the right's: at most the right's rows
			// of its distinct keys.
			return l * min(1, estimateRows(x.Right, o)/keyDistinct(x.Left, x.LeftKeys[0], o))
		case x.Type == plan.LeftSemiJoin || x.Type == plan.LeftAntiJoin:
			return l
		case len(x.LeftKeys) > 0:
			// Keys taken as correlated, as in joinOrder: the most selective one counts.
			sel := 1.0
			for i := range x.LeftKeys {
				sel = min(sel, keySelectivity(x.Left, x.LeftKeys[i], x.Right, x.RightKeys[i], o))
			}
			return l * r * sel
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

// distinctValues guesses how many distinct values column col of n's output holds: the
// scan's bound (Options.Distinct) traced through Filters, Projects of columns and joins, never
// more than n's rows; unknown columns are taken as keys (as many values as rows).
func distinctValues(n logical.Node, col int, o *Options) float64 {
	rows := estimateRows(n, o)
	if d, ok := distinctOf(n, col, o); ok {
		return max(1, min(d, rows))
	}
	return max(1, rows)
}

func distinctOf(n logical.Node, col int, o *Options) (float64, bool) {
	scan, c := scanColumn(n, col)
	if scan == nil || o.Distinct == nil {
		return 0, false
	}
	d, ok := o.Distinct(scan, c)
	return float64(d), ok
}

// scanColumn traces column col of n to the scan it is read from and its column there,
// through Filters, Projects of columns and joins; nil when it does not trace to one.
func scanColumn(n logical.Node, col int) (*logical.SourceScan, int) {
	switch x := n.(type) {
	case *logical.SourceScan:
		return x, col
	case *logical.Filter:
		return scanColumn(x.Input, col)
	case *logical.Project:
		if c, ok := stripAlias(x.Exprs[col]).(*expr.Column); ok {
			return scanColumn(x.Input, c.Index)
		}
	case *logical.Join:
		nl := len(x.Left.Schema())
		if col < nl {
			return scanColumn(x.Left, col)
		}
		return scanColumn(x.Right, col-nl)
	}
	return nil, 0
}

// keySelectivity is the fraction of pairs an equi-join key keeps: 1 / the larger number of
// distinct values of its sides (a side that is not a column is taken as a key of its input),
// the foreign key side's count capped by the key side's unfiltered count (equiDistinct).
func keySelectivity(l logical.Node, lk expr.Expr, r logical.Node, rk expr.Expr, o *Options) float64 {
	return 1 / equiDistinct(keyDistinct(l, lk, o), keyBase(l, lk, o), keyDistinct(r, rk, o), keyBase(r, rk, o))
}

// base is what the scan a column is read from says of it before any filter: a bound of its
// distinct values and the scan's rows (both +Inf when the column does not trace to a scan).
type base struct{ distinct, rows float64 }

// unique reports whether the column looks like its scan's key: no fewer values than rows.
func (b base) unique() bool { return !math.IsInf(b.rows, 1) && b.distinct >= b.rows }

// equiDistinct is the distinct count an equality's selectivity divides by: the larger of its
// sides' counts dl and dr, after the containment assumption: when one side looks like its
// scan's key (as many values as rows; of two such, the smaller scan's), the other side, a
// foreign key, takes no value the key's unfiltered scan lacks, so its count is capped by that
// scan's. Min/max bounds overstate a sparse column's values: TPC-H's l_orderkey spans 6M values
// but holds 1.5M, and the cap by orders' 1.5M rows keeps lineitem ⋈ orders at lineitem's rows,
// not a quarter of them.
func equiDistinct(dl float64, bl base, dr float64, br base) float64 {
	lKey, rKey := bl.unique(), br.unique()
	switch {
	case rKey && (!lKey || br.rows <= bl.rows):
		dl = min(dl, br.distinct)
	case lKey:
		dr = min(dr, bl.distinct)
	}
	return max(1, dl, dr)
}

func keyBase(n logical.Node, k expr.Expr, o *Options) base {
	if c, ok := stripAlias(k).(*expr.Column); ok {
		return baseOf(n, c.Index, o)
	}
	return base{math.Inf(1), math.Inf(1)}
}

// baseOf is what the scan column col of n is read from says of it (scanColumn).
func baseOf(n logical.Node, col int, o *Options) base {
	scan, c := scanColumn(n, col)
	if scan == nil {
		return base{math.Inf(1), math.Inf(1)}
	}
	rows := estimateRows(scan, o)
	d := rows
	if b, ok := distinctOf(scan, c, o); ok {
		d = min(d, b)
	}
	return base{distinct: max(1, d), rows: rows}
}

func keyDistinct(n logical.Node, k expr.Expr, o *Options) float64 {
	if c, ok := stripAlias(k).(*expr.Column); ok {
		return distinctValues(n, c.Index, o)
	}
	return max(1, estimateRows(n, o))
}

// rowSize is a row's guessed size in bytes: the sum of its columns' default sizes (Spark's
// DataType.defaultSize: 20 for a string, 100 for a binary, one element or entry for an array
// or map).
func rowSize(s sqltypes.Schema) int64 {
	var n int64
	for _, f := range s {
		n += typeSize(f.Type)
	}
	return max(n, 1)
}

func typeSize(t sqltypes.DataType) int64 {
	switch t.Kind {
	case sqltypes.Null, sqltypes.Boolean, sqltypes.Byte:
		return 1
	case sqltypes.Short:
		return 2
	case sqltypes.Integer, sqltypes.Float, sqltypes.Date, sqltypes.YearMonthInterval:
		return 4
	case sqltypes.Decimal:
		if t.Precision <= 18 {
			return 8
		}
		return 16
	case sqltypes.String:
		return 20
	case sqltypes.Binary, sqltypes.Variant:
		return 100
	case sqltypes.Array:
		return typeSize(*t.Elem)
	case sqltypes.Map:
		return typeSize(*t.Key) + typeSize(*t.Value)
	case sqltypes.Struct:
		return rowSize(t.Fields)
	}
	return 8
}
