package analyzer

import (
	"context"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Scalar subqueries (Spark's RewriteCorrelatedScalarSubquery). An uncorrelated one is computed
// once as a one-row aggregate of at most two of its rows (NULL when it has none, Spark's
// SCALAR_SUBQUERY_TOO_MANY_ROWS when it has two) left-outer-joined onto every row. A correlated
// one's aggregate is grouped by the inner sides of its `inner = outer` predicates (or by the
// outer values: subquery_domain.go) and left-outer-joined on them, so each outer row meets the
// one group of its values. An outer row without a group gets what the subquery gives over no
// rows: NULL for most aggregates, but 0 for count(*) (the "count bug"): when that value is not
// NULL the joined column is `if(isnull(matched), value on no rows, value)`. Without an
// aggregate, or with a GROUP BY, the rows are counted per correlation key and more than one is
// SCALAR_SUBQUERY_TOO_MANY_ROWS at run time, as in Spark 4.2.

// joinScalarSubquery left-outer-joins the value of scalar subquery rel onto in as its last
// column, named as Spark names the subquery (scalarsubquery(outer columns)).
func (a *Analyzer) joinScalarSubquery(ctx context.Context, in *resolved, rel plan.Relation) (*resolved, string, error) {
	s, err := a.resolveSubquery(ctx, in, rel)
	if err != nil {
		return nil, "", err
	}
	r, err := a.scalarJoin(in, s)
	return r, "scalarsubquery(" + outerNames(s) + ")", err
}

// scalarJoin left-outer-joins the value of the resolved scalar subquery s onto in.
func (a *Analyzer) scalarJoin(in *resolved, s *subquery) (*resolved, error) {
	if s.width != 1 {
		return nil, sparkerr.Analysis("INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN", "42823",
			"Invalid subquery: Scalar subquery must return only one column, but got %d.", s.width).
			WithParams("number", formatInt(int64(s.width)))
	}
	if !s.correlated() {
		one, err := a.singleRow(s.res)
		if err != nil {
			return nil, err
		}
		j := &logical.Join{Left: in.node, Right: one.node, Type: plan.LeftOuterJoin}
		return a.joinOutput(j, in, one), nil
	}
	if s.agg == nil && s.domain == nil && !allEqualities(s.preds) {
		// One row per outer row needs the outer values themselves.
		if err := a.pullUp(s, false, true); err != nil {
			return nil, err
		}
	}
	var empty expr.Expr
	if s.agg == nil || len(s.agg.orig.Groups) > 0 {
		// Without an aggregate, or with a GROUP BY, an outer row may meet several rows
		// (Spark's run-time SCALAR_SUBQUERY_TOO_MANY_ROWS) or none (NULL).
		if err := a.onePerKey(s); err != nil {
			return nil, err
		}
	} else {
		var err error
		if empty, err = a.valueOverNoRows(s.agg); err != nil {
			return nil, err
		}
	}
	nl := len(in.cols)
	j := &logical.Join{Left: in.node, Right: s.res.node, Type: plan.LeftOuterJoin}
	if err := a.correlatedCondition(j, s, nl); err != nil {
		return nil, err
	}
	joined := a.joinOutput(j, in, s.res)
	value := expr.Expr(joined.ref(nl))
	if empty != nil {
		pos, ok := s.pos[matchedKey]
		if !ok {
			return nil, sparkerr.Internal("analyzer: correlated aggregate has no match column")
		}
		unmatched, err := expr.Bind("isnull", []expr.Expr{joined.ref(nl + pos)}, a.Options)
		if err != nil {
			return nil, err
		}
		if value, err = expr.Bind("if", []expr.Expr{unmatched, empty, value}, a.Options); err != nil {
			return nil, err
		}
	}
	refs := append(in.allRefs(), value)
	out := joined.project(refs)
	if len(out.cols) == len(joined.cols) {
		return out, nil
	}
	for i := range in.cols {
		out.cols[i] = in.cols[i]
		out.cols[i].nullable = out.node.Schema()[i].Nullable
	}
	return out, nil
}

// matchedKey names the always-true column a pulled-up aggregate adds to its output: NULL after
// the left outer join when an outer row met no group.
var matchedKey = carriedKey{marker: nil, idx: -1}

// valueOverNoRows is the subquery's value when its aggregate sees no row (the aggregates' empty
// results through the operators above it), as a literal; nil when that value is NULL.
func (a *Analyzer) valueOverNoRows(p *pulledAggregate) (expr.Expr, error) {
	ctx := &expr.Context{Mem: memory.DefaultAllocator, ANSI: a.Options.ANSI}
	schema := p.orig.Schema()
	cols := make([]arrow.Array, len(p.orig.Aggs))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, ag := range p.orig.Aggs {
		acc := ag.NewAccumulator(ctx)
		acc.Grow(1)
		arr, err := acc.Result(ctx, []uint32{0})
		if err != nil {
			return nil, err
		}
		cols[i] = arr
	}
	batch := array.NewRecordBatch(a.arrowSchema(schema), cols, 1)
	defer func() { batch.Release() }()
	for k := len(p.above) - 1; k >= 0; k-- {
		switch n := p.above[k].(type) {
		case *logical.Project:
			out := make([]arrow.Array, len(n.Exprs))
			for i, e := range n.Exprs {
				arr, err := e.Eval(ctx, batch)
				if err != nil {
					for _, o := range out[:i] {
						o.Release()
					}
					return nil, err
				}
				out[i] = arr
			}
			next := array.NewRecordBatch(a.arrowSchema(n.Schema()), out, 1)
			for _, o := range out {
				o.Release()
			}
			batch.Release()
			batch = next
		case *logical.Filter:
			arr, err := n.Cond.Eval(ctx, batch)
			if err != nil {
				return nil, err
			}
			keep, _ := expr.ValueAt(arr, 0, n.Cond.Type()).(bool)
			arr.Release()
			if !keep {
				return nil, nil // HAVING drops the empty group: the subquery has no row
			}
		case *logical.Sort, *logical.Distinct:
		default:
			return nil, sparkerr.Internal("analyzer: %T above a correlated aggregate", n)
		}
	}
	var top logical.Node = p.orig
	if len(p.above) > 0 {
		top = p.above[0]
	}
	t := top.Schema()[0].Type
	v := expr.ValueAt(batch.Column(0), 0, t)
	if v == nil {
		return nil, nil
	}
	return expr.NewLiteral(v, t), nil
}

// arrowSchema is the Arrow schema of a logical schema (every column nullable).
func (a *Analyzer) arrowSchema(s sqltypes.Schema) *arrow.Schema {
	fs := sqltypes.ToArrowFields(s, a.Options.TimeZone)
	for i := range fs {
		fs[i].Nullable = true
	}
	return arrow.NewSchema(fs, nil)
}

// singleRow is the one-row relation holding sub's only value: NULL when sub has no row,
// SCALAR_SUBQUERY_TOO_MANY_ROWS (at run time) when it has more than one.
func (a *Analyzer) singleRow(sub *resolved) (*resolved, error) {
	if alwaysOneRow(sub.node) {
		return sub, nil
	}
	two := &logical.Limit{Input: sub.node, N: 2}
	count, err := expr.BindAggregate("count", []expr.Expr{expr.NewLiteral(int32(1), sqltypes.IntegerType)}, false, a.Options)
	if err != nil {
		return nil, err
	}
	first, err := expr.BindAggregate("first", []expr.Expr{sub.ref(0)}, false, a.Options)
	if err != nil {
		return nil, err
	}
	agg := newResolved(&logical.Aggregate{Input: two, Aggs: []expr.AggFunc{count, first},
		Names: []string{count.String(), first.String()}})
	c := sub.cols[0]
	value := &expr.Alias{Child: &oneRowValue{count: agg.ref(0), value: agg.ref(1)}, Name: c.name}
	out := agg.project([]expr.Expr{value})
	out.cols[0].qualifier, out.cols[0].planIDs = c.qualifier, c.planIDs
	return out, nil
}

// oneRowValue is value, the first row of a scalar subquery that has count rows; more than one
// row is Spark's SCALAR_SUBQUERY_TOO_MANY_ROWS.
type oneRowValue struct {
	count, value expr.Expr
}

// Type implements expr.Expr.
func (o *oneRowValue) Type() sqltypes.DataType { return o.value.Type() }

// Nullable implements expr.Expr.
func (o *oneRowValue) Nullable() bool { return true }

// String implements expr.Expr.
func (o *oneRowValue) String() string { return o.value.String() }

// Children implements expr.Expr.
func (o *oneRowValue) Children() []expr.Expr { return []expr.Expr{o.count, o.value} }

// WithChildren rebuilds the expression over new children (for rewriting bound expressions).
func (o *oneRowValue) WithChildren(cs []expr.Expr) expr.Expr {
	return &oneRowValue{count: cs[0], value: cs[1]}
}

// Eval implements expr.Expr.
func (o *oneRowValue) Eval(ctx *expr.Context, batch arrow.RecordBatch) (arrow.Array, error) {
	counts, err := o.count.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer counts.Release()
	for i := 0; i < counts.Len(); i++ {
		if n, _ := expr.ValueAt(counts, i, o.count.Type()).(int64); n > 1 {
			return nil, sparkerr.New(sparkerr.SparkException, "SCALAR_SUBQUERY_TOO_MANY_ROWS", "21000",
				"More than one row returned by a subquery used as an expression.")
		}
	}
	return o.value.Eval(ctx, batch)
}

// alwaysOneRow reports whether n has exactly one row: a global aggregate, or a projection of one.
func alwaysOneRow(n logical.Node) bool {
	switch n := n.(type) {
	case *logical.Aggregate:
		return len(n.Groups) == 0
	case *logical.Project:
		return alwaysOneRow(n.Input)
	}
	return false
}

// onePerKey reduces a grouped correlated subquery to one row per correlation key: its value,
// failing with SCALAR_SUBQUERY_TOO_MANY_ROWS at run time when a key has several, then the keys.
func (a *Analyzer) onePerKey(s *subquery) error {
	var keys []carriedKey
	for k := range s.pos {
		if k != matchedKey {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return s.pos[keys[i]] < s.pos[keys[j]] })
	groups := make([]expr.Expr, len(keys))
	for i, k := range keys {
		groups[i] = s.res.ref(s.pos[k])
	}
	count, err := expr.BindAggregate("count", []expr.Expr{expr.NewLiteral(int32(1), sqltypes.IntegerType)}, false, a.Options)
	if err != nil {
		return err
	}
	first, err := expr.BindAggregate("first", []expr.Expr{s.res.ref(0)}, false, a.Options)
	if err != nil {
		return err
	}
	agg := newResolved(&logical.Aggregate{Input: s.res.node, Groups: groups, Aggs: []expr.AggFunc{count, first},
		Names: []string{count.String(), first.String()}})
	n := len(keys)
	exprs := []expr.Expr{&expr.Alias{Child: &oneRowValue{count: agg.ref(n), value: agg.ref(n + 1)}, Name: s.res.cols[0].name}}
	pos := map[carriedKey]int{}
	for i, k := range keys {
		exprs = append(exprs, agg.ref(i))
		pos[k] = 1 + i
	}
	out := agg.project(exprs)
	out.cols[0] = s.res.cols[0]
	out.cols[0].nullable = true
	s.res, s.pos = out, pos
	return nil
}

// allEqualities reports whether every predicate is `inner = outer`.
func allEqualities(preds []*corrPred) bool {
	for _, p := range preds {
		if !p.equality {
			return false
		}
	}
	return true
}
