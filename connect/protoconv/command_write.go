package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// write translates df.write…save() / saveAsTable() / insertInto() (WriteOperation) into
// plan.Write. An unspecified mode stays plan.SaveUnset (the engine reads it as error-if-exists,
// the writer's default).
func (t *translation) write(w *pb.WriteOperation) (plan.Command, error) {
	if w.GetInput() == nil {
		return nil, invalidPlan("WriteOperation is missing its input relation")
	}
	in, err := t.relation(w.GetInput())
	if err != nil {
		return nil, err
	}
	out := &plan.Write{
		Input:       in,
		Format:      w.GetSource(),
		Options:     cloneMap(w.GetOptions()),
		PartitionBy: cloneStrings(w.GetPartitioningColumns()),
		SortBy:      cloneStrings(w.GetSortColumnNames()),
		ClusterBy:   cloneStrings(w.GetClusteringColumns()),
	}
	switch m := w.GetMode(); m {
	case pb.WriteOperation_SAVE_MODE_UNSPECIFIED:
	case pb.WriteOperation_SAVE_MODE_APPEND:
		out.Mode = plan.SaveAppend
	case pb.WriteOperation_SAVE_MODE_OVERWRITE:
		out.Mode = plan.SaveOverwrite
	case pb.WriteOperation_SAVE_MODE_ERROR_IF_EXISTS:
		out.Mode = plan.SaveErrorIfExists
	case pb.WriteOperation_SAVE_MODE_IGNORE:
		out.Mode = plan.SaveIgnore
	default:
		return nil, invalidPlan("WriteOperation has an unknown save mode %d", int32(m))
	}
	switch x := w.GetSaveType().(type) {
	case nil:
	case *pb.WriteOperation_Path:
		out.Path = x.Path
	case *pb.WriteOperation_Table:
		out.TableName = x.Table.GetTableName()
		switch x.Table.GetSaveMethod() {
		case pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_SAVE_AS_TABLE:
			out.TableMethod = plan.TableSaveAsTable
		case pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_INSERT_INTO:
			out.TableMethod = plan.TableInsertInto
		default:
			return nil, invalidPlan("WriteOperation.table has no save method")
		}
	default:
		return nil, sparkerr.Unsupported("WriteOperation save type %T is not supported", x)
	}
	if b := w.GetBucketBy(); b != nil {
		out.BucketBy = &plan.Bucketing{Columns: cloneStrings(b.GetBucketColumnNames()), NumBuckets: b.GetNumBuckets()}
	}
	return out, nil
}
