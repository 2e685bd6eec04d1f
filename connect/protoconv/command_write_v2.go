package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// writeV2 translates df.writeTo(table)… (WriteOperationV2) into plan.WriteTo. Partitioning is
// by plain columns (partition transforms such as years(col) are refused).
func (t *translation) writeV2(w *pb.WriteOperationV2) (plan.Command, error) {
	if w.GetInput() == nil {
		return nil, invalidPlan("WriteOperationV2 is missing its input relation")
	}
	in, err := t.relation(w.GetInput())
	if err != nil {
		return nil, err
	}
	name, err := SplitIdentifier(w.GetTableName())
	if err != nil {
		return nil, err
	}
	out := &plan.WriteTo{Input: in, Table: name, Provider: w.GetProvider(), Options: cloneMap(w.GetOptions()),
		Properties: cloneMap(w.GetTableProperties())}
	if len(w.GetClusteringColumns()) > 0 {
		return nil, sparkerr.Unsupported("DataFrameWriterV2.clusterBy is not supported by Weir's file tables")
	}
	for _, e := range w.GetPartitioningColumns() {
		x, err := t.expr(e)
		if err != nil {
			return nil, err
		}
		col, ok := x.(plan.ColumnRef)
		if !ok || len(col.Name) != 1 {
			return nil, sparkerr.Unsupported("DataFrameWriterV2.partitionedBy supports plain columns only (no partition transforms)")
		}
		out.PartitionBy = append(out.PartitionBy, col.Name[0])
	}
	switch w.GetMode() {
	case pb.WriteOperationV2_MODE_CREATE:
		out.Mode = plan.WriteToCreate
	case pb.WriteOperationV2_MODE_OVERWRITE:
		out.Mode = plan.WriteToOverwrite
		if c := w.GetOverwriteCondition(); c != nil {
			if out.Condition, err = t.expr(c); err != nil {
				return nil, err
			}
		}
	case pb.WriteOperationV2_MODE_OVERWRITE_PARTITIONS:
		out.Mode = plan.WriteToOverwritePartitions
	case pb.WriteOperationV2_MODE_APPEND:
		out.Mode = plan.WriteToAppend
	case pb.WriteOperationV2_MODE_REPLACE:
		out.Mode = plan.WriteToReplace
	case pb.WriteOperationV2_MODE_CREATE_OR_REPLACE:
		out.Mode = plan.WriteToCreateOrReplace
	default:
		return nil, invalidPlan("WriteOperationV2 has an unknown mode %d", int32(w.GetMode()))
	}
	return out, nil
}
