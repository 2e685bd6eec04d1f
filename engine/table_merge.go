package engine

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// MERGE INTO on Iceberg tables, copy-on-write as Iceberg's Spark runtime does by default
// (Spark's RewriteMergeIntoTable for group-based tables): the target as of its current
// snapshot is outer-joined with the source on the merge condition, each joined row takes the
// first clause of its kind whose condition holds (matched, not matched by target, not matched
// by source), and the rows kept, rewritten and inserted replace the snapshot's data files in
// one overwrite snapshot (refused if another writer committed in between). A MERGE with only
// NOT MATCHED clauses appends the inserted rows (source anti-joined with the target), as
// Spark's rewrite does. A target row matched by several source rows is Spark's
// MERGE_CARDINALITY_VIOLATION unless the only matched clause is an unconditional DELETE.

// Columns the merge's join carries besides the target's and the source's.
const (
	mergeTargetMarker = "__weir_merge_target_present"
	mergeSourceMarker = "__weir_merge_source_present"
	mergeRowID        = "__weir_merge_target_row"
	mergeKeep         = "__weir_merge_keep"
	mergeSourceAlias  = "__weir_merge_source"
)

func (s *Session) mergeInto(ctx context.Context, m *plan.MergeInto) (*Result, error) {
	t, base, err := s.dmlTarget(ctx, m.Table, "MERGE INTO TABLE")
	if err != nil {
		return nil, err
	}
	schema, err := schemaOfTable(t)
	if err != nil {
		return nil, err
	}
	targetAlias := m.Alias
	if targetAlias == "" {
		targetAlias = m.Table[len(m.Table)-1]
	}
	source, sourceAlias := mergeSource(m.Source)
	mb := mergeBuilder{schema: schema, targetAlias: targetAlias, sourceAlias: sourceAlias}
	if len(m.Matched) == 0 && len(m.NotMatchedBySource) == 0 {
		// Only inserts: the source rows no target row matches, appended.
		rel := &plan.Join{Left: source, Right: mergeTargetRelation(m.Table, targetAlias, base, false),
			Type: plan.LeftAntiJoin, Condition: m.Condition}
		out, err := mb.output(rel, nil, nil, m.NotMatched, false)
		if err != nil {
			return nil, err
		}
		return s.empty2(s.insertRows(ctx, t, &plan.InsertInto{Input: out}, true))
	}
	target := mergeTargetRelation(m.Table, targetAlias, base, true)
	if cardinalityCheckNeeded(m.Matched) {
		if err := s.checkMergeCardinality(ctx, target, source, m.Condition); err != nil {
			return nil, err
		}
	}
	joinType := plan.LeftOuterJoin
	if len(m.NotMatched) > 0 {
		joinType = plan.FullOuterJoin
	}
	rel := &plan.Join{Left: target, Right: source, Type: joinType, Condition: m.Condition}
	out, err := mb.output(rel, m.Matched, m.NotMatchedBySource, m.NotMatched, true)
	if err != nil {
		return nil, err
	}
	node, err := s.analyzer().Resolve(ctx, out)
	if err != nil {
		return nil, err
	}
	return s.empty2(s.rewriteIceberg(ctx, t, node, base))
}

// cardinalityCheckNeeded is Spark's RewriteMergeIntoTable.isCardinalityCheckNeeded: a target
// row matched more than once is harmless only when every match deletes it.
func cardinalityCheckNeeded(matched []plan.MergeAction) bool {
	return !(len(matched) == 1 && matched[0].Kind == plan.MergeDelete && matched[0].Condition == nil)
}

