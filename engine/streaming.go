package engine

import (
	"context"
	"github.com/weirhq/weir/flow"

	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// Streams returns the session's streaming query manager (spark.streams).
func (s *Session) Streams() *query.Manager { return s.streams }

// StartStream starts df.writeStream…start(): it analyzes ws.Input, turns the writer's settings
// into a query.Spec and starts the query on the session's manager, which validates it (query's
// validate: streaming input, writer settings, trigger, output mode and operators). It returns once
// the query runs; start-time errors (options, output mode, sink) come back here as Spark's
// exceptions. foreachBatch runs ws.ForeachBatch (the caller starts its Python worker); the query
// owns it from this call on, whatever the outcome. ws.Foreach runs as tasks on the session's
// Python workers (foreach_writer.go).
func (s *Session) StartStream(ctx context.Context, ws *plan.WriteStream, foreachBatch sinks.ForeachBatchFunc) (_ *query.Query, err error) {
	if foreachBatch != nil {
		defer func() {
			if err != nil {
				_ = foreachBatch.Close()
			}
		}()
	}
	if ws == nil || ws.Input == nil {
		return nil, sparkerr.IllegalArgument("Invalid plan: WriteStreamOperationStart is missing its input relation")
	}
	if (ws.ForeachBatch != nil) != (foreachBatch != nil) {
		return nil, sparkerr.Internal("foreachBatch function and its runner do not match")
	}
	if ws.TableName != "" {
		// toTable(name): the table's file sink (created from the stream's schema if missing).
		copied := *ws
		if err := s.streamTable(ctx, &copied); err != nil {
			return nil, err
		}
		ws = &copied
	}
	node, err := s.analyzer().Resolve(ctx, ws.Input)
	if err != nil {
		return nil, err
	}
	ectx, err := s.evalContext()
	if err != nil {
		return nil, err
	}
	if node, err = s.optimize(ctx, node, ectx); err != nil {
		return nil, err
	}
	mode, err := flow.ParseOutputMode(ws.OutputMode)
	if err != nil {
		return nil, err
	}
	trigger, err := queryTrigger(ws.Trigger, ws.TriggerInterval)
	if err != nil {
		return nil, err
	}
	var foreach sinks.ForeachWriter
	if ws.Foreach != nil {
		if foreach, err = s.newForeachWriter(ws.Foreach); err != nil {
			return nil, err
		}
	}
	return s.streams.Start(ctx, query.Spec{
		Plan:         node,
		Format:       ws.Format,
		Options:      ws.Options,
		OutputMode:   mode,
		Trigger:      trigger,
		Name:         ws.QueryName,
		Path:         ws.Path,
		TableName:    ws.TableName,
		PartitionBy:  ws.PartitionBy,
		ClusterBy:    ws.ClusterBy,
		Foreach:      foreach,
		ForeachBatch: foreachBatch,
	})
}

// Close stops the session's streaming queries (ReleaseSession, session expiry). The session
// may still answer batch queries afterwards.
func (s *Session) Close() {
	s.streams.StopAll()
	s.closePython()
	s.dropPersisted()
}

// streamingActionError is Spark's refusal of a batch action (collect, show, count) on a plan
// that reads a stream (UnsupportedOperationChecker.checkForBatch): the message names the
// first streaming operator, found bottom-up.
func streamingActionError(node logical.Node) *sparkerr.Error {
	const msg = "Queries with streaming sources must be executed with writeStream.start(), or from a streaming table or flow definition within a Spark Declarative Pipeline."
	leaf := firstStreamingLeaf(node)
	text := msg + ";"
	if leaf != nil {
		text += "\n" + leaf.Describe()
	}
	return sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_3102", "", text).WithParams("msg", msg)
}

func firstStreamingLeaf(n logical.Node) logical.Node {
	for _, c := range n.Children() {
		if l := firstStreamingLeaf(c); l != nil {
			return l
		}
	}
	if src, ok := n.(*logical.SourceScan); ok && src.Streaming {
		return n
	}
	return nil
}

// RegisterTable implements sinks.TableRegistry: the memory sink's table becomes a temp view
// whose rows are read live (a snapshot at each query's run time).
func (c *catalog) RegisterTable(name string, t *sinks.MemoryTable) error {
	return c.create(name, &logical.LocalData{Out: t.Schema(), Snapshot: t.Snapshot}, true)
}

var _ sinks.TableRegistry = (*catalog)(nil)
