package pyworker

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weirhq/weir/sparkerr"
)

// foreachBatchModule is PySpark's foreachBatch worker (StreamingForeachBatchHelper starts it).
const foreachBatchModule = "pyspark.sql.connect.streaming.worker.foreach_batch_worker"

func startForeachBatch(t *testing.T, out *bytes.Buffer) *Worker {
	t.Helper()
	w, err := Start(context.Background(), Config{
		Python: testPython(t),
		Module: foreachBatchModule,
		// Never dialled in these tests: the worker stops before it uses its session.
		Env:    []string{"SPARK_CONNECT_LOCAL_URL=sc://127.0.0.1:1/;user_id=weir-test"},
		Output: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestForeachBatchWorkerVersionMismatch(t *testing.T) {
	base := snapshot(t)
	var out bytes.Buffer
	w := startForeachBatch(t, &out)
	pid := w.Pid()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := errors.Join(w.WritePythonVersion("2.7"), w.Flush(ctx)); err != nil {
		t.Fatal(err)
	}
	v, err := w.ReadStatus(ctx, "Found error inside foreachBatch Python process")
	se, ok := sparkerr.As(err)
	if v != PythonExceptionThrown || !ok || se.Class != "PYTHON_EXCEPTION" {
		t.Fatalf("status %d, err %v: want the worker's PYTHON_EXCEPTION", v, err)
	}
	for _, want := range []string{"PYTHON_VERSION_MISMATCH", "driver: 2.7", "check_python_version"} {
		if !strings.Contains(se.Params["traceback"], want) {
			t.Errorf("traceback lacks %q:\n%s", want, se.Params["traceback"])
		}
	}
	// After reporting, the worker's main returns: it exits by itself.
	select {
	case <-w.Exited():
	case <-ctx.Done():
		t.Fatal("the worker did not exit after its error")
	}
	w.Close()
	checkNoLeaks(t, base, pid)
}

func TestForeachBatchWorkerExitsWhenItsSocketCloses(t *testing.T) {
	base := snapshot(t)
	var out bytes.Buffer
	python := testPython(t)
	w := startForeachBatch(t, &out)
	pid := w.Pid()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The right version; the worker then waits for its session id. (Sending one would make it
	// build a Spark Connect session, which needs this server running: the engine's part.)
	if err := errors.Join(w.WritePythonVersion(pythonVersion(t, python)), w.Flush(ctx)); err != nil {
		t.Fatal(err)
	}
	// Only the socket closes (as when the server is killed -9): the worker exits on its own.
	w.conn.Close()
	select {
	case <-w.Exited():
	case <-ctx.Done():
		t.Fatal("the worker did not exit when its socket closed")
	}
	if w.waitErr != nil {
		t.Errorf("worker exit status %v, want a clean exit; output:\n%s", w.waitErr, out.String())
	}
	w.Close()
	checkNoLeaks(t, base, pid)
}
