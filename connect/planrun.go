package connect

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// runPlan executes a Plan (a relation to return or a command to run), emitting responses.
func (s *Server) runPlan(ctx context.Context, sess *session, p *pb.Plan, emit func(*pb.ExecutePlanResponse) error) error {
	switch op := p.GetOpType().(type) {
	case *pb.Plan_Root:
		rel, err := s.relation(sess, op.Root)
		if err != nil {
			return err
		}
		res, err := sess.engine.Execute(ctx, rel)
		if err != nil {
			return err
		}
		return s.streamResult(ctx, sess, res, emit)
	case *pb.Plan_Command:
		return s.runCommand(ctx, sess, op.Command, emit)
	case *pb.Plan_CompressedOperation_:
		return sparkerr.New(invalidPlanInput, "CONNECT_INVALID_PLAN.CANNOT_PARSE", "",
			"Compressed plans are not supported by this server; send the plan uncompressed.")
	case nil:
		return invalidPlan("The plan has neither a root relation nor a command.")
	default:
		return invalidPlan("Unknown plan type %T.", op)
	}
}

// relation converts a proto relation after resolving cached local relations.
func (s *Server) relation(sess *session, rel *pb.Relation) (plan.Relation, error) {
	if rel == nil {
		return nil, invalidPlan("The relation is missing.")
	}
	resolved, err := resolveCachedRelations(sess, s.opts.alloc, rel)
	if err != nil {
		return nil, err
	}
	if keys := sess.persistedKeys(); len(keys) > 0 {
		// The session persisted DataFrames: mark the parts of rel that are one of them, for the
		// analyzer to read from the cache.
		return protoconv.Converter{Persisted: func(r *pb.Relation) (string, bool) {
			key := persistKey(r)
			return key, keys[key]
		}}.Relation(resolved)
	}
	return s.convertRelation(resolved)
}

// persistedKeys is the set of persist keys of the session's persisted DataFrames.
func (sess *session) persistedKeys() map[string]bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if len(sess.persisted) == 0 {
		return nil
	}
	keys := make(map[string]bool, len(sess.persisted))
	for k := range sess.persisted {
		keys[k] = true
	}
	return keys
}

