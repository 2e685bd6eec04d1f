package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// mergeInto translates df.mergeInto(table, condition)...merge() (MergeIntoTableCommand, its
// clauses MergeAction expressions) into plan.MergeInto, the command MERGE INTO parses to. The
// source DataFrame keeps its alias (df.alias("s")); the target is named by its table name.
func (t *translation) mergeInto(m *pb.MergeIntoTableCommand) (plan.Command, error) {
	if m.GetSourceTablePlan() == nil || m.GetMergeCondition() == nil {
		return nil, invalidPlan("MergeIntoTableCommand is missing its source plan or merge condition")
	}
	if m.GetWithSchemaEvolution() {
		return nil, sparkerr.Unsupported("MERGE WITH SCHEMA EVOLUTION is not supported")
	}
	name, err := SplitIdentifier(m.GetTargetTableName())
	if err != nil {
		return nil, err
	}
	out := plan.MergeInto{Table: name}
	if out.Source, err = t.relation(m.GetSourceTablePlan()); err != nil {
		return nil, err
	}
	if out.Condition, err = t.expr(m.GetMergeCondition()); err != nil {
		return nil, err
	}
	for _, list := range []struct {
		in  []*pb.Expression
		out *[]plan.MergeAction
	}{{m.GetMatchActions(), &out.Matched}, {m.GetNotMatchedActions(), &out.NotMatched},
		{m.GetNotMatchedBySourceActions(), &out.NotMatchedBySource}} {
		for _, e := range list.in {
			a, err := t.mergeAction(e.GetMergeAction())
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, a)
		}
	}
	if len(out.Matched)+len(out.NotMatched)+len(out.NotMatchedBySource) == 0 {
		return nil, sparkerr.Analysis("NO_MERGE_ACTION_SPECIFIED", "42K0E",
			"df.mergeInto needs to be followed by at least one of whenMatched/whenNotMatched/whenNotMatchedBySource.")
	}
	return out, nil
}

func (t *translation) mergeAction(a *pb.MergeAction) (plan.MergeAction, error) {
	var out plan.MergeAction
	if a == nil {
		return out, invalidPlan("a MergeIntoTableCommand action is not a MergeAction expression")
	}
	switch a.GetActionType() {
	case pb.MergeAction_ACTION_TYPE_DELETE:
		out.Kind = plan.MergeDelete
	case pb.MergeAction_ACTION_TYPE_INSERT:
		out.Kind = plan.MergeInsert
	case pb.MergeAction_ACTION_TYPE_INSERT_STAR:
		out.Kind = plan.MergeInsertStar
	case pb.MergeAction_ACTION_TYPE_UPDATE:
		out.Kind = plan.MergeUpdate
	case pb.MergeAction_ACTION_TYPE_UPDATE_STAR:
		out.Kind = plan.MergeUpdateStar
	default:
		return out, invalidPlan("MergeAction has an unknown action type %d", int32(a.GetActionType()))
	}
	var err error
	if a.Condition != nil {
		if out.Condition, err = t.expr(a.GetCondition()); err != nil {
			return out, err
		}
	}
	for _, as := range a.GetAssignments() {
		k, err := t.expr(as.GetKey())
		if err != nil {
			return out, err
		}
		col, ok := k.(plan.ColumnRef)
		if !ok {
			return out, invalidPlan("a MergeAction assignment's key is not a column")
		}
		v, err := t.expr(as.GetValue())
		if err != nil {
			return out, err
		}
		out.Assignments = append(out.Assignments, plan.Assignment{Column: col.Name, Value: v})
	}
	return out, nil
}
