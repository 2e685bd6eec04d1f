package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// Command converts cmd. spark.sql's SqlCommand becomes plan.Query wrapping a plan.SQLQuery (the
// connect service decides whether the text is a query or a statement); createTempView and
// friends become plan.CreateView; WriteStreamOperationStart becomes *plan.WriteStream; WriteOperation (df.write) becomes
// *plan.Write. On error, Arrow records decoded so far are released.
func (c Converter) Command(cmd *pb.Command) (plan.Command, error) {
	t := c.translation()
	out, err := t.command(cmd)
	if err != nil {
		t.releaseAll()
		return nil, err
	}
	return out, nil
}

func (t *translation) command(cmd *pb.Command) (plan.Command, error) {
	if cmd == nil || cmd.CommandType == nil {
		return nil, invalidPlan("Command is missing command_type")
	}
	switch x := cmd.CommandType.(type) {
	case *pb.Command_SqlCommand:
		s := x.SqlCommand
		if s.GetInput() != nil {
			in, err := t.relation(s.GetInput())
			if err != nil {
				return nil, err
			}
			return plan.Query{Input: in}, nil
		}
		q, err := t.sqlQuery(s.GetSql(), s.GetArgs(), s.GetPosArgs(), s.GetNamedArguments(), s.GetPosArguments())
		if err != nil {
			return nil, err
		}
		return plan.Query{Input: q}, nil
	case *pb.Command_CreateDataframeView:
		v := x.CreateDataframeView
		if v.GetName() == "" {
			return nil, invalidPlan("CreateDataFrameViewCommand is missing name")
		}
		if v.GetInput() == nil {
			return nil, invalidPlan("CreateDataFrameViewCommand is missing its input relation")
		}
		in, err := t.relation(v.GetInput())
		if err != nil {
			return nil, err
		}
		return plan.CreateView{Name: v.GetName(), Input: in, Replace: v.GetReplace(), IsGlobal: v.GetIsGlobal()}, nil
	case *pb.Command_RegisterFunction:
		return t.registerFunction(x.RegisterFunction)
	case *pb.Command_RegisterTableFunction:
		return t.registerTableFunction(x.RegisterTableFunction)
	case *pb.Command_WriteStreamOperationStart:
		return t.writeStream(x.WriteStreamOperationStart)
	case *pb.Command_WriteOperation:
		return t.write(x.WriteOperation)
	case *pb.Command_WriteOperationV2:
		return t.writeV2(x.WriteOperationV2)
	case *pb.Command_MergeIntoTableCommand:
		return t.mergeInto(x.MergeIntoTableCommand)
	case *pb.Command_StreamingQueryCommand, *pb.Command_StreamingQueryManagerCommand,
		*pb.Command_StreamingQueryListenerBusCommand:
		return nil, sparkerr.Unsupported("command type %s is not a plan command: the connect service serves it",
			oneofCase(cmd, "command_type"))
	}
	return nil, sparkerr.Unsupported("command type %s is not supported", oneofCase(cmd, "command_type"))
}
