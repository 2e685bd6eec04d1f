package engine

import (
	"context"

	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// df.checkpoint()/localCheckpoint() (Spark Connect's CheckpointCommand): Checkpoint holds rel's
// rows in the server's PersistStore as the session's DataFrame id (a CachedRemoteRelation the
// client reads from then on) until UncacheRelation(id) (RemoveCachedRemoteRelationCommand, sent
// when the client drops the DataFrame) or the session's end. Eager checkpoints compute the rows
// now; lazy ones when a query first reads them. Once computed they are never recomputed: a
// checkpoint evicted from memory moves to a spill file, whatever its level, so a checkpointed
// DataFrame does not read its sources again. checkpoint() needs no checkpoint directory (Spark's
// reliable checkpoint writes to spark.checkpoint.dir; Weir keeps both kinds in its scratch
// store, which lives as long as the session).

// localCheckpointLevel is localCheckpoint()'s default storage level and checkpoint()'s
// (Spark: MEMORY_AND_DISK).
var localCheckpointLevel = logical.StorageLevel{UseDisk: true, UseMemory: true, Replication: 1}

// Checkpoint checkpoints rel as the DataFrame id (level nil: MEMORY_AND_DISK). A streaming plan
// is refused as Spark refuses a batch action on it.
func (s *Session) Checkpoint(ctx context.Context, id string, rel plan.Relation, eager bool, level *logical.StorageLevel) error {
	lv := localCheckpointLevel
	if level != nil {
		lv = *level
	}
	node, err := s.Analyze(ctx, rel)
	if err != nil {
		return err
	}
	if logical.IsStreaming(node) {
		return streamingActionError(node)
	}
	r, err := s.inMemoryRelation(ctx, node, lv, true)
	if err != nil {
		return err
	}
	if eager {
		recs, _, err := s.fillRows(ctx, r)
		if err != nil {
			r.Rows.(*heldRows).drop()
			return err
		}
		releaseAll(recs)
	}
	scan := &logical.InMemoryTableScan{Relation: r}
	s.views.mu.Lock()
	old := s.views.cached[id]
	s.views.cached[id] = scan
	s.views.mu.Unlock()
	dropCheckpoint(old)
	return nil
}

// dropCheckpoint drops the rows of n when it is a checkpoint.
func dropCheckpoint(n logical.Node) {
	if scan, ok := n.(*logical.InMemoryTableScan); ok {
		scan.Relation.Rows.(*heldRows).drop()
	}
}
