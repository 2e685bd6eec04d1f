"""Event time from stock PySpark: withWatermark, windows, append-mode windowed aggregation,
late rows dropped and counted in progress (exact rows)."""
import datetime
import time

import pytest
from pyspark.errors import AnalysisException, PySparkException
from pyspark.sql import functions as F

from socket_lines import Lines

EPOCH = datetime.datetime(1970, 1, 1)


def secs(n):
    return EPOCH + datetime.timedelta(seconds=n)


def iso(n):
    return secs(n).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def rate_micro_batch(spark, rows_per_batch=10, partitions=2):
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", rows_per_batch).option("numPartitions", partitions)
            .option("startTimestamp", 0).option("advanceMillisPerBatch", 1000).load())


def windows(spark, table):
    return [(r.start, r.end, r["count"]) for r in
            spark.table(table).select("window.start", "window.end", "count").orderBy("start").collect()]


@pytest.fixture(autouse=True)
def utc(spark):
    spark.conf.set("spark.sql.session.timeZone", "UTC")


def test_append_mode_emits_each_closed_window_once(spark):
    # Batch k holds 10 rows stamped k seconds; the watermark after batch k is k - 5 s, so the
    # window [10j, 10j+10) closes once batch 10j+15 ran.
    agg = (rate_micro_batch(spark).withWatermark("timestamp", "5 seconds")
           .groupBy(F.window("timestamp", "10 seconds")).count())
    q = agg.writeStream.format("memory").queryName("et_append").outputMode("append").start()
    try:
        for _ in range(200):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress.batchId >= 36:
                break
        assert q.exception() is None
    finally:
        q.stop()
    last = q.lastProgress
    got = windows(spark, "et_append")
    # Exactly the windows the final watermark closed, each once with all its rows.
    closed = (last.batchId - 5) // 10
    assert closed >= 3
    assert got == [(secs(10 * j), secs(10 * j + 10), 100) for j in range(closed)]
    et = last.eventTime
    assert et["max"] == et["min"] == et["avg"] == iso(last.batchId)
    # The batch reports the watermark its rows were judged against (from the batches before).
    assert et["watermark"] == iso(last.batchId - 6)
    ops = last.stateOperators
    assert len(ops) == 1 and ops[0].numRowsDroppedByWatermark == 0
    # Open windows only: the one being filled (and the one before it until its end passes).
    assert 1 <= ops[0].numRowsTotal <= 2


def test_update_mode_with_watermark(spark):
    agg = (rate_micro_batch(spark, 4).withWatermark("timestamp", "2 seconds")
           .groupBy(F.window("timestamp", "5 seconds")).agg(F.sum("value").alias("total")))
    q = agg.writeStream.format("memory").queryName("et_update").outputMode("update").start()
    try:
        for _ in range(100):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress.batchId >= 12:
                break
    finally:
        q.stop()
    rows = spark.table("et_update").select("window.start", "total").collect()
    # Update mode writes a window's new value every batch that changed it: its last value is
    # the sum of the values of its 5 batches (batch k holds values 4k..4k+3).
    last = {}
    for r in rows:
        last[r.start] = max(last.get(r.start, 0), r.total)
    assert last[secs(0)] == sum(range(0, 20))
    assert last[secs(5)] == sum(range(20, 40))


