package protoconv

import (
	"strings"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// writeStream translates df.writeStream…start() / toTable() (WriteStreamOperationStart) into
// plan.WriteStream. The trigger keeps the client's interval string (trimmed); the engine
// parses it. Python foreach writers and foreachBatch functions keep their pickled payloads,
// which the server hands to PySpark workers; Scala ones are refused.
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
	if out.Foreach, err = foreachFunction(w.GetForeachWriter(), "foreach"); err != nil {
		return nil, err
	}
	if out.ForeachBatch, err = foreachFunction(w.GetForeachBatch(), "foreachBatch"); err != nil {
		return nil, err
	}
	return out, nil
}

// foreachFunction is a foreach writer's or foreachBatch's Python function (nil when f is unset).
func foreachFunction(f *pb.StreamingForeachFunction, what string) (*plan.PythonFunction, error) {
	switch x := f.GetFunction().(type) {
	case nil:
		return nil, nil
	case *pb.StreamingForeachFunction_PythonFunction:
		return PythonFunction(x.PythonFunction), nil
	case *pb.StreamingForeachFunction_ScalaFunction:
		return nil, sparkerr.Unsupported("writeStream.%s with a Scala function is not supported: Weir runs no JVM code", what)
	default:
		return nil, invalidPlan("unknown StreamingForeachFunction %T", x)
	}
}

// PythonFunction converts a PythonUDF's function part.
func PythonFunction(f *pb.PythonUDF) *plan.PythonFunction {
	return &plan.PythonFunction{
		Command:   f.GetCommand(),
		PythonVer: f.GetPythonVer(),
		EvalType:  f.GetEvalType(),
		Includes:  cloneStrings(f.GetAdditionalIncludes()),
	}
}
