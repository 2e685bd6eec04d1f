"""Client-compatibility smoke: what every supported PySpark Connect client (3.5, 4.0, 4.1, 4.2, 4.3)
must be able to do against one Weir binary. scripts/client-compat.sh runs this file once per client
venv (.cache/clients/*); the server's Python workers run that venv's interpreter, so foreachBatch
and 3.5's server-side listener use the client's own PySpark worker modules. The full e2e suite
runs it with the main venv's client too. Keep it to seconds: it runs once per client in CI."""
import json
import os
import time

import pyspark
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQueryListener

CLIENT = tuple(int(p) for p in pyspark.__version__.split(".")[:2])
LISTENER_WORKER = "pyspark.sql.connect.streaming.worker.listener_worker"


def test_client_is_connect(spark):
    # The session really is a Spark Connect one (the full pyspark package could run classic).
    assert type(spark).__module__.startswith("pyspark.sql.connect")
    assert spark.version.count(".") == 2


def test_batch_query(spark):
    df = spark.createDataFrame([(i, f"k{i % 3}", i * 1.5) for i in range(30)], "id INT, k STRING, x DOUBLE")
    rows = (df.filter(F.col("id") >= 3).groupBy("k")
            .agg(F.count("*").alias("n"), F.sum("x").alias("s")).orderBy("k").collect())
    want = {k: [i for i in range(3, 30) if f"k{i % 3}" == k] for k in ("k0", "k1", "k2")}
    assert [(r.k, r.n, r.s) for r in rows] == [(k, len(v), sum(i * 1.5 for i in v)) for k, v in sorted(want.items())]
    pdf = df.where("id < 4").orderBy("id").toPandas()
    assert list(pdf.columns) == ["id", "k", "x"]
    assert pdf["id"].tolist() == [0, 1, 2, 3]
    assert df.schema.simpleString() == "struct<id:int,k:string,x:double>"


def test_sql_query(spark):
    rows = spark.sql("SELECT id, id * id AS sq FROM range(5) WHERE id % 2 = 0 ORDER BY id").collect()
    assert [(r.id, r.sq) for r in rows] == [(0, 0), (2, 4), (4, 16)]
    spark.createDataFrame([(1, "a"), (2, "b")], "n INT, s STRING").createOrReplaceTempView("compat_v")
    assert spark.sql("SELECT s FROM compat_v WHERE n = 2").first().s == "b"
    assert spark.range(10).count() == 10


def test_analysis_exception(spark):
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT no_such_column FROM range(1)").collect()
    msg = str(e.value)
    assert msg.startswith("[UNRESOLVED_COLUMN.WITH_SUGGESTION]") and "`no_such_column`" in msg
    assert msg.rstrip().endswith("SQLSTATE: 42703")
    if CLIENT >= (4, 0):
        # 3.5's client reads only the exception classes and the message from the ErrorInfo (its
        # getErrorClass() is always None); 4.x reads errorClass, messageParameters and sqlState.
        assert e.value.getErrorClass() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
        assert e.value.getSqlState() == "42703"
        assert e.value.getMessageParameters()["objectName"] == "`no_such_column`"


def test_streaming_start_progress_stop(spark):
    q = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 10).load()
         .where("value % 2 = 0").writeStream.format("memory").queryName("compat_stream").start())
    try:
        q.processAllAvailable()
        assert q.isActive
        p = q.lastProgress
        assert p is not None and p["id"] == str(q.id) and p["runId"] == str(q.runId)
        assert p["name"] == "compat_stream"
        assert p["numInputRows"] == 10 and p["batchId"] >= 0
        assert q.recentProgress and q.status["message"]
        vals = sorted(r.value for r in spark.sql("SELECT value FROM compat_stream").collect())
        assert vals and vals == list(range(0, vals[-1] + 1, 2))
        assert [x.id for x in spark.streams.active] == [q.id]
    finally:
        q.stop()
    assert not q.isActive and q.exception() is None


