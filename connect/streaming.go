package connect

import (
	"context"
	"strings"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// StreamingEngine is what streaming commands need from an engine session; *engine.Session
// satisfies it. An EngineSession without it answers streaming commands with
// UNSUPPORTED_FEATURE.
type StreamingEngine interface {
	Streams() *query.Manager
	StartStream(ctx context.Context, ws *plan.WriteStream, foreachBatch sinks.ForeachBatchFunc) (*query.Query, error)
	// Close stops the session's queries (ReleaseSession, expiry, shutdown).
	Close()
}

func streamingEngine(sess *session) (StreamingEngine, error) {
	eng, ok := sess.engine.(StreamingEngine)
	if !ok {
		return nil, sparkerr.Unsupported("this server's engine sessions do not run streaming queries")
	}
	return eng, nil
}

// startStream serves WriteStreamOperationStart: df.writeStream…start().
func (s *Server) startStream(ctx context.Context, sess *session, cmd *pb.Command, emit func(*pb.ExecutePlanResponse) error) error {
	eng, err := streamingEngine(sess)
	if err != nil {
		return err
	}
	resolved, err := resolveCachedRelations(sess, s.opts.alloc, cmd)
	if err != nil {
		return err
	}
	pc, err := s.convertCommand(resolved)
	if err != nil {
		return err
	}
	ws, ok := pc.(*plan.WriteStream)
	if !ok {
		return sparkerr.Internal("WriteStreamOperationStart translated to %T", pc)
	}
	var foreachBatch sinks.ForeachBatchFunc
	if ws.ForeachBatch != nil {
		// The worker starts with the query, so a function it cannot load fails start().
		r, err := s.startForeachBatch(ctx, sess, ws.ForeachBatch)
		if err != nil {
			return err
		}
		foreachBatch = r
	}
	// Server-side listeners hear onQueryStarted before the query's other events.
	sess.listeners.beginStart()
	q, err := eng.StartStream(ctx, ws, foreachBatch)
	if err != nil {
		sess.listeners.endStart("", "")
		return err
	}
	sess.listeners.endStart(q.ID(), q.StartedEventJSON())
	result := &pb.WriteStreamOperationStartResult{
		QueryId: &pb.StreamingQueryInstanceId{Id: q.ID(), RunId: q.RunID()},
		Name:    q.Name(),
	}
	if sess.bus.registered() {
		// The client posts onQueryStarted to its listeners from this before start() returns.
		started := q.StartedEventJSON()
		result.QueryStartedEventJson = &started
	}
	return emit(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_WriteStreamOperationStartResult{
		WriteStreamOperationStartResult: result,
	}})
}

// lookupQuery finds a query of the session by id and run id as Spark Connect does.
func lookupQuery(m *query.Manager, id *pb.StreamingQueryInstanceId) (*query.Query, error) {
	q, ok := m.Get(id.GetId())
	if !ok {
		return nil, sparkerr.IllegalArgument("Streaming query %s is not found", id.GetId())
	}
	if q.RunID() != id.GetRunId() {
		return nil, sparkerr.IllegalArgument("Run id mismatch for query id %s. Run id in the request %s does not match one on the server %s. The query might have restarted.",
			id.GetId(), id.GetRunId(), q.RunID())
	}
	return q, nil
}

// awaitTimeout converts an optional timeout_ms; a timeout must be positive, as Spark requires.
func awaitTimeout(ms *int64) (*time.Duration, error) {
	if ms == nil {
		return nil, nil
	}
	if *ms <= 0 {
		return nil, sparkerr.IllegalArgument("requirement failed: Timeout has to be positive")
	}
	d := time.Duration(*ms) * time.Millisecond
	return &d, nil
}

