package connect

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// foreachBatchModule is PySpark's foreachBatch worker (Spark's StreamingForeachBatchHelper runs it).
const foreachBatchModule = "pyspark.sql.connect.streaming.worker.foreach_batch_worker"

// foreachBatchError prefixes a foreachBatch worker's traceback, as Spark's helper does.
const foreachBatchError = "Found error inside foreachBatch Python process"

// relationCache is what foreachBatch needs of an engine session: DataFrames held by id, which
// the worker reads as CachedRemoteRelation. *engine.Session satisfies it.
type relationCache interface {
	CacheRelation(id string, schema sqltypes.Schema, recs []arrow.RecordBatch) error
	UncacheRelation(id string)
}

// foreachBatchRunner runs one query's foreachBatch function in one PySpark worker, as Spark
// Connect's StreamingForeachBatchHelper: the worker joins the query's session over the worker
// endpoint and, per epoch, is told the id of the cached DataFrame holding the epoch's output and
// the batch id; it answers 0 when the function returned, or the function's traceback.
type foreachBatchRunner struct {
	cache  relationCache
	revoke func()
	// batchSession, when set, follows each batch id: PySpark 4.3's worker reads the session the
	// batch runs in (Spark 4.3 clones one). Weir answers the query's own session, where the
	// epoch's DataFrame is cached, so the function sees the session as 4.2's worker does.
	batchSession string

	mu     sync.Mutex // one call at a time; Close waits for it
	worker *pyworker.Worker
	closed bool
}

var _ sinks.ForeachBatchFunc = (*foreachBatchRunner)(nil)

// startForeachBatch starts fn's worker for a query of sess and initializes it (Python version,
// session id, the pickled function); errors come back to the client's start() as in Spark.
func (s *Server) startForeachBatch(ctx context.Context, sess *session, fn *plan.PythonFunction) (*foreachBatchRunner, error) {
	cache, ok := sess.engine.(relationCache)
	if !ok {
		return nil, sparkerr.Unsupported("this server's engine sessions do not run foreachBatch")
	}
	version, err := pyworker.InterpreterPySpark(ctx, s.opts.python)
	if err != nil {
		return nil, err
	}
	url, revoke, err := s.workers.issue(sess)
	if err != nil {
		return nil, err
	}
	w, err := pyworker.Start(ctx, pyworker.Config{
		Python: s.opts.python,
		Module: foreachBatchModule,
		Env:    []string{"SPARK_CONNECT_LOCAL_URL=" + url},
		Output: newWorkerLog(s.opts.logger, "foreachBatch", sess.id),
	})
	if err != nil {
		revoke()
		return nil, err
	}
	r := &foreachBatchRunner{cache: cache, revoke: revoke, worker: w}
	if version.AtLeast(4, 3) {
		r.batchSession = sess.id
	}
	err = errors.Join(w.WritePythonVersion(fn.PythonVer), w.WriteUTF(sess.id), w.WriteBytes(fn.Command), w.Flush(ctx))
	if err == nil {
		err = initFailure(r.status(ctx))
	}
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// runnerInitException is the Java class of Spark's StreamingPythonRunnerInitializationException
// (PySpark raises pyspark.errors.StreamingPythonRunnerInitializationException for it).
const runnerInitException = "org.apache.spark.api.python.StreamingPythonRunner$StreamingPythonRunnerInitializationException"

// initFailure is Spark's error for a worker that refused its function at start (the function
// cannot be unpickled, the Python versions differ): the worker's answer and traceback.
func initFailure(err error) error {
	e, ok := sparkerr.As(err)
	if !ok || e.Class != "PYTHON_EXCEPTION" {
		return err
	}
	return sparkerr.Newf(runnerInitException, "", "", "Streaming Runner initialization failed (returned %d). Error message: %s",
		pyworker.PythonExceptionThrown, e.Params["traceback"]).Wrap(err)
}

// Call implements sinks.ForeachBatchFunc.
func (r *foreachBatchRunner) Call(ctx context.Context, batchID int64, schema sqltypes.Schema, recs []arrow.RecordBatch) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return sparkerr.Internal("foreachBatch called after its worker was closed")
	}
	id := newUUID()
	if err := r.cache.CacheRelation(id, schema, recs); err != nil {
		return err
	}
	defer r.cache.UncacheRelation(id)
	w := r.worker
	err := errors.Join(w.WriteUTF(id), w.WriteLong(batchID))
	if r.batchSession != "" {
		err = errors.Join(err, w.WriteUTF(r.batchSession))
	}
	if err := errors.Join(err, w.Flush(ctx)); err != nil {
		return err
	}
	return r.status(ctx)
}

// status reads the worker's answer: 0, or its exception.
func (r *foreachBatchRunner) status(ctx context.Context) error {
	v, err := r.worker.ReadStatus(ctx, foreachBatchError)
	if err != nil {
		return err
	}
	if v != 0 {
		return sparkerr.Newf(sparkerr.SparkException, "", "", "foreachBatch worker answered %d, not 0", v)
	}
	return nil
}

// Close implements sinks.ForeachBatchFunc: it stops the worker (waiting for a call in progress,
// which the query's cancellation ends) and revokes its token.
func (r *foreachBatchRunner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	r.revoke()
	if err := r.worker.Close(); err != nil {
		return fmt.Errorf("connect: closing the foreachBatch worker: %w", err)
	}
	return nil
}