def test_foreach_batch(spark, tmp_path):
    out = tmp_path / "out"

    def func(batch_df, batch_id):
        batch_df.withColumn("batch", F.lit(batch_id)).write.mode("append").parquet(str(out))

    q = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 4).load()
         .select("value").writeStream.foreachBatch(func).start())
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    assert q.exception() is None
    rows = spark.read.parquet(str(out)).collect()
    assert rows and sorted(r.value for r in rows) == list(range(len(rows)))
    assert {r.batch for r in rows} == set(range(len(rows) // 4))


def _worker_children(server_pid, module):
    """Pids of the server's child processes running `python -m module`."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if ppid == server_pid and module.encode() in cmd:
            out.append(int(pid))
    return out


def test_listener(spark, server, tmp_path):
    # 3.5 pickles the listener to the server, which runs it in its own PySpark listener worker;
    # 4.x keeps it in the client and receives events on the listener-bus stream. The class is
    # local so that cloudpickle sends it by value (the worker cannot import this test module).
    class FileListener(StreamingQueryListener):
        """Writes each event as a JSON line to a file: the one sink that works both where the
        listener runs in the client (4.x) and where it runs in the server's Python worker (3.5)."""

        def __init__(self, path, server_side):
            self.path = path
            self.server_side = server_side

        def _write(self, kind, qid):
            with open(self.path, "a") as f:
                f.write(json.dumps({"event": kind, "id": str(qid)}) + "\n")

        def onQueryStarted(self, event):
            self._write("started", event.id)

        def onQueryProgress(self, event):
            self._write("progress", event.progress.id)

        def onQueryIdle(self, event):
            pass

        def onQueryTerminated(self, event):
            if self.server_side:
                # 3.5's worker hands the listener a session joined to the client's (self.spark).
                self.spark.createDataFrame([(str(event.id),)], "id STRING").createOrReplaceTempView(
                    "compat_listener_saw")
            self._write("terminated", event.id)

    path = str(tmp_path / "events.jsonl")
    listener = FileListener(path, server_side=CLIENT < (4, 0))
    spark.streams.addListener(listener)
    try:
        q = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 3).load()
             .writeStream.format("memory").queryName("compat_listened").start())
        q.processAllAvailable()
        q.stop()
        deadline = time.time() + 30
        events = []
        while time.time() < deadline:
            if os.path.exists(path):
                with open(path) as f:
                    events = [json.loads(line) for line in f if line.endswith("\n")]
            if any(e["event"] == "terminated" for e in events):
                break
            time.sleep(0.1)
        kinds = [e["event"] for e in events]
        # 4.x clients fire onQueryStarted from start()'s answer in the calling thread and the
        # progress events from the listener-bus thread, so the two may interleave either way.
        assert kinds.count("started") == 1 and kinds[-1] == "terminated" and "progress" in kinds, kinds
        assert {e["id"] for e in events} == {str(q.id)}
        if CLIENT < (4, 0):
            # The server's listener worker gets every event on one socket, the started one first.
            assert kinds[0] == "started", kinds
            assert [r.id for r in spark.sql("SELECT id FROM compat_listener_saw").collect()] == [str(q.id)]
            assert len(_worker_children(server.proc.pid, LISTENER_WORKER)) == 1
    finally:
        spark.streams.removeListener(listener)
    # Removing a server-side listener stops its worker before the call returns.
    assert _worker_children(server.proc.pid, LISTENER_WORKER) == []


def test_long_result_and_progress_reports(spark):
    # A result of several Arrow batches, and a job long enough for ExecutionProgress responses
    # (Spark 4's; a 3.5 client skips them as unknown fields) sent every millisecond: every client
    # reads just the rows, and 4.x clients hand the progress to their handlers.
    rows = spark.range(0, 50000, 1, 4).selectExpr("id", "id * 3 AS t").collect()
    assert len(rows) == 50000 and sorted(r.id for r in rows) == list(range(50000))
    assert all(r.t == 3 * r.id for r in rows)
    seen = []
    if hasattr(spark, "registerProgressHandler"):
        spark.registerProgressHandler(lambda stages, inflight_tasks, operation_id, done: seen.append(done))
    spark.conf.set("spark.connect.progress.reportInterval", "1ms")
    try:
        got = spark.range(0, 3000000, 1, 4).selectExpr("sum(hash(id) % 7) AS s").first().s
        want = spark.sql("SELECT sum(hash(id) % 7) AS s FROM range(0, 3000000, 1, 4)").first().s
        assert got == want
    finally:
        spark.conf.unset("spark.connect.progress.reportInterval")
        if hasattr(spark, "clearProgressHandlers"):
            spark.clearProgressHandlers()
    if hasattr(spark, "registerProgressHandler"):
        assert seen and seen[-1] is True, seen
