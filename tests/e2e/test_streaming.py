"""Structured Streaming from stock PySpark: sources, sinks, triggers, output modes, lifecycle."""
import re
import socket
import threading
import time
import uuid

import pytest
from pyspark.errors import (
    AnalysisException, IllegalArgumentException, StreamingQueryException,
)
from pyspark.sql import functions as F
from pyspark.sql.streaming import StreamingQueryListener


def rate_micro_batch(spark, rows_per_batch=10, partitions=2):
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", rows_per_batch).option("numPartitions", partitions).load())


def test_streaming_dataframe_metadata(spark, capsys):
    df = spark.readStream.format("rate").option("rowsPerSecond", 5).load()
    assert df.isStreaming
    assert not spark.range(3).isStreaming
    assert df.columns == ["timestamp", "value"]
    assert [f.dataType.typeName() for f in df.schema.fields] == ["timestamp", "long"]
    df.printSchema()
    assert "|-- value: long" in capsys.readouterr().out
    with pytest.raises(AnalysisException) as e:
        df.collect()
    assert "writeStream.start()" in str(e.value)
    with pytest.raises(AnalysisException):
        df.count()


def test_memory_sink_once_exact_rows(spark):
    q = (rate_micro_batch(spark, 10).selectExpr("value", "value * 2 AS twice")
         .writeStream.format("memory").queryName("once_q").trigger(once=True).start())
    q.awaitTermination(60)
    assert not q.isActive
    rows = spark.sql("SELECT value, twice FROM once_q ORDER BY value").collect()
    assert [(r.value, r.twice) for r in rows] == [(v, 2 * v) for v in range(10)]
    assert q.exception() is None
    assert q.lastProgress is not None and q.lastProgress.batchId == 0
    assert q.lastProgress.numInputRows == 10


def test_process_all_available_then_query_the_view(spark):
    q = (rate_micro_batch(spark, 5).where("value % 2 = 0").writeStream.format("memory")
         .queryName("evens").start())
    try:
        q.processAllAvailable()
        vals = [r.value for r in spark.sql("SELECT value FROM evens ORDER BY value").collect()]
        assert vals, "no rows after processAllAvailable"
        assert vals == list(range(0, vals[-1] + 1, 2))
        assert q.isActive
        assert set(q.status) == {"message", "isDataAvailable", "isTriggerActive"}
        assert isinstance(q.status["message"], str)
        assert len(q.recentProgress) >= 1
        assert uuid.UUID(str(q.id)) and uuid.UUID(str(q.runId))
    finally:
        q.stop()
    assert not q.isActive
    assert q.status["message"] == "Stopped"


def test_complete_mode_aggregation_exact_counts(spark):
    agg = rate_micro_batch(spark, 100).groupBy((F.col("value") % 10).alias("k")).count()
    q = (agg.writeStream.format("memory").queryName("agg_complete").outputMode("complete")
         .trigger(availableNow=True).start())
    q.awaitTermination(60)
    rows = spark.sql("SELECT k, `count` FROM agg_complete ORDER BY k").collect()
    assert [(r.k, r["count"]) for r in rows] == [(k, 10) for k in range(10)]


def _batches(log_text, query_marker):
    """Splits console-sink output into {batch id: [table lines]}."""
    out = {}
    for m in re.finditer(r"-{43}\nBatch: (\d+)\n-{43}\n((?:[+|].*\n)*)", log_text):
        out[int(m.group(1))] = m.group(2).splitlines()
    return out


def test_update_mode_console_output(spark, server):
    agg = rate_micro_batch(spark, 20).groupBy((F.col("value") % 10).alias("k")).count()
    q = agg.writeStream.format("console").outputMode("update").trigger(availableNow=True).start()
    q.awaitTermination(60)
    assert not q.isActive
    deadline = time.time() + 10
    batches = {}
    while time.time() < deadline and 0 not in batches:
        batches = _batches(server.log(), "update")
        time.sleep(0.1)
    table = batches[0]
    assert table[1] == "|  k|count|"
    body = sorted(table[3:-1])
    assert body == sorted(f"|{k:>3}|{2:>5}|" for k in range(10))


def test_append_aggregation_without_watermark_is_rejected(spark):
    agg = rate_micro_batch(spark).groupBy("value").count()
    with pytest.raises(AnalysisException) as e:
        agg.writeStream.format("memory").queryName("bad_mode").outputMode("append").start()
    assert "Append output mode not supported" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        rate_micro_batch(spark).writeStream.format("memory").queryName("bad2").outputMode("complete").start()
    assert "Complete output mode not supported" in str(e.value)


def test_bad_options_and_formats(spark):
    with pytest.raises(IllegalArgumentException):
        spark.readStream.format("rate").option("rowsPerSecond", 0).load().writeStream.format("noop").start()
    with pytest.raises(AnalysisException):
        rate_micro_batch(spark).writeStream.format("no-such-sink").start()
    with pytest.raises(AnalysisException):
        rate_micro_batch(spark).writeStream.format("memory").start()  # memory needs queryName


