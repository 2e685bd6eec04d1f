package protoconv

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// Converter translates relations and commands, decoding LocalRelation Arrow data with Alloc
// (memory.DefaultAllocator when nil).
type Converter struct {
	Alloc memory.Allocator
	// Persisted, when set, names the relations the session may hold persisted (df.cache()):
	// each relation it answers true for converts to a plan.Persisted under the key it returns.
	Persisted func(*pb.Relation) (key string, ok bool)
}

// Relation converts a relation with memory.DefaultAllocator.
func Relation(r *pb.Relation) (plan.Relation, error) { return Converter{}.Relation(r) }

// Command converts a command with memory.DefaultAllocator.
func Command(c *pb.Command) (plan.Command, error) { return Converter{}.Command(c) }

// Relation converts r. On error, Arrow records decoded so far are released.
func (c Converter) Relation(r *pb.Relation) (plan.Relation, error) {
	t := c.translation()
	rel, err := t.relation(r)
	if err != nil {
		t.releaseAll()
		return nil, err
	}
	return rel, nil
}

func (c Converter) translation() *translation {
	t := &translation{alloc: c.Alloc, persisted: c.Persisted}
	if t.alloc == nil {
		t.alloc = memory.DefaultAllocator
	}
	return t
}

// translation is the state of one conversion: the records it decoded (to release on failure)
// and the references of the enclosing WithRelations nodes, by client plan id.
type translation struct {
	alloc     memory.Allocator
	decoded   []arrow.RecordBatch
	refs      map[int64]*pb.Relation
	persisted func(*pb.Relation) (string, bool)
}

func (t *translation) releaseAll() {
	for _, r := range t.decoded {
		r.Release()
	}
	t.decoded = nil
}

// input converts a required child relation.
func (t *translation) input(r *pb.Relation, what string) (plan.Relation, error) {
	if r == nil {
		return nil, invalidPlan("%s is missing its input relation", what)
	}
	return t.relation(r)
}

func (t *translation) relation(r *pb.Relation) (plan.Relation, error) {
	if r == nil || r.RelType == nil {
		return nil, invalidPlan("Relation is missing rel_type")
	}
	rel, err := t.relationBody(r)
	if err != nil {
		return nil, err
	}
	if c := r.GetCommon(); c != nil && c.PlanId != nil {
		rel.Common().PlanID = PlanIDFromClient(c.PlanId)
	}
	if t.persisted != nil {
		if key, ok := t.persisted(r); ok {
			return &plan.Persisted{Key: key, Input: rel}, nil
		}
	}
	return rel, nil
}