// streamingQueryCommand serves StreamingQueryCommand: one StreamingQuery method.
func (s *Server) streamingQueryCommand(ctx context.Context, sess *session, c *pb.StreamingQueryCommand, emit func(*pb.ExecutePlanResponse) error) error {
	eng, err := streamingEngine(sess)
	if err != nil {
		return err
	}
	q, err := lookupQuery(eng.Streams(), c.GetQueryId())
	if err != nil {
		return err
	}
	result := &pb.StreamingQueryCommandResult{QueryId: &pb.StreamingQueryInstanceId{
		Id: c.GetQueryId().GetId(), RunId: c.GetQueryId().GetRunId(),
	}}
	switch x := c.GetCommand().(type) {
	case *pb.StreamingQueryCommand_Status:
		st := q.Status()
		result.ResultType = &pb.StreamingQueryCommandResult_Status{Status: &pb.StreamingQueryCommandResult_StatusResult{
			StatusMessage:   st.Message,
			IsDataAvailable: st.DataAvailable,
			IsTriggerActive: st.TriggerActive,
			IsActive:        st.Active,
		}}
	case *pb.StreamingQueryCommand_LastProgress:
		var progress []string
		if p, ok := q.LastProgress(); ok {
			progress = []string{p}
		}
		result.ResultType = recentProgressResult(progress)
	case *pb.StreamingQueryCommand_RecentProgress:
		result.ResultType = recentProgressResult(q.RecentProgress())
	case *pb.StreamingQueryCommand_Stop:
		if err := q.Stop(ctx); err != nil {
			return err
		}
	case *pb.StreamingQueryCommand_ProcessAllAvailable:
		if err := q.ProcessAllAvailable(ctx); err != nil {
			return queryFailure(ctx, q, err)
		}
	case *pb.StreamingQueryCommand_Explain:
		result.ResultType = &pb.StreamingQueryCommandResult_Explain{Explain: &pb.StreamingQueryCommandResult_ExplainResult{
			Result: q.Explain(x.Explain.GetExtended()),
		}}
	case *pb.StreamingQueryCommand_Exception:
		if exc := q.Exception(); exc != nil {
			result.ResultType = &pb.StreamingQueryCommandResult_Exception{Exception: exceptionResult(exc)}
		}
	case *pb.StreamingQueryCommand_AwaitTermination:
		timeout, err := awaitTimeout(x.AwaitTermination.TimeoutMs)
		if err != nil {
			return err
		}
		terminated, err := q.AwaitTermination(ctx, timeout)
		if err != nil {
			return queryFailure(ctx, q, err)
		}
		result.ResultType = &pb.StreamingQueryCommandResult_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommandResult_AwaitTerminationResult{
			Terminated: terminated,
		}}
	case nil:
		return sparkerr.IllegalArgument("Missing command in StreamingQueryCommand")
	default:
		return sparkerr.Unsupported("streaming query command %T is not supported", x)
	}
	return emit(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryCommandResult{
		StreamingQueryCommandResult: result,
	}})
}

func recentProgressResult(progress []string) *pb.StreamingQueryCommandResult_RecentProgress {
	if progress == nil {
		progress = []string{}
	}
	return &pb.StreamingQueryCommandResult_RecentProgress{RecentProgress: &pb.StreamingQueryCommandResult_RecentProgressResult{
		RecentProgressJson: progress,
	}}
}

// exceptionResult renders a failed query's exception as q.exception() parses it: the message
// is StreamingQueryException.toString ("<class>: <message>"); the stack trace, when the failure
// has causes, lists them as Java's "Caused by:" lines.
func exceptionResult(exc *query.Exception) *pb.StreamingQueryCommandResult_ExceptionResult {
	msg := exc.Message
	if !strings.Contains(msg, ": ") {
		// The client keeps what follows the first ": ".
		msg = sparkerr.StreamingQueryException + ": " + msg
	}
	out := &pb.StreamingQueryCommandResult_ExceptionResult{ExceptionMessage: &msg}
	if exc.Class != "" {
		class := exc.Class
		out.ErrorClass = &class
	}
	if exc.Err != nil {
		var causes []string
		for cause := exc.Err.Cause; cause != nil; {
			if se, ok := cause.(*sparkerr.Error); ok {
				causes = append(causes, "Caused by: "+se.Classes()[0]+": "+se.Error())
				cause = se.Cause
				continue
			}
			causes = append(causes, "Caused by: "+cause.Error())
			break
		}
		if len(causes) > 0 {
			trace := strings.Join(causes, "\n")
			out.StackTrace = &trace
		}
	}
	return out
}

// queryFailure makes sure a query's failure reaches the client as a StreamingQueryException
// (PySpark raises pyspark.errors.StreamingQueryException for it); cancellation and other
// errors pass through.
func queryFailure(ctx context.Context, q *query.Query, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if se, ok := sparkerr.As(err); ok && se.JavaClass == sparkerr.StreamingQueryException {
		return err
	}
	exc := q.Exception()
	if exc == nil {
		return err
	}
	if exc.Err != nil && exc.Err.JavaClass == sparkerr.StreamingQueryException {
		return exc.Err
	}
	msg := strings.TrimPrefix(exc.Message, sparkerr.StreamingQueryException+": ")
	return sparkerr.New(sparkerr.StreamingQueryException, exc.Class, "", msg).Wrap(err)
}

