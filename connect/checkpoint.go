package connect

import (
	"context"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// checkpointer is the part of an engine session that checkpoints DataFrames.
type checkpointer interface {
	Checkpoint(ctx context.Context, id string, rel plan.Relation, eager bool, level *logical.StorageLevel) error
}

// checkpoint runs df.checkpoint()/localCheckpoint() (CheckpointCommand): the engine holds the
// relation's rows (now when eager) as a new DataFrame id of the session, and the answer is a
// CachedRemoteRelation of that id, which the client reads from then on and releases with
// RemoveCachedRemoteRelationCommand when it drops the DataFrame.
func (s *Server) checkpoint(ctx context.Context, sess *session, c *pb.CheckpointCommand, emit func(*pb.ExecutePlanResponse) error) error {
	cp, ok := sess.engine.(checkpointer)
	if !ok {
		return sparkerr.Unsupported("this server's engine sessions do not checkpoint DataFrames")
	}
	if c.GetRelation() == nil {
		return invalidPlan("CheckpointCommand without a relation.")
	}
	rel, err := s.relation(sess, c.GetRelation())
	if err != nil {
		return err
	}
	var level *logical.StorageLevel
	if c.StorageLevel != nil {
		l := storageLevel(c.GetStorageLevel())
		level = &l
	}
	id := newUUID()
	if err := cp.Checkpoint(ctx, id, rel, c.GetEager(), level); err != nil {
		return err
	}
	return emit(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_CheckpointCommandResult{
		CheckpointCommandResult: &pb.CheckpointCommandResult{Relation: &pb.CachedRemoteRelation{RelationId: id}}}})
}