// streamResult sends a result as Spark does: its schema, then its rows as Arrow batches.
func (s *Server) streamResult(ctx context.Context, sess *session, res *engine.Result, emit func(*pb.ExecutePlanResponse) error) error {
	defer res.Close()
	sconf := sess.engine.Conf()
	if err := emit(&pb.ExecutePlanResponse{Schema: s.schemaToProto(res.Schema)}); err != nil {
		return err
	}
	maxRows := sconf.Int(conf.MaxRecordsPerBatchKey, 10000)
	b := &arrowBatcher{
		schema:   sqltypes.ToArrowSchema(res.Schema, sconf.GetOr(conf.TimeZoneKey, "UTC")),
		maxRows:  maxRows,
		maxBytes: s.opts.maxBatchBytes,
		alloc:    s.opts.alloc,
		emit:     emit,
		budget:   newResultBudget(sconf),
	}
	for {
		rec, err := res.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		err = b.add(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if err := b.finish(); err != nil {
		return err
	}
	return emitObservedMetrics(res, emit)
}

// emitObservedMetrics sends the metrics of the result's observations (df.observe) in one
// response after the rows, as Spark's SparkConnectPlanExecution does: per observation its name,
// the metric names (keys) and values as literals.
func emitObservedMetrics(res *engine.Result, emit func(*pb.ExecutePlanResponse) error) error {
	obs := res.ObservedMetrics()
	if len(obs) == 0 {
		return nil
	}
	resp := &pb.ExecutePlanResponse{}
	for _, o := range obs {
		m := &pb.ExecutePlanResponse_ObservedMetrics{Name: o.Name}
		for i, f := range o.Schema {
			lit, err := protoconv.LiteralToProto(o.Values[i], f.Type)
			if err != nil {
				return err
			}
			m.Keys = append(m.Keys, f.Name)
			m.Values = append(m.Values, lit)
		}
		resp.ObservedMetrics = append(resp.ObservedMetrics, m)
	}
	return emit(resp)
}

// runCommand executes a Command.
func (s *Server) runCommand(ctx context.Context, sess *session, cmd *pb.Command, emit func(*pb.ExecutePlanResponse) error) error {
	switch c := cmd.GetCommandType().(type) {
	case nil:
		return invalidPlan("The command has no command type.")
	case *pb.Command_SqlCommand:
		return s.runSQLCommand(ctx, sess, c.SqlCommand, emit)
	case *pb.Command_WriteStreamOperationStart:
		return s.startStream(ctx, sess, cmd, emit)
	case *pb.Command_StreamingQueryCommand:
		return s.streamingQueryCommand(ctx, sess, c.StreamingQueryCommand, emit)
	case *pb.Command_StreamingQueryManagerCommand:
		return s.streamingQueryManagerCommand(ctx, sess, c.StreamingQueryManagerCommand, emit)
	case *pb.Command_StreamingQueryListenerBusCommand:
		return s.listenerBusCommand(ctx, sess, c.StreamingQueryListenerBusCommand, emit)
	case *pb.Command_CheckpointCommand:
		return s.checkpoint(ctx, sess, c.CheckpointCommand, emit)
	case *pb.Command_RemoveCachedRemoteRelationCommand:
		// A client dropped its reference to a server-side DataFrame (foreachBatch's batch_df, a
		// checkpointed DataFrame).
		if cache, ok := sess.engine.(relationCache); ok {
			cache.UncacheRelation(c.RemoveCachedRemoteRelationCommand.GetRelation().GetRelationId())
		}
		return nil
	}
	resolved, err := resolveCachedRelations(sess, s.opts.alloc, cmd)
	if err != nil {
		return err
	}
	pc, err := s.convertCommand(resolved)
	if err != nil {
		return err
	}
	res, err := sess.engine.RunCommand(ctx, pc)
	if err != nil {
		return err
	}
	defer res.Close()
	for {
		rec, err := res.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rec.Release()
	}
}

// sqlRelation finds the SQL relation of a spark.sql input: SQL, or WithRelations over SQL.
func sqlRelation(rel *pb.Relation) *pb.Relation {
	switch r := rel.GetRelType().(type) {
	case *pb.Relation_Sql:
		return rel
	case *pb.Relation_WithRelations:
		return sqlRelation(r.WithRelations.GetRoot())
	}
	return nil
}

// hasSQLArgs reports whether a spark.sql call carries parameter values.
func hasSQLArgs(q *pb.SQL) bool {
	return len(q.GetArgs())+len(q.GetPosArgs())+len(q.GetNamedArguments())+len(q.GetPosArguments()) > 0
}

// runSQLCommand is spark.sql(text): a query is analyzed and answered with the relation to run
// lazily (as Spark does); any other statement runs now and is answered with its rows as a
// LocalRelation.
func (s *Server) runSQLCommand(ctx context.Context, sess *session, c *pb.SqlCommand, emit func(*pb.ExecutePlanResponse) error) error {
	input := c.GetInput()
	if input == nil {
		input = &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{
			Query:          c.GetSql(),
			Args:           c.GetArgs(),
			PosArgs:        c.GetPosArgs(),
			NamedArguments: c.GetNamedArguments(),
			PosArguments:   c.GetPosArguments(),
		}}}
	}
	sqlRel := sqlRelation(input)
	if sqlRel == nil {
		return invalidPlan("SQL command input must be a SQL relation, got %T.", input.GetRelType())
	}
	text := sqlRel.GetSql().GetQuery()
	var named map[string]plan.Expr
	var positional []plan.Expr
	if hasSQLArgs(sqlRel.GetSql()) {
		converted, err := s.convertRelation(sqlRel)
		if err != nil {
			return err
		}
		if q, ok := converted.(*plan.SQLQuery); ok {
			named, positional = q.Args, q.PosArgs
		}
	}
	stmt, err := s.parseStatement(ctx, text, named, positional)
	if err != nil {
		return err
	}
	var relation *pb.Relation
	switch stmt.(type) {
	case plan.Query, *plan.Query:
		// Like Spark, analyze now so spark.sql() itself raises analysis errors; the client
		// runs the returned relation later.
		rel, err := s.relation(sess, input)
		if err != nil {
			return err
		}
		if _, err := sess.engine.Analyze(ctx, rel); err != nil {
			return err
		}
		relation = input
	default:
		res, err := sess.engine.RunCommand(ctx, stmt)
		if err != nil {
			return err
		}
		data, err := s.collectIPC(ctx, sess, res)
		if err != nil {
			return err
		}
		relation = &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}
	}
	return emit(&pb.ExecutePlanResponse{
		ResponseType: &pb.ExecutePlanResponse_SqlCommandResult_{SqlCommandResult: &pb.ExecutePlanResponse_SqlCommandResult{
			Relation: relation,
		}},
	})
}

// collectIPC drains a result into one Arrow IPC stream (schema, then every batch).
func (s *Server) collectIPC(ctx context.Context, sess *session, res *engine.Result) ([]byte, error) {
	defer res.Close()
	schema := sqltypes.ToArrowSchema(res.Schema, sess.engine.Conf().GetOr(conf.TimeZoneKey, "UTC"))
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(s.opts.alloc))
	budget := newResultBudget(sess.engine.Conf())
	write := func(rec arrow.RecordBatch) error {
		conformed, err := conformRecord(rec, schema)
		if err != nil {
			return err
		}
		defer conformed.Release()
		before := buf.Len()
		if err := w.Write(conformed); err != nil {
			return sparkerr.Internal("encoding command result: %v", err).Wrap(err)
		}
		return budget.add(buf.Len() - before)
	}
	for {
		rec, err := res.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_ = w.Close()
			return nil, err
		}
		err = write(rec)
		rec.Release()
		if err != nil {
			_ = w.Close()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, sparkerr.Internal("encoding command result: %v", err).Wrap(err)
	}
	return buf.Bytes(), nil
}
