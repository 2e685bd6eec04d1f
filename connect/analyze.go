package connect

import (
	"context"
	"hash/fnv"
	"strings"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// AnalyzePlan answers the client's questions about a plan without running it.
func (s *Server) AnalyzePlan(ctx context.Context, req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error) {
	sess, err := s.sessions.getOrCreate(ctx, req)
	if err != nil {
		return nil, toStatus(nil, err)
	}
	resp := &pb.AnalyzePlanResponse{SessionId: sess.id, ServerSideSessionId: sess.serverSideID}
	if err := s.analyze(ctx, sess, req, resp); err != nil {
		return nil, toStatus(sess, err)
	}
	return resp, nil
}

// planRelation converts the root relation of an analyzed plan.
func (s *Server) planRelation(sess *session, p *pb.Plan) (plan.Relation, error) {
	root, ok := p.GetOpType().(*pb.Plan_Root)
	if !ok {
		if _, compressed := p.GetOpType().(*pb.Plan_CompressedOperation_); compressed {
			return nil, sparkerr.New(invalidPlanInput, "CONNECT_INVALID_PLAN.CANNOT_PARSE", "",
				"Compressed plans are not supported by this server; send the plan uncompressed.")
		}
		return nil, invalidPlan("AnalyzePlan needs a plan with a root relation.")
	}
	return s.relation(sess, root.Root)
}

func (s *Server) analyzed(ctx context.Context, sess *session, p *pb.Plan) (logical.Node, error) {
	rel, err := s.planRelation(sess, p)
	if err != nil {
		return nil, err
	}
	return sess.engine.Analyze(ctx, rel)
}

var explainModes = map[pb.AnalyzePlanRequest_Explain_ExplainMode]string{
	pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_UNSPECIFIED: "simple",
	pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_SIMPLE:      "simple",
	pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_EXTENDED:    "extended",
	pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_CODEGEN:     "codegen",
	pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_COST:        "cost",
	pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_FORMATTED:   "formatted",
}

// persister is the part of an engine session that holds persisted DataFrames (df.cache()).
type persister interface {
	Persist(ctx context.Context, key string, rel plan.Relation, level logical.StorageLevel) error
	Unpersist(key string)
}

// inputFiler is the part of an engine session that lists a plan's input files.
type inputFiler interface {
	InputFiles(ctx context.Context, rel plan.Relation) ([]string, error)
}

// inputFiles answers DataFrame.inputFiles: the files the plan's file reads list.
func (s *Server) inputFiles(ctx context.Context, sess *session, p *pb.Plan) ([]string, error) {
	converted, err := s.planRelation(sess, p)
	if err != nil {
		return nil, err
	}
	f, ok := sess.engine.(inputFiler)
	if !ok {
		if _, err := sess.engine.Analyze(ctx, converted); err != nil {
			return nil, err
		}
		return []string{}, nil
	}
	files, err := f.InputFiles(ctx, converted)
	if files == nil {
		files = []string{}
	}
	return files, err
}

// defaultPersistLevel is MEMORY_AND_DISK_DESER, Spark's level for df.persist()/cache().
func defaultPersistLevel() *pb.StorageLevel {
	return &pb.StorageLevel{UseDisk: true, UseMemory: true, Deserialized: true, Replication: 1}
}

func (s *Server) analyze(ctx context.Context, sess *session, req *pb.AnalyzePlanRequest, resp *pb.AnalyzePlanResponse) error {
	switch a := req.GetAnalyze().(type) {
	case *pb.AnalyzePlanRequest_Schema_:
		n, err := s.analyzed(ctx, sess, a.Schema.GetPlan())
		if err != nil {
			return err
		}
		resp.Result = &pb.AnalyzePlanResponse_Schema_{Schema: &pb.AnalyzePlanResponse_Schema{Schema: s.schemaToProto(n.Schema())}}
	case *pb.AnalyzePlanRequest_Explain_:
		mode, ok := explainModes[a.Explain.GetExplainMode()]
		if !ok {
			return sparkerr.IllegalArgument("Unsupported explain mode %v.", a.Explain.GetExplainMode())
		}
		rel, err := s.planRelation(sess, a.Explain.GetPlan())
		if err != nil {
			return err
		}
		text, err := sess.engine.Explain(ctx, rel, mode)
		if err != nil {
			return err
		}
		resp.Result = &pb.AnalyzePlanResponse_Explain_{Explain: &pb.AnalyzePlanResponse_Explain{ExplainString: text}}
	case *pb.AnalyzePlanRequest_TreeString_:
		n, err := s.analyzed(ctx, sess, a.TreeString.GetPlan())
		if err != nil {
			return err
		}
		level := int(a.TreeString.GetLevel())
		resp.Result = &pb.AnalyzePlanResponse_TreeString_{TreeString: &pb.AnalyzePlanResponse_TreeString{
			TreeString: treeStringToLevel(n.Schema().TreeString(), level),
		}}
	case *pb.AnalyzePlanRequest_IsLocal_:
		n, err := s.analyzed(ctx, sess, a.IsLocal.GetPlan())
		if err != nil {
			return err
		}
		_, local := n.(*logical.LocalData)
		resp.Result = &pb.AnalyzePlanResponse_IsLocal_{IsLocal: &pb.AnalyzePlanResponse_IsLocal{IsLocal: local}}
	case *pb.AnalyzePlanRequest_IsStreaming_:
		n, err := s.analyzed(ctx, sess, a.IsStreaming.GetPlan())
		if err != nil {
			return err
		}
		resp.Result = &pb.AnalyzePlanResponse_IsStreaming_{IsStreaming: &pb.AnalyzePlanResponse_IsStreaming{IsStreaming: logical.IsStreaming(n)}}
	case *pb.AnalyzePlanRequest_InputFiles_:
		files, err := s.inputFiles(ctx, sess, a.InputFiles.GetPlan())
		if err != nil {
			return err
		}
		resp.Result = &pb.AnalyzePlanResponse_InputFiles_{InputFiles: &pb.AnalyzePlanResponse_InputFiles{Files: files}}
	case *pb.AnalyzePlanRequest_SparkVersion_:
		resp.Result = &pb.AnalyzePlanResponse_SparkVersion_{SparkVersion: &pb.AnalyzePlanResponse_SparkVersion{Version: s.opts.sparkVersion}}
	case *pb.AnalyzePlanRequest_DdlParse:
		t, err := parser.ParseDDL(a.DdlParse.GetDdlString())
		if err != nil {
			return err
		}
		resp.Result = &pb.AnalyzePlanResponse_DdlParse{DdlParse: &pb.AnalyzePlanResponse_DDLParse{Parsed: s.dataTypeToProto(t)}}
	case *pb.AnalyzePlanRequest_SameSemantics_:
		target, err := s.analyzed(ctx, sess, a.SameSemantics.GetTargetPlan())
		if err != nil {
			return err
		}
		other, err := s.analyzed(ctx, sess, a.SameSemantics.GetOtherPlan())
		if err != nil {
			return err
		}
		same := logical.TreeString(target) == logical.TreeString(other)
		resp.Result = &pb.AnalyzePlanResponse_SameSemantics_{SameSemantics: &pb.AnalyzePlanResponse_SameSemantics{Result: same}}
	case *pb.AnalyzePlanRequest_SemanticHash_:
		n, err := s.analyzed(ctx, sess, a.SemanticHash.GetPlan())
		if err != nil {
			return err
		}
		h := fnv.New32a()
		_, _ = h.Write([]byte(logical.TreeString(n)))
		resp.Result = &pb.AnalyzePlanResponse_SemanticHash_{SemanticHash: &pb.AnalyzePlanResponse_SemanticHash{Result: int32(h.Sum32())}}
	case *pb.AnalyzePlanRequest_Persist_:
		rel := a.Persist.GetRelation()
		if rel == nil {
			return invalidPlan("Persist needs a relation.")
		}
		level := a.Persist.GetStorageLevel()
		if level == nil {
			level = defaultPersistLevel()
		}
		converted, err := s.relation(sess, rel)
		if err != nil {
			return err
		}
		key := persistKey(rel)
		if p, ok := sess.engine.(persister); ok {
			if err := p.Persist(ctx, key, converted, storageLevel(level)); err != nil {
				return err
			}
		}
		sess.mu.Lock()
		if _, ok := sess.persisted[key]; !ok { // Spark keeps the first level of data already cached
			sess.persisted[key] = level
		}
		sess.mu.Unlock()
		resp.Result = &pb.AnalyzePlanResponse_Persist_{Persist: &pb.AnalyzePlanResponse_Persist{}}
	case *pb.AnalyzePlanRequest_Unpersist_:
		key := persistKey(a.Unpersist.GetRelation())
		sess.mu.Lock()
		delete(sess.persisted, key)
		sess.mu.Unlock()
		if p, ok := sess.engine.(persister); ok {
			p.Unpersist(key)
		}
		resp.Result = &pb.AnalyzePlanResponse_Unpersist_{Unpersist: &pb.AnalyzePlanResponse_Unpersist{}}
	case *pb.AnalyzePlanRequest_GetStorageLevel_:
		sess.mu.Lock()
		level, ok := sess.persisted[persistKey(a.GetStorageLevel.GetRelation())]
		sess.mu.Unlock()
		if !ok {
			level = &pb.StorageLevel{Replication: 1} // StorageLevel.NONE
		}
		resp.Result = &pb.AnalyzePlanResponse_GetStorageLevel_{GetStorageLevel: &pb.AnalyzePlanResponse_GetStorageLevel{StorageLevel: level}}
	case *pb.AnalyzePlanRequest_JsonToDdl:
		ddl, err := jsonToDDL(a.JsonToDdl.GetJsonString())
		if err != nil {
			return err
		}
		resp.Result = &pb.AnalyzePlanResponse_JsonToDdl{JsonToDdl: &pb.AnalyzePlanResponse_JsonToDDL{DdlString: ddl}}
	case nil:
		return invalidPlan("AnalyzePlanRequest has no analysis.")
	default:
		return invalidPlan("Unknown analysis %T.", a)
	}
	return nil
}

// treeStringToLevel keeps the lines of a schema tree string nested at most level deep
// (level <= 0: everything).
func treeStringToLevel(tree string, level int) string {
	if level <= 0 {
		return tree
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(tree, "\n") {
		if line == "" {
			continue
		}
		i := strings.Index(line, "|-- ")
		if i >= 0 && strings.Count(line[:i+1], "|") > level {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// jsonToDDL renders a JSON schema string as Spark's StructType.toDDL does.
func jsonToDDL(text string) (string, error) {
	t, err := protoconv.ParseJSONType(text)
	if err != nil {
		return "", err
	}
	if t.Kind != sqltypes.Struct {
		return t.SQL(), nil
	}
	parts := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		p := quoteIfNeeded(f.Name) + " " + f.Type.SQL()
		if !f.Nullable {
			p += " NOT NULL"
		}
		parts[i] = p
	}
	return strings.Join(parts, ","), nil
}

// quoteIfNeeded backquotes an identifier unless it is a plain one (Spark's quoteIfNeeded).
func quoteIfNeeded(name string) string {
	plain := name != ""
	for i, c := range name {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			plain = false
		}
	}
	if plain {
		return name
	}
	return sparkerr.Quote(name)
}