def test_late_rows_are_dropped_and_counted(spark):
    srv = Lines()
    try:
        events = (spark.readStream.format("socket").option("host", "127.0.0.1").option("port", srv.port).load()
                  .select(F.col("value").cast("timestamp").alias("ts")))
        agg = events.withWatermark("ts", "5 seconds").groupBy(F.window("ts", "10 seconds")).count()
        q = agg.writeStream.format("memory").queryName("et_late").outputMode("append").start()
        try:
            def feed(*seconds):
                before = sum(p.numInputRows for p in q.recentProgress)
                srv.send(*(f"1970-01-01 00:00:{s:02d}" for s in seconds))
                deadline = time.time() + 20
                while time.time() < deadline:
                    q.processAllAvailable()
                    if sum(p.numInputRows for p in q.recentProgress) >= before + len(seconds):
                        return
                raise AssertionError("rows did not arrive")

            feed(1, 2, 12)          # watermark 7: nothing closed
            assert windows(spark, "et_late") == []
            feed(25)                # watermark 20: [0,10) and [10,20) close
            assert windows(spark, "et_late") == [(secs(0), secs(10), 2), (secs(10), secs(20), 1)]
            feed(3, 22)             # 3 belongs to the closed [0,10): dropped; 22 counts
            feed(40)                # watermark 35: [20,30) closes with 25 and 22
            assert q.exception() is None
        finally:
            q.stop()
        assert windows(spark, "et_late") == [
            (secs(0), secs(10), 2), (secs(10), secs(20), 1), (secs(20), secs(30), 2)]
        dropped = sum(op.numRowsDroppedByWatermark for p in q.recentProgress for op in p.stateOperators)
        assert dropped == 1
    finally:
        srv.close()


def test_sliding_windows_and_window_time(spark):
    df = spark.createDataFrame([(secs(1), 1), (secs(6), 2), (secs(12), 3)], "ts timestamp, v int")
    rows = (df.groupBy(F.window("ts", "10 seconds", "5 seconds")).agg(F.sum("v").alias("s"))
            .select("window.start", "window.end", "s").orderBy("start").collect())
    assert [(r.start, r.end, r.s) for r in rows] == [
        (secs(-5), secs(5), 1), (secs(0), secs(10), 3), (secs(5), secs(15), 5), (secs(10), secs(20), 3)]
    shifted = (df.groupBy(F.window("ts", "10 seconds", "10 seconds", "2 seconds")).count()
               .select("window.start", "count").orderBy("start").collect())
    assert [(r.start, r["count"]) for r in shifted] == [(secs(-8), 1), (secs(2), 1), (secs(12), 1)]
    wt = df.select(F.window_time(F.window("ts", "10 seconds")).alias("t")).orderBy("t").collect()
    assert [r.t for r in wt] == [secs(10) - datetime.timedelta(microseconds=1)] * 2 + [
        secs(20) - datetime.timedelta(microseconds=1)]


def test_sliding_window_streaming_append(spark):
    agg = (rate_micro_batch(spark, 2, 1).withWatermark("timestamp", "0 seconds")
           .groupBy(F.window("timestamp", "4 seconds", "2 seconds")).count())
    q = agg.writeStream.format("memory").queryName("et_sliding").outputMode("append").start()
    try:
        for _ in range(100):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress.batchId >= 10:
                break
    finally:
        q.stop()
    got = windows(spark, "et_sliding")
    # Every closed 4-second window holds 4 batches of 2 rows ([-2, 2) only batches 0 and 1).
    assert got[0] == (secs(-2), secs(2), 4)
    assert all(c == 8 for _, _, c in got[1:]) and len(got) >= 4
    assert [s for s, _, _ in got] == [secs(-2 + 2 * i) for i in range(len(got))]


def test_watermark_errors(spark):
    with pytest.raises(AnalysisException, match="EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE"):
        rate_micro_batch(spark).withWatermark("value", "1 second").schema
    with pytest.raises(PySparkException):
        rate_micro_batch(spark).withWatermark("timestamp", "soon").schema
    # Append mode needs the aggregation keyed on the watermarked event time.
    agg = rate_micro_batch(spark).withWatermark("timestamp", "1 second").groupBy("value").count()
    with pytest.raises(AnalysisException, match="without watermark"):
        agg.writeStream.format("memory").queryName("et_bad").outputMode("append").start()


def test_session_windows_batch(spark):
    df = spark.createDataFrame([("a", secs(1)), ("a", secs(3)), ("a", secs(10)), ("b", secs(2))], "k string, ts timestamp")
    rows = (df.groupBy("k", F.session_window("ts", "5 seconds")).count()
            .select("k", "session_window.start", "session_window.end", "count").orderBy("k", "start").collect())
    assert [tuple(r) for r in rows] == [
        ("a", secs(1), secs(8), 2), ("a", secs(10), secs(15), 1), ("b", secs(2), secs(7), 1)]


