package protoconv

import (
	"strings"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// writeStream translates df.writeStream…start() / toTable() (WriteStreamOperationStart) into
// plan.WriteStream. The trigger keeps the client's interval string (trimmed); the engine
// parses it. Python foreach writers and foreachBatch functions are only flagged, since their
// payloads are pickled Python the engine cannot run.
func (t *translation) writeStream(w *pb.WriteStreamOperationStart) (plan.Command, error) {
	if w.GetInput() == nil {
		return nil, invalidPlan("WriteStreamOperationStart is missing its input relation")
	}
	in, err := t.relation(w.GetInput())
	if err != nil {
		return nil, err
	}
	out := &plan.WriteStream{
		Input:       in,
		Format:      w.GetFormat(),
		Options:     cloneMap(w.GetOptions()),
		OutputMode:  w.GetOutputMode(),
		QueryName:   w.GetQueryName(),
		Path:        w.GetPath(),
		TableName:   w.GetTableName(),
		PartitionBy: cloneStrings(w.GetPartitioningColumnNames()),
		ClusterBy:   cloneStrings(w.GetClusteringColumnNames()),
	}
	switch x := w.GetTrigger().(type) {
	case nil:
	case *pb.WriteStreamOperationStart_ProcessingTimeInterval:
		out.Trigger, out.TriggerInterval = plan.TriggerProcessingTime, strings.TrimSpace(x.ProcessingTimeInterval)
	case *pb.WriteStreamOperationStart_AvailableNow:
		if x.AvailableNow {
			out.Trigger = plan.TriggerAvailableNow
		}
	case *pb.WriteStreamOperationStart_Once:
		if x.Once {
			out.Trigger = plan.TriggerOnce
		}
	case *pb.WriteStreamOperationStart_ContinuousCheckpointInterval:
		out.Trigger, out.TriggerInterval = plan.TriggerContinuous, strings.TrimSpace(x.ContinuousCheckpointInterval)
	case *pb.WriteStreamOperationStart_RealTimeBatchDuration:
		return nil, sparkerr.Unsupported("the real-time trigger (trigger(realTime=...)) is not supported")
	}
	if f := w.GetForeachWriter(); f != nil && f.GetFunction() != nil {
		out.HasForeach = true
	}
	if f := w.GetForeachBatch(); f != nil && f.GetFunction() != nil {
		out.HasForeachBatch = true
	}
	return out, nil
}
