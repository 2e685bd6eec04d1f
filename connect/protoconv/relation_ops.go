package protoconv

import (
	"sort"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// project is select(); a missing input is a SELECT without FROM.
func (t *translation) project(p *pb.Project) (plan.Relation, error) {
	var in plan.Relation
	if p.GetInput() != nil {
		var err error
		if in, err = t.relation(p.GetInput()); err != nil {
			return nil, err
		}
	}
	exprs, err := t.expressions(p.GetExpressions())
	if err != nil {
		return nil, err
	}
	return &plan.Project{Input: in, Exprs: exprs}, nil
}

func (t *translation) filter(f *pb.Filter) (plan.Relation, error) {
	in, err := t.input(f.GetInput(), "Filter")
	if err != nil {
		return nil, err
	}
	cond, err := t.required(f.GetCondition(), "Filter.condition")
	if err != nil {
		return nil, err
	}
	return &plan.Filter{Input: in, Condition: cond}, nil
}

// sort is orderBy (global, the default when is_global is unset) or sortWithinPartitions.
func (t *translation) sort(s *pb.Sort) (plan.Relation, error) {
	if s == nil {
		s = &pb.Sort{}
	}
	in, err := t.input(s.GetInput(), "Sort")
	if err != nil {
		return nil, err
	}
	order, err := t.sortOrders(s.GetOrder())
	if err != nil {
		return nil, err
	}
	isGlobal := true
	if s.IsGlobal != nil {
		isGlobal = s.GetIsGlobal()
	}
	return &plan.Sort{Input: in, Order: order, IsGlobal: isGlobal}, nil
}

func (t *translation) aggregate(a *pb.Aggregate) (plan.Relation, error) {
	in, err := t.input(a.GetInput(), "Aggregate")
	if err != nil {
		return nil, err
	}
	out := &plan.Aggregate{Input: in}
	if out.Grouping, err = t.expressions(a.GetGroupingExpressions()); err != nil {
		return nil, err
	}
	if out.Aggs, err = t.expressions(a.GetAggregateExpressions()); err != nil {
		return nil, err
	}
	switch a.GetGroupType() {
	case pb.Aggregate_GROUP_TYPE_GROUPBY:
		out.Type = plan.GroupBy
	case pb.Aggregate_GROUP_TYPE_ROLLUP:
		out.Type = plan.GroupRollup
	case pb.Aggregate_GROUP_TYPE_CUBE:
		out.Type = plan.GroupCube
	case pb.Aggregate_GROUP_TYPE_PIVOT:
		out.Type = plan.GroupPivot
		p := a.GetPivot()
		if p == nil {
			return nil, invalidPlan("Aggregate with GROUP_TYPE_PIVOT is missing pivot")
		}
		if out.PivotCol, err = t.required(p.GetCol(), "Aggregate.pivot.col"); err != nil {
			return nil, err
		}
		for _, v := range p.GetValues() {
			lit, err := Literal(v)
			if err != nil {
				return nil, err
			}
			out.PivotValues = append(out.PivotValues, lit)
		}
	case pb.Aggregate_GROUP_TYPE_GROUPING_SETS:
		out.Type = plan.GroupingSets
		for _, gs := range a.GetGroupingSets() {
			set, err := t.expressions(gs.GetGroupingSet())
			if err != nil {
				return nil, err
			}
			if set == nil {
				set = []plan.Expr{}
			}
			out.Sets = append(out.Sets, set)
		}
	default:
		return nil, invalidPlan("Aggregate has an unknown group_type %s", a.GetGroupType())
	}
	if out.Type != plan.GroupPivot {
		// Spark Connect's groupBy(...).agg(...) outputs the grouping columns, then the
		// aggregates (SparkConnectPlanner.transformAggregate); package plan's Aggs is the whole
		// output list, as in SQL.
		out.Aggs = append(append([]plan.Expr{}, out.Grouping...), out.Aggs...)
	}
	return out, nil
}

func (t *translation) deduplicate(d *pb.Deduplicate) (plan.Relation, error) {
	in, err := t.input(d.GetInput(), "Deduplicate")
	if err != nil {
		return nil, err
	}
	all := d.GetAllColumnsAsKeys()
	if all && len(d.GetColumnNames()) > 0 {
		return nil, invalidPlan("Cannot deduplicate on both all columns and a subset of columns")
	}
	if !all && len(d.GetColumnNames()) == 0 {
		return nil, invalidPlan("Deduplicate requires to either deduplicate on all columns or a subset of columns")
	}
	return &plan.Deduplicate{Input: in, Columns: cloneStrings(d.GetColumnNames()), AllColumns: all,
		WithinWatermark: d.GetWithinWatermark()}, nil
}

func (t *translation) setOp(s *pb.SetOperation) (plan.Relation, error) {
	left, err := t.input(s.GetLeftInput(), "SetOperation left")
	if err != nil {
		return nil, err
	}
	right, err := t.input(s.GetRightInput(), "SetOperation right")
	if err != nil {
		return nil, err
	}
	out := &plan.SetOp{Left: left, Right: right, IsAll: s.GetIsAll(), ByName: s.GetByName(),
		AllowMissing: s.GetAllowMissingColumns()}
	switch s.GetSetOpType() {
	case pb.SetOperation_SET_OP_TYPE_UNION:
		out.Type = plan.Union
	case pb.SetOperation_SET_OP_TYPE_INTERSECT:
		out.Type = plan.Intersect
	case pb.SetOperation_SET_OP_TYPE_EXCEPT:
		out.Type = plan.Except
	default:
		return nil, invalidPlan("SetOperation has an unknown set_op_type %s", s.GetSetOpType())
	}
	if out.ByName && out.Type != plan.Union {
		return nil, invalidPlan("by_name is only supported for UNION")
	}
	if out.AllowMissing && !out.ByName {
		return nil, invalidPlan("allow_missing_columns requires by_name")
	}
	return out, nil
}

var joinTypes = map[pb.Join_JoinType]plan.JoinType{
	pb.Join_JOIN_TYPE_INNER:       plan.InnerJoin,
	pb.Join_JOIN_TYPE_LEFT_OUTER:  plan.LeftOuterJoin,
	pb.Join_JOIN_TYPE_RIGHT_OUTER: plan.RightOuterJoin,
	pb.Join_JOIN_TYPE_FULL_OUTER:  plan.FullOuterJoin,
	pb.Join_JOIN_TYPE_LEFT_SEMI:   plan.LeftSemiJoin,
	pb.Join_JOIN_TYPE_LEFT_ANTI:   plan.LeftAntiJoin,
	pb.Join_JOIN_TYPE_CROSS:       plan.CrossJoin,
}

// join converts join(); join_data_type (struct-typed sides of typed joins) is not needed.
func (t *translation) join(j *pb.Join) (plan.Relation, error) {
	left, err := t.input(j.GetLeft(), "Join left")
	if err != nil {
		return nil, err
	}
	right, err := t.input(j.GetRight(), "Join right")
	if err != nil {
		return nil, err
	}
	jt, ok := joinTypes[j.GetJoinType()]
	if !ok {
		return nil, invalidPlan("Join has an unknown join_type %s", j.GetJoinType())
	}
	if j.GetJoinCondition() != nil && len(j.GetUsingColumns()) > 0 {
		return nil, invalidPlan("Using columns or join conditions cannot be set at the same time in Join")
	}
	out := &plan.Join{Left: left, Right: right, Type: jt, UsingColumns: cloneStrings(j.GetUsingColumns())}
	if j.GetJoinCondition() != nil {
		if out.Condition, err = t.expr(j.GetJoinCondition()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *translation) withColumns(w *pb.WithColumns) (plan.Relation, error) {
	in, err := t.input(w.GetInput(), "WithColumns")
	if err != nil {
		return nil, err
	}
	out := &plan.WithColumns{Input: in}
	for _, a := range w.GetAliases() {
		al, err := t.alias(a)
		if err != nil {
			return nil, err
		}
		if len(al.Names) != 1 {
			return nil, invalidPlan("WithColumns requires a single name per alias, got %d", len(al.Names))
		}
		out.Aliases = append(out.Aliases, al)
	}
	return out, nil
}

// withColumnsRenamed uses the ordered `renames` when sent (Spark 4 clients), else the deprecated
// map, in sorted key order since protobuf maps carry no order.
func (t *translation) withColumnsRenamed(w *pb.WithColumnsRenamed) (plan.Relation, error) {
	in, err := t.input(w.GetInput(), "WithColumnsRenamed")
	if err != nil {
		return nil, err
	}
	out := &plan.WithColumnsRenamed{Input: in}
	if len(w.GetRenames()) > 0 {
		for _, r := range w.GetRenames() {
			out.Renames = append(out.Renames, [2]string{r.GetColName(), r.GetNewColName()})
		}
		return out, nil
	}
	keys := make([]string, 0, len(w.GetRenameColumnsMap()))
	for k := range w.GetRenameColumnsMap() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out.Renames = append(out.Renames, [2]string{k, w.GetRenameColumnsMap()[k]})
	}
	return out, nil
}

func (t *translation) drop(d *pb.Drop) (plan.Relation, error) {
	in, err := t.input(d.GetInput(), "Drop")
	if err != nil {
		return nil, err
	}
	cols, err := t.expressions(d.GetColumns())
	if err != nil {
		return nil, err
	}
	return &plan.Drop{Input: in, Columns: cols, Names: cloneStrings(d.GetColumnNames())}, nil
}

// subqueryAlias is df.alias(name); the qualifier (catalog/database parts) is not kept.
func (t *translation) subqueryAlias(s *pb.SubqueryAlias) (plan.Relation, error) {
	in, err := t.input(s.GetInput(), "SubqueryAlias")
	if err != nil {
		return nil, err
	}
	if s.GetAlias() == "" {
		return nil, invalidPlan("SubqueryAlias is missing alias")
	}
	return &plan.SubqueryAlias{Input: in, Alias: s.GetAlias()}, nil
}

// sample is df.sample; without a seed the engine picks one, as Spark's server does.
func (t *translation) sample(s *pb.Sample) (plan.Relation, error) {
	if s == nil {
		s = &pb.Sample{}
	}
	in, err := t.input(s.GetInput(), "Sample")
	if err != nil {
		return nil, err
	}
	out := &plan.Sample{Input: in, LowerBound: s.GetLowerBound(), UpperBound: s.GetUpperBound(),
		WithReplacement: s.GetWithReplacement()}
	if !(out.LowerBound >= 0 && out.UpperBound >= out.LowerBound) {
		return nil, invalidPlan("Sample bounds [%v, %v) are invalid", out.LowerBound, out.UpperBound)
	}
	if s.Seed != nil {
		seed := s.GetSeed()
		out.Seed = &seed
	}
	return out, nil
}

func (t *translation) toSchema(s *pb.ToSchema) (plan.Relation, error) {
	in, err := t.input(s.GetInput(), "ToSchema")
	if err != nil {
		return nil, err
	}
	if s.GetSchema() == nil {
		return nil, invalidPlan("ToSchema is missing schema")
	}
	st, err := DataTypeFromProto(s.GetSchema())
	if err != nil {
		return nil, err
	}
	if st.Kind != sqltypes.Struct {
		return nil, invalidPlan("ToSchema schema must be a struct, got %s", st)
	}
	return &plan.ToSchema{Input: in, Schema: st.Fields}, nil
}

// repartition is repartition(n) (shuffle) or coalesce(n) (no shuffle).
func (t *translation) repartition(r *pb.Repartition) (plan.Relation, error) {
	in, err := t.input(r.GetInput(), "Repartition")
	if err != nil {
		return nil, err
	}
	if r.GetNumPartitions() <= 0 { // Spark's Repartition node: require(numPartitions > 0, …)
		return nil, sparkerr.IllegalArgument("requirement failed: Number of partitions (%d) must be positive.", r.GetNumPartitions())
	}
	return &plan.Repartition{Input: in, NumPartitions: r.GetNumPartitions(), Shuffle: r.GetShuffle()}, nil
}

// repartitionByExpression is repartition(n?, *cols) / repartitionByRange; always a shuffle.
func (t *translation) repartitionByExpression(r *pb.RepartitionByExpression) (plan.Relation, error) {
	if r == nil {
		r = &pb.RepartitionByExpression{}
	}
	in, err := t.input(r.GetInput(), "RepartitionByExpression")
	if err != nil {
		return nil, err
	}
	if r.NumPartitions != nil && r.GetNumPartitions() <= 0 { // Spark's RepartitionByExpression: require(…)
		return nil, sparkerr.IllegalArgument("requirement failed: Number of partitions (%d) must be positive.", r.GetNumPartitions())
	}
	exprs, err := t.expressions(r.GetPartitionExprs())
	if err != nil {
		return nil, err
	}
	return &plan.Repartition{Input: in, NumPartitions: r.GetNumPartitions(), Shuffle: true, Exprs: exprs}, nil
}

func (t *translation) withWatermark(w *pb.WithWatermark) (plan.Relation, error) {
	in, err := t.input(w.GetInput(), "WithWatermark")
	if err != nil {
		return nil, err
	}
	if w.GetEventTime() == "" || w.GetDelayThreshold() == "" {
		return nil, invalidPlan("WithWatermark requires event_time and delay_threshold")
	}
	return &plan.WithWatermark{Input: in, EventTime: w.GetEventTime(), Delay: w.GetDelayThreshold()}, nil
}

// naFill is df.na.fill: one value for all (or the listed) columns, or one value per column.
func (t *translation) naFill(f *pb.NAFill) (plan.Relation, error) {
	in, err := t.input(f.GetInput(), "NAFill")
	if err != nil {
		return nil, err
	}
	if len(f.GetValues()) == 0 {
		return nil, invalidPlan("values must contains at least 1 item!")
	}
	if len(f.GetValues()) > 1 && len(f.GetValues()) != len(f.GetCols()) {
		return nil, invalidPlan("When values contains more than 1 items, values and cols should have the same length!")
	}
	out := &plan.NAFill{Input: in, Cols: cloneStrings(f.GetCols())}
	for _, v := range f.GetValues() {
		lit, err := Literal(v)
		if err != nil {
			return nil, err
		}
		out.Values = append(out.Values, lit)
	}
	return out, nil
}

func (t *translation) naDrop(d *pb.NADrop) (plan.Relation, error) {
	if d == nil {
		d = &pb.NADrop{}
	}
	in, err := t.input(d.GetInput(), "NADrop")
	if err != nil {
		return nil, err
	}
	out := &plan.NADrop{Input: in, Cols: cloneStrings(d.GetCols())}
	if d.MinNonNulls != nil {
		n := d.GetMinNonNulls()
		out.MinNonNulls = &n
	}
	return out, nil
}

// collectMetrics is df.observe(name, *metrics). Spark's planner requires a name and at least
// one metric (Dataset.observe's signature).
func (t *translation) collectMetrics(c *pb.CollectMetrics) (plan.Relation, error) {
	in, err := t.input(c.GetInput(), "CollectMetrics")
	if err != nil {
		return nil, err
	}
	if c.GetName() == "" {
		return nil, invalidPlan("CollectMetrics is missing name")
	}
	if len(c.GetMetrics()) == 0 {
		return nil, invalidPlan("CollectMetrics has no metrics")
	}
	metrics, err := t.expressions(c.GetMetrics())
	if err != nil {
		return nil, err
	}
	return &plan.CollectMetrics{Input: in, Name: c.GetName(), Metrics: metrics}, nil
}

// unpivot is df.unpivot(ids, values, variableColumnName, valueColumnName); values unset means
// every non-id column (Spark's planner: Unpivot with values None).
func (t *translation) unpivot(u *pb.Unpivot) (plan.Relation, error) {
	in, err := t.input(u.GetInput(), "Unpivot")
	if err != nil {
		return nil, err
	}
	ids, err := t.expressions(u.GetIds())
	if err != nil {
		return nil, err
	}
	out := &plan.Unpivot{Input: in, Ids: ids, VariableName: u.GetVariableColumnName(), ValueName: u.GetValueColumnName()}
	if u.Values != nil {
		if out.Values, err = t.expressions(u.GetValues().GetValues()); err != nil {
			return nil, err
		}
		if out.Values == nil {
			out.Values = []plan.Expr{}
		}
	}
	return out, nil
}

// naReplace is df.na.replace(to_replace, value, subset): pairs of old and new literals.
func (t *translation) naReplace(r *pb.NAReplace) (plan.Relation, error) {
	in, err := t.input(r.GetInput(), "NAReplace")
	if err != nil {
		return nil, err
	}
	out := &plan.NAReplace{Input: in, Cols: cloneStrings(r.GetCols())}
	for i, rep := range r.GetReplacements() {
		if rep.GetOldValue() == nil || rep.GetNewValue() == nil {
			return nil, invalidPlan("NAReplace replacement %d is missing its old or new value", i)
		}
		old, err := Literal(rep.GetOldValue())
		if err != nil {
			return nil, err
		}
		repl, err := Literal(rep.GetNewValue())
		if err != nil {
			return nil, err
		}
		out.Old, out.New = append(out.Old, old), append(out.New, repl)
	}
	return out, nil
}