def test_session_windows_streaming_append(spark):
    # Batch k holds 4 rows stamped 10k seconds: with a 5-second gap each batch is one session
    # per key, closed once the next batch moves the watermark (delay 0) to 10(k+1).
    df = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 4).option("numPartitions", 2)
          .option("startTimestamp", 0).option("advanceMillisPerBatch", 10000).load())
    agg = (df.withWatermark("timestamp", "0 seconds")
           .groupBy((F.col("value") % 2).alias("k"), F.session_window("timestamp", "5 seconds")).count())
    q = agg.writeStream.format("memory").queryName("et_sessions").outputMode("append").start()
    try:
        for _ in range(100):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress.batchId >= 5:
                break
        assert q.exception() is None
    finally:
        q.stop()
    last = q.lastProgress.batchId
    rows = (spark.table("et_sessions").select("k", "session_window.start", "session_window.end", "count")
            .orderBy("start", "k").collect())
    # Stop may come after the sink wrote an epoch and before its progress: the table then holds
    # the sessions that epoch closed too.
    closed = last + 1 if len(rows) > 2 * last else last
    assert [tuple(r) for r in rows] == [
        (k, secs(10 * j), secs(10 * j + 5), 2) for j in range(closed) for k in (0, 1)]
    with pytest.raises(Exception, match="session_window"):
        agg.writeStream.format("memory").queryName("et_sessions_update").outputMode("update").start().processAllAvailable()


def test_batch_watermark_is_a_no_op_and_sliding_select(spark):
    df = spark.createDataFrame([(secs(7), 1), (secs(1), 2)], "ts timestamp, v int")
    assert df.withWatermark("ts", "1 second").groupBy(F.window("ts", "10 seconds")).count().collect()[0]["count"] == 2
    rows = df.select("v", F.window("ts", "10 seconds", "5 seconds").alias("w")).orderBy("v", "w.start").collect()
    assert [(r.v, r.w.start) for r in rows] == [(1, secs(0)), (1, secs(5)), (2, secs(-5)), (2, secs(0))]


def test_chained_window_aggregations_with_window_time(spark):
    per5 = (rate_micro_batch(spark).withWatermark("timestamp", "2 seconds")
            .groupBy(F.window("timestamp", "5 seconds")).count())
    per10 = per5.groupBy(F.window(F.window_time("window"), "10 seconds")).agg(F.sum("count").alias("count"))
    q = per10.writeStream.format("memory").queryName("et_chained").outputMode("append").start()
    try:
        for _ in range(100):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress.batchId >= 25:
                break
        assert q.exception() is None
    finally:
        q.stop()
    closed = (q.lastProgress.batchId - 2) // 10
    assert closed >= 2
    assert windows(spark, "et_chained") == [(secs(10 * j), secs(10 * j + 10), 100) for j in range(closed)]


def test_windows_exactly_once_across_a_checkpointed_restart(spark, tmp_path):
    location = str(tmp_path / "cp")

    def run(name, until):
        agg = (rate_micro_batch(spark).withWatermark("timestamp", "5 seconds")
               .groupBy(F.window("timestamp", "10 seconds")).count())
        q = (agg.writeStream.format("memory").queryName(name).outputMode("append")
             .option("checkpointLocation", location).start())
        try:
            for _ in range(200):
                q.processAllAvailable()
                if q.lastProgress is not None and q.lastProgress.batchId >= until:
                    break
            assert q.exception() is None
        finally:
            q.stop()
        return q.lastProgress.batchId, windows(spark, name)

    first_batch, first = run("et_cp1", 22)
    last_batch, second = run("et_cp2", first_batch + 20)
    # Together the two runs emitted each closed window once, with all its rows: the
    # restarted run resumed the open windows' state and the watermark.
    # stop() can land after an epoch's sink commit and before its progress is reported (as in
    # Spark, whose memory sink adds the batch before the commit log and the progress): then a
    # run's output holds the window its last reported batch had not yet closed.
    together = first + second
    assert together == [(secs(10 * j), secs(10 * j + 10), 100) for j in range(len(together))]
    assert len(first) - (first_batch - 5) // 10 in (0, 1)
    assert len(together) - (last_batch - 5) // 10 in (0, 1)
