package connect

import (
	"context"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
)

// Config serves spark.conf: set, get (with or without default), getOption, getAll, unset,
// isModifiable.
func (s *Server) Config(ctx context.Context, req *pb.ConfigRequest) (*pb.ConfigResponse, error) {
	sess, err := s.sessions.getOrCreate(ctx, req)
	if err != nil {
		return nil, toStatus(nil, err)
	}
	resp := &pb.ConfigResponse{SessionId: sess.id, ServerSideSessionId: sess.serverSideID}
	if err := s.config(sess, req.GetOperation(), resp); err != nil {
		return nil, toStatus(sess, err)
	}
	return resp, nil
}

func strPtr(s string) *string { return &s }

func (s *Server) config(sess *session, op *pb.ConfigRequest_Operation, resp *pb.ConfigResponse) error {
	conf := sess.engine.Conf()
	switch o := op.GetOpType().(type) {
	case *pb.ConfigRequest_Operation_Set:
		for _, kv := range o.Set.GetPairs() {
			if kv.Value == nil {
				if o.Set.GetSilent() {
					continue
				}
				return sparkerr.IllegalArgument("Cannot set the config %s without a value.", kv.GetKey())
			}
			if err := conf.Set(kv.GetKey(), kv.GetValue()); err != nil && !o.Set.GetSilent() {
				return err
			}
		}
	case *pb.ConfigRequest_Operation_Get:
		for _, key := range o.Get.GetKeys() {
			v, ok := conf.Get(key)
			if !ok {
				return confNotFound(key)
			}
			resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: key, Value: strPtr(v)})
		}
	case *pb.ConfigRequest_Operation_GetWithDefault:
		for _, kv := range o.GetWithDefault.GetPairs() {
			out := &pb.KeyValue{Key: kv.GetKey()}
			if v, ok := conf.Get(kv.GetKey()); ok {
				out.Value = strPtr(v)
			} else if kv.Value != nil {
				out.Value = strPtr(kv.GetValue())
			}
			resp.Pairs = append(resp.Pairs, out)
		}
	case *pb.ConfigRequest_Operation_GetOption:
		for _, key := range o.GetOption.GetKeys() {
			out := &pb.KeyValue{Key: key}
			if v, ok := conf.Get(key); ok {
				out.Value = strPtr(v)
			}
			resp.Pairs = append(resp.Pairs, out)
		}
	case *pb.ConfigRequest_Operation_GetAll:
		for _, kv := range conf.All(o.GetAll.GetPrefix()) {
			resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: kv[0], Value: strPtr(kv[1])})
		}
	case *pb.ConfigRequest_Operation_Unset:
		for _, key := range o.Unset.GetKeys() {
			if !conf.IsModifiable(key) {
				return sparkerr.Analysis("CANNOT_MODIFY_CONFIG", "46110",
					"Cannot modify the value of the static Spark config: %s.", sparkerr.Quote(key)).WithParams("key", key)
			}
			conf.Unset(key)
		}
	case *pb.ConfigRequest_Operation_IsModifiable:
		for _, key := range o.IsModifiable.GetKeys() {
			v := "false"
			if conf.IsModifiable(key) {
				v = "true"
			}
			resp.Pairs = append(resp.Pairs, &pb.KeyValue{Key: key, Value: strPtr(v)})
		}
	case nil:
		return invalidPlan("ConfigRequest has no operation.")
	default:
		return invalidPlan("Unknown config operation %T.", o)
	}
	return nil
}