// relationBody dispatches on the relation type; the caller sets the plan id.
func (t *translation) relationBody(r *pb.Relation) (plan.Relation, error) {
	switch x := r.RelType.(type) {
	case *pb.Relation_Range:
		return rangeRel(x.Range)
	case *pb.Relation_LocalRelation:
		return t.localRelation(x.LocalRelation)
	case *pb.Relation_CachedLocalRelation:
		return nil, invalidPlan("CachedLocalRelation (hash %s) must be resolved from the session's artifact cache before plan translation",
			x.CachedLocalRelation.GetHash())
	case *pb.Relation_ChunkedCachedLocalRelation:
		return nil, invalidPlan("ChunkedCachedLocalRelation must be resolved from the session's artifact cache before plan translation")
	case *pb.Relation_CachedRemoteRelation:
		if x.CachedRemoteRelation.GetRelationId() == "" {
			return nil, invalidPlan("CachedRemoteRelation without a relation id")
		}
		return &plan.CachedRemoteRelation{ID: x.CachedRemoteRelation.GetRelationId()}, nil
	case *pb.Relation_Sql:
		return t.sqlRelation(x.Sql)
	case *pb.Relation_Read:
		return t.read(x.Read)
	case *pb.Relation_Project:
		return t.project(x.Project)
	case *pb.Relation_Filter:
		return t.filter(x.Filter)
	case *pb.Relation_Limit:
		in, err := t.input(x.Limit.GetInput(), "Limit")
		if err != nil {
			return nil, err
		}
		return &plan.Limit{Input: in, N: int64(x.Limit.GetLimit())}, nil
	case *pb.Relation_Offset:
		in, err := t.input(x.Offset.GetInput(), "Offset")
		if err != nil {
			return nil, err
		}
		return &plan.Offset{Input: in, N: int64(x.Offset.GetOffset())}, nil
	case *pb.Relation_Tail:
		in, err := t.input(x.Tail.GetInput(), "Tail")
		if err != nil {
			return nil, err
		}
		return &plan.Tail{Input: in, N: int64(x.Tail.GetLimit())}, nil
	case *pb.Relation_Sort:
		return t.sort(x.Sort)
	case *pb.Relation_Aggregate:
		return t.aggregate(x.Aggregate)
	case *pb.Relation_Deduplicate:
		return t.deduplicate(x.Deduplicate)
	case *pb.Relation_SetOp:
		return t.setOp(x.SetOp)
	case *pb.Relation_Join:
		return t.join(x.Join)
	case *pb.Relation_Catalog:
		return catalog(x.Catalog)
	case *pb.Relation_ShowString:
		in, err := t.input(x.ShowString.GetInput(), "ShowString")
		if err != nil {
			return nil, err
		}
		s := x.ShowString
		return &plan.ShowString{Input: in, NumRows: s.GetNumRows(), Truncate: s.GetTruncate(), Vertical: s.GetVertical()}, nil
	case *pb.Relation_HtmlString:
		in, err := t.input(x.HtmlString.GetInput(), "HtmlString")
		if err != nil {
			return nil, err
		}
		return &plan.ShowString{Input: in, NumRows: x.HtmlString.GetNumRows(), Truncate: x.HtmlString.GetTruncate(), HTML: true}, nil
	case *pb.Relation_ToDf:
		in, err := t.input(x.ToDf.GetInput(), "ToDF")
		if err != nil {
			return nil, err
		}
		return &plan.ToDF{Input: in, Names: cloneStrings(x.ToDf.GetColumnNames())}, nil
	case *pb.Relation_WithColumns:
		return t.withColumns(x.WithColumns)
	case *pb.Relation_WithColumnsRenamed:
		return t.withColumnsRenamed(x.WithColumnsRenamed)
	case *pb.Relation_Drop:
		return t.drop(x.Drop)
	case *pb.Relation_SubqueryAlias:
		return t.subqueryAlias(x.SubqueryAlias)
	case *pb.Relation_Sample:
		return t.sample(x.Sample)
	case *pb.Relation_Hint:
		in, err := t.input(x.Hint.GetInput(), "Hint")
		if err != nil {
			return nil, err
		}
		params, err := t.expressions(x.Hint.GetParameters())
		if err != nil {
			return nil, err
		}
		return &plan.Hint{Input: in, Name: x.Hint.GetName(), Params: params}, nil
	case *pb.Relation_ToSchema:
		return t.toSchema(x.ToSchema)
	case *pb.Relation_Repartition:
		return t.repartition(x.Repartition)
	case *pb.Relation_RepartitionByExpression:
		return t.repartitionByExpression(x.RepartitionByExpression)
	case *pb.Relation_WithWatermark:
		return t.withWatermark(x.WithWatermark)
	case *pb.Relation_FillNa:
		return t.naFill(x.FillNa)
	case *pb.Relation_DropNa:
		return t.naDrop(x.DropNa)
	case *pb.Relation_MapPartitions:
		return t.mapPartitions(x.MapPartitions)
	case *pb.Relation_GroupMap:
		return t.groupMap(x.GroupMap)
	case *pb.Relation_CoGroupMap:
		return t.coGroupMap(x.CoGroupMap)
	case *pb.Relation_CommonInlineUserDefinedTableFunction:
		return t.pythonTableFunction(x.CommonInlineUserDefinedTableFunction)
	case *pb.Relation_Corr:
		return t.statCorr(x.Corr)
	case *pb.Relation_Cov:
		return t.statCov(x.Cov)
	case *pb.Relation_ApproxQuantile:
		return t.statApproxQuantile(x.ApproxQuantile)
	case *pb.Relation_Describe:
		return t.statDescribe(x.Describe)
	case *pb.Relation_Summary:
		return t.statSummary(x.Summary)
	case *pb.Relation_Crosstab:
		return t.statCrosstab(x.Crosstab)
	case *pb.Relation_FreqItems:
		return t.statFreqItems(x.FreqItems)
	case *pb.Relation_SampleBy:
		return t.statSampleBy(x.SampleBy)
	case *pb.Relation_Replace:
		return t.naReplace(x.Replace)
	case *pb.Relation_Unpivot:
		return t.unpivot(x.Unpivot)
	case *pb.Relation_Transpose:
		in, err := t.input(x.Transpose.GetInput(), "Transpose")
		if err != nil {
			return nil, err
		}
		index, err := t.expressions(x.Transpose.GetIndexColumns())
		if err != nil {
			return nil, err
		}
		return &plan.Transpose{Input: in, Index: index}, nil
	case *pb.Relation_CollectMetrics:
		return t.collectMetrics(x.CollectMetrics)
	case *pb.Relation_LateralJoin:
		return t.lateralJoin(x.LateralJoin)
	case *pb.Relation_UnresolvedTableValuedFunction:
		return t.tableValuedFunction(x.UnresolvedTableValuedFunction)
	case *pb.Relation_Unknown:
		return nil, sparkerr.Unsupported("relation type Unknown is not supported")
	case *pb.Relation_WithRelations:
		return t.withRelations(x.WithRelations)
	}
	return nil, sparkerr.Unsupported("relation type %s is not supported", oneofCase(r, "rel_type"))
}

func cloneStrings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}

func cloneMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// withRelations is a plan whose expressions use other DataFrames (DataFrame.scalar(),
// exists(), isin(df)): the references are translated where a SubqueryExpression names them,
// and the result is the root, under the WithRelations node's plan id. spark.sql with DataFrame
// arguments (references named by alias in the SQL text) is not supported.
func (t *translation) withRelations(w *pb.WithRelations) (plan.Relation, error) {
	root := w.GetRoot()
	if root == nil {
		return nil, invalidPlan("WithRelations is missing root")
	}
	if _, isSQL := root.GetRelType().(*pb.Relation_Sql); isSQL && len(w.GetReferences()) > 0 {
		return nil, sparkerr.Unsupported("DataFrame arguments to spark.sql (WithRelations over SQL) are not supported")
	}
	saved := t.refs
	t.refs = make(map[int64]*pb.Relation, len(saved)+len(w.GetReferences()))
	for id, r := range saved {
		t.refs[id] = r
	}
	for i, ref := range w.GetReferences() {
		if ref.GetCommon() == nil || ref.GetCommon().PlanId == nil {
			t.refs = saved
			return nil, invalidPlan("WithRelations reference %d has no plan id", i)
		}
		t.refs[ref.GetCommon().GetPlanId()] = ref
	}
	rel, err := t.relation(root)
	t.refs = saved
	return rel, err
}
