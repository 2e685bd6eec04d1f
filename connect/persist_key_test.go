package connect

import (
	"testing"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

func projectOfRange(rangeID, projectID int64, col string, colPlanID int64) *pb.Relation {
	rng := &pb.Relation{Common: &pb.RelationCommon{PlanId: &rangeID},
		RelType: &pb.Relation_Range{Range: &pb.Range{End: 5, Step: 1}}}
	ref := &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{
		UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: col, PlanId: &colPlanID}}}
	return &pb.Relation{Common: &pb.RelationCommon{PlanId: &projectID},
		RelType: &pb.Relation_Project{Project: &pb.Project{Input: rng, Expressions: []*pb.Expression{ref}}}}
}

func TestPersistKeyIgnoresPlanIDNumberingNotStructure(t *testing.T) {
	a := persistKey(projectOfRange(1, 2, "id", 1))
	if b := persistKey(projectOfRange(10, 11, "id", 10)); a != b {
		t.Errorf("the same plan numbered apart has keys %s and %s", a, b)
	}
	// The reference points at the project instead of the range: a different plan.
	if c := persistKey(projectOfRange(1, 2, "id", 2)); a == c {
		t.Errorf("references to different nodes share key %s", a)
	}
	if d := persistKey(projectOfRange(1, 2, "other", 1)); a == d {
		t.Errorf("different columns share key %s", a)
	}
}

func TestPersistKeyIgnoresOrigins(t *testing.T) {
	rel := projectOfRange(1, 2, "id", 1)
	withOrigin := projectOfRange(1, 2, "id", 1)
	withOrigin.Common.Origin = &pb.Origin{Function: &pb.Origin_PythonOrigin{
		PythonOrigin: &pb.PythonOrigin{Fragment: "select", CallSite: "test.py:12"}}}
	if persistKey(rel) != persistKey(withOrigin) {
		t.Error("a call site changed the key")
	}
	if rel.Common.Origin != nil || *rel.Common.PlanId != 2 {
		t.Error("persistKey changed its argument")
	}
}

func TestStorageLevelString(t *testing.T) {
	if got := storageLevel(defaultPersistLevel()).String(); got != "StorageLevel(disk, memory, deserialized, 1 replicas)" {
		t.Errorf("got %q", got)
	}
}