// streamingQueryManagerCommand serves StreamingQueryManagerCommand: spark.streams.
func (s *Server) streamingQueryManagerCommand(ctx context.Context, sess *session, c *pb.StreamingQueryManagerCommand, emit func(*pb.ExecutePlanResponse) error) error {
	eng, err := streamingEngine(sess)
	if err != nil {
		return err
	}
	m := eng.Streams()
	result := &pb.StreamingQueryManagerCommandResult{}
	switch x := c.GetCommand().(type) {
	case *pb.StreamingQueryManagerCommand_Active:
		active := &pb.StreamingQueryManagerCommandResult_ActiveResult{}
		for _, q := range m.Active() {
			active.ActiveQueries = append(active.ActiveQueries, queryInstance(q))
		}
		result.ResultType = &pb.StreamingQueryManagerCommandResult_Active{Active: active}
	case *pb.StreamingQueryManagerCommand_GetQuery:
		// spark.streams.get answers active queries only; otherwise the result stays unset
		// and the client returns None.
		if q, ok := m.Get(x.GetQuery); ok && q.Status().Active {
			result.ResultType = &pb.StreamingQueryManagerCommandResult_Query{Query: queryInstance(q)}
		}
	case *pb.StreamingQueryManagerCommand_AwaitAnyTermination:
		timeout, err := awaitTimeout(x.AwaitAnyTermination.TimeoutMs)
		if err != nil {
			return err
		}
		terminated, err := m.AwaitAnyTermination(ctx, timeout)
		if err != nil {
			return err
		}
		result.ResultType = &pb.StreamingQueryManagerCommandResult_AwaitAnyTermination{
			AwaitAnyTermination: &pb.StreamingQueryManagerCommandResult_AwaitAnyTerminationResult{Terminated: terminated},
		}
	case *pb.StreamingQueryManagerCommand_ResetTerminated:
		m.ResetTerminated()
		result.ResultType = &pb.StreamingQueryManagerCommandResult_ResetTerminated{ResetTerminated: true}
	case *pb.StreamingQueryManagerCommand_AddListener:
		// A 3.5 client's listener, pickled: it runs in PySpark's listener worker on the server.
		payload := x.AddListener.GetPythonListenerPayload()
		if payload == nil {
			return sparkerr.Unsupported("StreamingQueryManager.addListener with a JVM listener is not supported: " +
				"Weir runs Python listeners only")
		}
		l, err := s.startServerListener(ctx, sess, x.AddListener.GetId(), payload)
		if err != nil {
			return err
		}
		if err := sess.listeners.add(l, m.AddListener, sess.id); err != nil {
			l.close()
			return err
		}
		result.ResultType = &pb.StreamingQueryManagerCommandResult_AddListener{AddListener: true}
	case *pb.StreamingQueryManagerCommand_RemoveListener:
		l := sess.listeners.remove(x.RemoveListener.GetId())
		if l != nil {
			l.close()
		}
		result.ResultType = &pb.StreamingQueryManagerCommandResult_RemoveListener{RemoveListener: l != nil}
	case *pb.StreamingQueryManagerCommand_ListListeners:
		result.ResultType = &pb.StreamingQueryManagerCommandResult_ListListeners{
			ListListeners: &pb.StreamingQueryManagerCommandResult_ListStreamingQueryListenerResult{ListenerIds: sess.listeners.ids()},
		}
	case nil:
		return sparkerr.IllegalArgument("Missing command in StreamingQueryManagerCommand")
	default:
		return sparkerr.Unsupported("streaming query manager command %T is not supported", x)
	}
	return emit(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_StreamingQueryManagerCommandResult{
		StreamingQueryManagerCommandResult: result,
	}})
}

func queryInstance(q *query.Query) *pb.StreamingQueryManagerCommandResult_StreamingQueryInstance {
	out := &pb.StreamingQueryManagerCommandResult_StreamingQueryInstance{
		Id: &pb.StreamingQueryInstanceId{Id: q.ID(), RunId: q.RunID()},
	}
	if name := q.Name(); name != "" {
		out.Name = &name
	}
	return out
}