def test_duplicate_query_name_is_refused(spark):
    q = rate_micro_batch(spark).writeStream.format("noop").queryName("dup").start()
    try:
        with pytest.raises(Exception) as e:
            rate_micro_batch(spark).writeStream.format("noop").queryName("dup").start()
        assert "dup" in str(e.value)
    finally:
        q.stop()


def test_runtime_failure_surfaces(spark):
    q = (rate_micro_batch(spark).selectExpr("value / (value - value) AS boom")
         .writeStream.format("noop").start())
    with pytest.raises(StreamingQueryException) as e:
        q.awaitTermination(60)
    assert "DIVIDE_BY_ZERO" in str(e.value)
    exc = q.exception()
    assert exc is not None and "DIVIDE_BY_ZERO" in str(exc)
    assert not q.isActive


class _LineServer:
    def __init__(self, lines):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.lines = lines
        self.sent = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.sock.accept()
        for line in self.lines:
            conn.sendall((line + "\n").encode())
        self.sent.set()
        self.conn = conn  # keep open until the test closes it

    def close(self):
        self.sock.close()


def test_socket_source_to_memory(spark):
    srv = _LineServer(["hello", "weir", "streams"])
    try:
        df = (spark.readStream.format("socket").option("host", "127.0.0.1")
              .option("port", srv.port).load())
        q = df.writeStream.format("memory").queryName("lines").start()
        assert srv.sent.wait(10)
        deadline = time.time() + 20
        rows = []
        while time.time() < deadline and len(rows) < 3:
            q.processAllAvailable()
            rows = [r.value for r in spark.sql("SELECT value FROM lines").collect()]
        assert sorted(rows) == ["hello", "streams", "weir"]
        q.stop()
    finally:
        srv.close()


def test_socket_refused_fails_the_query(spark):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    with pytest.raises((StreamingQueryException, Exception)) as e:
        q = (spark.readStream.format("socket").option("host", "127.0.0.1").option("port", port)
             .load().writeStream.format("noop").start())
        q.awaitTermination(30)
    assert "refused" in str(e.value).lower() or "connect" in str(e.value).lower()


def test_streams_manager(spark):
    spark.streams.resetTerminated()  # earlier tests' failed queries would be reported first
    q = rate_micro_batch(spark).writeStream.format("noop").queryName("managed").start()
    try:
        assert any(a.id == q.id for a in spark.streams.active)
        assert spark.streams.get(q.id).name == "managed"
    finally:
        q.stop()
    assert spark.streams.awaitAnyTermination(5) is True
    spark.streams.resetTerminated()
    assert all(a.id != q.id for a in spark.streams.active)


def test_listener_gets_progress_and_terminated(spark):
    events = {"progress": [], "terminated": []}
    got_terminated = threading.Event()

    class L(StreamingQueryListener):
        def onQueryStarted(self, event):
            pass

        def onQueryProgress(self, event):
            events["progress"].append(event.progress.batchId)

        def onQueryIdle(self, event):
            pass

        def onQueryTerminated(self, event):
            events["terminated"].append(event.id)
            got_terminated.set()

    listener = L()
    spark.streams.addListener(listener)
    try:
        q = rate_micro_batch(spark).writeStream.format("noop").trigger(once=True).start()
        q.awaitTermination(60)
        assert got_terminated.wait(20)
        assert events["terminated"] == [uuid.UUID(q.id)]
        assert 0 in events["progress"]
    finally:
        spark.streams.removeListener(listener)


def test_processing_time_trigger_and_continuous(spark):
    q = (spark.readStream.format("rate").option("rowsPerSecond", 1000).load()
         .writeStream.format("noop").trigger(processingTime="200 milliseconds").start())
    try:
        q.processAllAvailable()
        assert q.isActive
    finally:
        q.stop()
    q = (spark.readStream.format("rate").option("rowsPerSecond", 1000).load()
         .writeStream.format("noop").trigger(continuous="1 second").start())
    try:
        assert q.isActive
    finally:
        q.stop()
    assert not q.isActive


def test_current_timestamp_is_the_micro_batch_time(spark):
    # Spark evaluates current_timestamp() once per micro-batch (its batch timestamp): every row
    # of a batch carries the same time, and later batches later times.
    q = (rate_micro_batch(spark, 5).withColumn("now", F.current_timestamp())
         .writeStream.format("memory").queryName("batch_now")
         .trigger(processingTime="300 milliseconds").start())
    try:
        deadline = time.time() + 60
        while len(q.recentProgress) < 4 and time.time() < deadline:
            time.sleep(0.1)
        assert len(q.recentProgress) >= 4, "fewer than 4 micro-batches in 60 s"
    finally:
        q.stop()
    rows = spark.sql("SELECT value, now FROM batch_now").collect()
    by_batch = {}
    for r in rows:
        by_batch.setdefault(r.value // 5, set()).add(r.now)
    assert len(by_batch) >= 4
    times = [by_batch[b] for b in sorted(by_batch)]
    assert all(len(t) == 1 for t in times), times
    firsts = [next(iter(t)) for t in times]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts), firsts
    with pytest.raises(AnalysisException) as e:
        (spark.readStream.format("rate").load().withColumn("now", F.current_timestamp())
         .writeStream.format("console").trigger(continuous="1 second").start())
    assert "Continuous processing does not support current time operations" in str(e.value)