// checkMergeCardinality fails with MERGE_CARDINALITY_VIOLATION if a target row joins more than
// one source row.
func (s *Session) checkMergeCardinality(ctx context.Context, target, source plan.Relation, cond plan.Expr) error {
	dup := &plan.Limit{N: 1, Input: &plan.Filter{
		Input: &plan.Aggregate{
			Input:    &plan.Join{Left: target, Right: source, Type: plan.InnerJoin, Condition: cond},
			Grouping: []plan.Expr{plan.Col(mergeRowID)},
			Aggs:     []plan.Expr{plan.Alias{Child: plan.Fn("count", plan.Lit(int32(1), sqltypes.IntegerType)), Names: []string{"n"}}},
		},
		Condition: plan.Fn(">", plan.Col("n"), plan.Lit(int64(1), sqltypes.LongType)),
	}}
	node, err := s.analyzer().Resolve(ctx, dup)
	if err != nil {
		return err
	}
	rows, err := s.collectRows(ctx, node, 1)
	if err != nil {
		return err
	}
	if len(rows) > 0 {
		return sparkerr.New("org.apache.spark.SparkRuntimeException", "MERGE_CARDINALITY_VIOLATION", "23K01",
			"The ON search condition of the MERGE statement matched a single row from the target table with multiple "+
				"rows of the source table. This could result in the target row being operated on more than once with "+
				"an update or delete operation and is not allowed.")
	}
	return nil
}

// mergeTargetRelation reads the target as of snapshot base (0: the table has none) under
// alias, with a marker column and, if rowID, a row id for the cardinality check.
func mergeTargetRelation(name []string, alias string, base int64, rowID bool) plan.Relation {
	var rel plan.Relation = &plan.NamedTable{Name: name}
	if base != 0 {
		rel = dmlSource(name, "", base)
	}
	exprs := []plan.Expr{plan.Star{}, plan.Alias{Child: plan.Lit(true, sqltypes.BooleanType), Names: []string{mergeTargetMarker}}}
	if rowID {
		exprs = append(exprs, plan.Alias{Child: plan.Fn("monotonically_increasing_id"), Names: []string{mergeRowID}})
	}
	return &plan.SubqueryAlias{Input: &plan.Project{Input: rel, Exprs: exprs}, Alias: alias}
}

// mergeSource is the source with a marker column, under its alias (a table's name when not
// aliased), and that alias.
func mergeSource(src plan.Relation) (plan.Relation, string) {
	alias := mergeSourceAlias
	switch r := src.(type) {
	case *plan.SubqueryAlias:
		alias = r.Alias
	case *plan.NamedTable:
		alias = r.Name[len(r.Name)-1]
	}
	marked := &plan.Project{Input: src, Exprs: []plan.Expr{plan.Star{},
		plan.Alias{Child: plan.Lit(true, sqltypes.BooleanType), Names: []string{mergeSourceMarker}}}}
	return &plan.SubqueryAlias{Input: marked, Alias: alias}, alias
}

// mergeBuilder builds the rows a MERGE leaves in (or adds to) its target.
type mergeBuilder struct {
	schema      sqltypes.Schema
	targetAlias string
	sourceAlias string
}

// output is rel's rows as the target's columns after the clauses: a matched row (both markers)
// takes matched, a target row without a source row notMatchedBySource, a source row without
// a target row notMatched; rows deleted or not inserted are filtered out. withTarget says rel
// carries the target's columns.
func (b *mergeBuilder) output(rel plan.Relation, matched, bySource, notMatched []plan.MergeAction, withTarget bool) (plan.Relation, error) {
	targetPresent := plan.Fn("isnotnull", plan.Col(mergeTargetMarker))
	sourcePresent := plan.Fn("isnotnull", plan.Col(mergeSourceMarker))
	exprs := make([]plan.Expr, 0, len(b.schema)+1)
	for i := -1; i < len(b.schema); i++ { // -1: the keep flag
		m, err := b.chain(matched, i, true)
		if err != nil {
			return nil, err
		}
		bs, err := b.chain(bySource, i, true)
		if err != nil {
			return nil, err
		}
		nm, err := b.chain(notMatched, i, false)
		if err != nil {
			return nil, err
		}
		v := nm
		if withTarget {
			v = plan.Fn("when", plan.Fn("and", targetPresent, sourcePresent), m, targetPresent, bs, nm)
		}
		name := mergeKeep
		if i >= 0 {
			name = b.schema[i].Name
		}
		exprs = append(exprs, plan.Alias{Child: v, Names: []string{name}})
	}
	cols := make([]plan.Expr, len(b.schema))
	for i, f := range b.schema {
		cols[i] = plan.Col(f.Name)
	}
	return &plan.Project{Input: &plan.Filter{Input: &plan.Project{Input: rel, Exprs: exprs},
		Condition: plan.Col(mergeKeep)}, Exprs: cols}, nil
}

