"""writeStream.foreachBatch through PySpark's own foreachBatch worker: the function runs in a Python
process the server starts, reads each epoch's output over Spark Connect and writes wherever it likes."""
import json
import os
import time

import pytest
from pyspark.errors import StreamingQueryException
from pyspark.sql import functions as F

from conftest import start_server, stop_server


def write_json(src, name, rows):
    tmp = src / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.rename(tmp, src / name)


def worker_pids(server_pid):
    """The server's foreachBatch worker processes (children of the server)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if b"foreach_batch_worker" in cmd:
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            out.append((int(pid), ppid))
    return [p for p, pp in out if pp == server_pid or server_pid is None]


def test_foreach_batch_writes_each_batch_to_parquet(spark, server, tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    write_json(src, "a.json", [{"k": i, "v": f"x{i}"} for i in range(3)])
    stream = spark.readStream.format("json").schema("k INT, v STRING").load(str(src))

    def func(batch_df, batch_id):
        batch_df.withColumn("batch", F.lit(batch_id)).write.mode("append").parquet(str(out))

    q = stream.writeStream.foreachBatch(func).start()
    try:
        q.processAllAvailable()
        write_json(src, "b.json", [{"k": 10, "v": "y"}])
        q.processAllAvailable()
        assert q.lastProgress["sink"]["description"] == "ForeachBatchSink"
        assert q.lastProgress["sink"]["numOutputRows"] == -1  # as Spark reports it
    finally:
        q.stop()
    rows = sorted((r.batch, r.k, r.v) for r in spark.read.parquet(str(out)).collect())
    assert rows == [(0, 0, "x0"), (0, 1, "x1"), (0, 2, "x2"), (1, 10, "y")]
    assert q.exception() is None
    assert worker_pids(server.proc.pid) == []


def test_foreach_batch_feeds_a_second_query(spark, tmp_path):
    src, mid = tmp_path / "src", tmp_path / "mid"
    src.mkdir()
    mid.mkdir()
    write_json(src, "a.json", [{"k": i} for i in range(5)])
    first = spark.readStream.format("json").schema("k INT").load(str(src))

    def func(batch_df, batch_id):
        batch_df.selectExpr("k * 10 AS k10").write.mode("append").json(str(mid / f"b{batch_id}"))

    q1 = first.writeStream.foreachBatch(func).start()
    try:
        q1.processAllAvailable()
    finally:
        q1.stop()
    second = spark.readStream.format("json").schema("k10 INT").option("recursiveFileLookup", "true").load(str(mid))
    q2 = second.writeStream.format("memory").queryName("fb_second").start()
    try:
        q2.processAllAvailable()
        got = sorted(r.k10 for r in spark.sql("SELECT * FROM fb_second").collect())
    finally:
        q2.stop()
    assert got == [0, 10, 20, 30, 40]


def test_foreach_batch_complete_mode_sees_the_whole_result(spark, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    seen = tmp_path / "seen"
    seen.mkdir()
    write_json(src, "a.json", [{"k": "a"}, {"k": "b"}, {"k": "a"}])
    counts = spark.readStream.format("json").schema("k STRING").load(str(src)).groupBy("k").count()

    def func(batch_df, batch_id):
        rows = sorted((r.k, r["count"]) for r in batch_df.collect())
        with open(os.path.join(str(seen), f"{batch_id}.json"), "w") as f:
            json.dump(rows, f)

    q = counts.writeStream.outputMode("complete").foreachBatch(func).start()
    try:
        q.processAllAvailable()
        write_json(src, "b.json", [{"k": "c"}])
        q.processAllAvailable()
    finally:
        q.stop()
    assert json.loads((seen / "0.json").read_text()) == [["a", 2], ["b", 1]]
    assert json.loads((seen / "1.json").read_text()) == [["a", 2], ["b", 1], ["c", 1]]


def test_foreach_batch_error_fails_the_query_with_the_traceback(spark, server, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_json(src, "a.json", [{"k": 1}])

    def func(batch_df, batch_id):
        raise RuntimeError("this should fail the query")

    q = spark.readStream.format("json").schema("k INT").load(str(src)).writeStream.foreachBatch(func).start()
    with pytest.raises(StreamingQueryException) as e:
        q.processAllAvailable()
    msg = str(e.value)
    assert "FOREACH_BATCH_USER_FUNCTION_ERROR" in msg
    assert "this should fail the query" in msg
    assert "Traceback" in msg and "RuntimeError" in msg
    deadline = time.time() + 10
    while worker_pids(server.proc.pid) and time.time() < deadline:
        time.sleep(0.05)
    assert worker_pids(server.proc.pid) == []


def test_foreach_batch_start_fails_on_a_python_version_mismatch(spark, tmp_path):
    from pyspark.sql.connect.streaming import readwriter

    stream = spark.readStream.format("rate").load()
    w = stream.writeStream.foreachBatch(lambda df, i: None)
    w._write_proto.foreach_batch.python_function.python_ver = "2.7"
    with pytest.raises(Exception) as e:
        w.start()
    assert "PYTHON_VERSION_MISMATCH" in str(e.value)


def test_foreach_batch_replays_a_crashed_epoch_with_its_batch_id(tmp_path):
    """kill -9 of the server after the function's writes but before the epoch's commit: after a
    restart the epoch runs again with the same batch id and the same rows; the worker, orphaned
    by the kill, exits by itself."""
    import crash_harness

    src, ck = tmp_path / "src", tmp_path / "ck"
    src.mkdir()
    log, marker = str(tmp_path / "log.jsonl"), str(tmp_path / "killed")
    write_json(src, "a.json", [{"k": i} for i in range(3)])

    def func(batch_df, batch_id):
        import os as os_, json as json_, signal, time as time_
        rows = sorted(r.k for r in batch_df.collect())
        with open(log, "a") as f:
            f.write(json_.dumps({"batch": batch_id, "rows": rows, "pid": os_.getpid()}) + "\n")
        if batch_id == 1 and not os_.path.exists(marker):
            open(marker, "w").close()
            os_.kill(os_.getppid(), signal.SIGKILL)  # the server: the worker's parent
            time_.sleep(2)

    def start(spark):
        return (spark.readStream.format("json").schema("k INT").load(str(src))
                .writeStream.option("checkpointLocation", str(ck)).foreachBatch(func).start())

    server = start_server()
    spark = crash_harness.session(server)
    try:
        q = start(spark)
        q.processAllAvailable()
        write_json(src, "b.json", [{"k": 10}])
        # The function kills the server during batch 1 (the client is not asked anything: its
        # calls would retry against the dead server).
        server.proc.wait(timeout=60)
    finally:
        crash_harness.drop(spark)
        if server.proc.poll() is None:
            server.proc.kill()
    entries = [json.loads(line) for line in open(log)]
    orphan = entries[-1]["pid"]
    deadline = time.time() + 20
    while os.path.exists(f"/proc/{orphan}") and time.time() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{orphan}"), "the orphaned foreachBatch worker did not exit"

    server = start_server()
    spark = crash_harness.session(server)
    try:
        q = start(spark)
        q.processAllAvailable()
        write_json(src, "c.json", [{"k": 20}, {"k": 21}])
        q.processAllAvailable()
        q.stop()
    finally:
        spark.stop()
        stop_server(server)
    got = [(e["batch"], e["rows"]) for e in (json.loads(line) for line in open(log))]
    assert got == [(0, [0, 1, 2]), (1, [10]), (1, [10]), (2, [20, 21])]


def test_foreach_batch_stop_during_the_function_is_graceful(spark, server, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    started = tmp_path / "started"
    write_json(src, "a.json", [{"k": 1}])

    def func(batch_df, batch_id):
        import time as time_
        open(str(started), "w").close()
        time_.sleep(30)

    q = spark.readStream.format("json").schema("k INT").load(str(src)).writeStream.foreachBatch(func).start()
    deadline = time.time() + 30
    while not started.exists() and time.time() < deadline:
        time.sleep(0.05)
    assert started.exists()
    t0 = time.time()
    q.stop()
    assert time.time() - t0 < 15, "stop waited for the function"
    assert q.exception() is None
    deadline = time.time() + 10
    while worker_pids(server.proc.pid) and time.time() < deadline:
        time.sleep(0.05)
    assert worker_pids(server.proc.pid) == []


def test_foreach_batch_function_that_cannot_load_fails_start(spark):
    from pyspark.errors import StreamingPythonRunnerInitializationException

    class Unloadable:
        @staticmethod
        def _fail():
            raise ValueError("Cannot unpickle this object")

        def __reduce__(self):
            return self._fail, ()

    obj = Unloadable()

    def func(batch_df, batch_id):
        print(obj)

    with pytest.raises(StreamingPythonRunnerInitializationException) as e:
        spark.readStream.format("rate").load().writeStream.foreachBatch(func).start()
    assert "Streaming Runner initialization failed" in str(e.value)
    assert "Cannot unpickle this object" in str(e.value)
    assert spark.streams.active == []