// chain is column i's value (i = -1: whether the row stays) after the first of clauses whose
// condition holds; with none, a target row stays as it is (onTarget) and a source row is not
// inserted.
func (b *mergeBuilder) chain(clauses []plan.MergeAction, i int, onTarget bool) (plan.Expr, error) {
	var otherwise plan.Expr
	switch {
	case i < 0:
		otherwise = plan.Lit(onTarget, sqltypes.BooleanType)
	case onTarget:
		otherwise = b.targetCol(i)
	default:
		otherwise = plan.Lit(nil, b.schema[i].Type)
	}
	var args []plan.Expr
	for _, c := range clauses {
		v, err := b.value(c, i, onTarget)
		if err != nil {
			return nil, err
		}
		var cond plan.Expr = plan.Lit(true, sqltypes.BooleanType)
		if c.Condition != nil {
			cond = plan.Fn("coalesce", c.Condition, plan.Lit(false, sqltypes.BooleanType))
		}
		args = append(args, cond, v)
	}
	if len(args) == 0 {
		return otherwise, nil
	}
	return plan.Fn("when", append(args, otherwise)...), nil
}

// value is column i's value (i = -1: whether the row stays) under clause c.
func (b *mergeBuilder) value(c plan.MergeAction, i int, onTarget bool) (plan.Expr, error) {
	if i < 0 {
		return plan.Lit(c.Kind != plan.MergeDelete, sqltypes.BooleanType), nil
	}
	f := b.schema[i]
	var v plan.Expr
	switch c.Kind {
	case plan.MergeDelete:
		return b.targetCol(i), nil
	case plan.MergeUpdateStar, plan.MergeInsertStar:
		v = plan.Col(b.sourceAlias, f.Name)
	default:
		set, err := b.assignments(c)
		if err != nil {
			return nil, err
		}
		x, ok := set[i]
		switch {
		case ok:
			v = x
		case onTarget:
			return b.targetCol(i), nil
		default:
			return plan.Lit(nil, f.Type), nil
		}
	}
	return plan.Cast{Child: v, To: f.Type, Mode: plan.CastANSI}, nil
}

func (b *mergeBuilder) targetCol(i int) plan.Expr { return plan.Col(b.targetAlias, b.schema[i].Name) }

// assignments are c's values by target column index; a column may be qualified by the
// target's alias.
func (b *mergeBuilder) assignments(c plan.MergeAction) (map[int]plan.Expr, error) {
	out := map[int]plan.Expr{}
	for _, a := range c.Assignments {
		col := a.Column
		if len(col) == 2 && strings.EqualFold(col[0], b.targetAlias) {
			col = col[1:]
		}
		i := -1
		if len(col) == 1 {
			i = fieldIndex(b.schema, col[0])
		}
		if i < 0 {
			return nil, sparkerr.UnresolvedColumn(a.Column, b.schema.Names())
		}
		if _, dup := out[i]; dup {
			return nil, sparkerr.Analysis("DUPLICATE_ASSIGNMENTS", "42701",
				"The columns or variables %s appear more than once as assignment targets.", sparkerr.Quote(b.schema[i].Name)).
				WithParams("nameList", sparkerr.Quote(b.schema[i].Name))
		}
		out[i] = a.Value
	}
	return out, nil
}
