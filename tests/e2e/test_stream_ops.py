"""Stateful streaming operators from stock PySpark: deduplication and joins (exact rows)."""
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F


def rate_micro_batch(spark, rows_per_batch=10, partitions=2):
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", rows_per_batch).option("numPartitions", partitions).load())


def run_available_now(df, name, mode="append"):
    q = df.writeStream.format("memory").queryName(name).outputMode(mode).trigger(availableNow=True).start()
    assert q.awaitTermination(60), "query did not finish"
    assert q.exception() is None
    return q


def run_epochs(df, name, epochs=3):
    """Runs df into a memory table until at least `epochs` micro-batches completed, then stops."""
    q = df.writeStream.format("memory").queryName(name).start()
    try:
        for _ in range(100):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress.batchId >= epochs - 1:
                break
        assert q.exception() is None
    finally:
        q.stop()
    return q.lastProgress.batchId + 1


def test_drop_duplicates_across_epochs(spark):
    df = rate_micro_batch(spark, 10).select((F.col("value") % 5).alias("k"), "value").dropDuplicates(["k"])
    batches = run_epochs(df, "dedup_k")
    assert batches >= 3
    rows = spark.sql("SELECT k, value FROM dedup_k ORDER BY k").collect()
    # Every key once, from the first micro-batch (values 0..9), however many batches ran.
    assert [r.k for r in rows] == [0, 1, 2, 3, 4]
    assert all(r.value % 5 == r.k and r.value < 10 for r in rows)


def test_distinct_on_a_stream(spark):
    df = rate_micro_batch(spark, 20).select((F.col("value") % 7).alias("m")).distinct()
    run_available_now(df, "distinct_m")
    assert [r.m for r in spark.sql("SELECT m FROM distinct_m ORDER BY m").collect()] == list(range(7))


def test_drop_duplicates_with_event_time_key(spark):
    # rate-micro-batch gives every row of a micro-batch the same timestamp (one second apart):
    # (k, timestamp) is new in every batch, and old keys leave the state with the watermark.
    df = (rate_micro_batch(spark, 10).withWatermark("timestamp", "0 seconds")
          .select((F.col("value") % 5).alias("k"), "timestamp", "value")
          .dropDuplicates(["k", "timestamp"]))
    batches = run_epochs(df, "dedup_time")
    rows = spark.sql("SELECT k, timestamp, value FROM dedup_time").collect()
    by_ts = {}
    for r in rows:
        by_ts.setdefault(r.timestamp, []).append(r.k)
    assert len(by_ts) >= batches - 1
    assert all(sorted(ks) == [0, 1, 2, 3, 4] for ks in by_ts.values())


def test_drop_duplicates_within_watermark(spark):
    df = (rate_micro_batch(spark, 10).withWatermark("timestamp", "1 hour")
          .select((F.col("value") % 5).alias("k"), "timestamp", "value")
          .dropDuplicatesWithinWatermark(["k"]))
    run_epochs(df, "dedup_within")
    rows = spark.sql("SELECT k, value FROM dedup_within ORDER BY k").collect()
    assert [r.k for r in rows] == [0, 1, 2, 3, 4]
    assert all(r.value < 10 for r in rows)


def test_drop_duplicates_within_watermark_needs_a_watermark(spark):
    df = rate_micro_batch(spark, 10).dropDuplicatesWithinWatermark(["value"])
    with pytest.raises(AnalysisException) as e:
        df.writeStream.format("memory").queryName("dedup_within_bad").start()
    assert "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark" in str(e.value)


def test_stream_static_joins(spark):
    static = spark.createDataFrame([(0, "zero"), (3, "three"), (3, "drei"), (20, "twenty")], ["value", "name"])
    stream = rate_micro_batch(spark, 6).select("value")
    run_available_now(stream.join(static, "value"), "ss_inner")
    rows = spark.sql("SELECT value, name FROM ss_inner ORDER BY value, name").collect()
    assert [(r.value, r.name) for r in rows] == [(0, "zero"), (3, "drei"), (3, "three")]

    run_available_now(stream.join(static, "value", "left_outer"), "ss_left")
    rows = spark.sql("SELECT value, name FROM ss_left ORDER BY value, name").collect()
    assert [(r.value, r.name) for r in rows] == [
        (0, "zero"), (1, None), (2, None), (3, "drei"), (3, "three"), (4, None), (5, None)]

    with pytest.raises(AnalysisException) as e:
        stream.join(static, "value", "right_outer").writeStream.format("memory").queryName("ss_right").start()
    assert ("RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet "
            "on the right not supported") in str(e.value)


def test_stream_stream_inner_join(spark):
    a = rate_micro_batch(spark, 10).select(F.col("value").alias("a"))
    b = rate_micro_batch(spark, 10, partitions=1).where("value % 2 = 0").select(F.col("value").alias("b"))
    run_available_now(a.join(b, a.a == b.b), "sj_inner")
    rows = spark.sql("SELECT a, b FROM sj_inner ORDER BY a").collect()
    assert [(r.a, r.b) for r in rows] == [(v, v) for v in range(0, 10, 2)]


def test_stream_stream_inner_join_across_epochs(spark):
    # Each pair is emitted exactly once, whichever epoch brings its second row.
    a = rate_micro_batch(spark, 4).select(F.col("value").alias("a"))
    b = rate_micro_batch(spark, 4).select((F.col("value") % 8).alias("b"), F.col("value").alias("bv"))
    run_epochs(a.join(b, a.a == b.b), "sj_epochs", epochs=4)
    rows = spark.sql("SELECT a, bv FROM sj_epochs ORDER BY bv").collect()
    # The table holds whole epochs of 4 rows a side (the last may have committed after the
    # progress read): every right row paired once with the left row of its value mod 8.
    seen = rows[-1].bv + 1
    assert seen >= 16 and seen % 4 == 0
    assert [(r.a, r.bv) for r in rows] == [(v % 8, v) for v in range(seen)]


def test_stream_stream_left_outer_join_with_watermark(spark):
    a = (rate_micro_batch(spark, 4).withWatermark("timestamp", "0 seconds")
         .select(F.col("value").alias("a"), F.col("timestamp").alias("ta")))
    b = (rate_micro_batch(spark, 4).withWatermark("timestamp", "0 seconds").where("value % 2 = 0")
         .select(F.col("value").alias("b"), F.col("timestamp").alias("tb")))
    cond = F.expr("a = b AND ta BETWEEN tb - INTERVAL 1 SECOND AND tb + INTERVAL 1 SECOND")
    run_epochs(a.join(b, cond, "left_outer"), "sj_left", epochs=4)
    rows = spark.sql("SELECT a, b FROM sj_left ORDER BY a").collect()
    got = {r.a: r.b for r in rows}
    assert len(got) == len(rows), "a left row came out twice"
    # The table holds whole epochs of 4 left rows. Even values matched in their epoch; odd ones
    # come out with NULL once the watermark passed their time + 1 s (the rows of consecutive
    # epochs are a second apart: one epoch later).
    seen = (max(got) // 4 + 1) * 4
    assert seen >= 12
    for v in range(seen):
        if v % 2 == 0:
            assert got.get(v) == v
        elif v < seen - 8:
            assert v in got and got[v] is None
        elif v in got:
            assert got[v] is None


def test_stream_stream_left_semi_join_with_watermark(spark):
    a = (rate_micro_batch(spark, 4).withWatermark("timestamp", "0 seconds")
         .select(F.col("value").alias("a"), F.col("timestamp").alias("ta")))
    # Two right rows per even value: the left row still comes out once.
    b = (rate_micro_batch(spark, 4).withWatermark("timestamp", "0 seconds")
         .select((F.col("value") - F.col("value") % 2).alias("b"), F.col("timestamp").alias("tb")))
    cond = F.expr("a = b AND ta BETWEEN tb - INTERVAL 1 SECOND AND tb + INTERVAL 1 SECOND")
    run_epochs(a.join(b, cond, "left_semi"), "sj_semi", epochs=4)
    rows = spark.sql("SELECT a FROM sj_semi ORDER BY a").collect()
    got = [r.a for r in rows]
    assert len(got) >= 8
    assert got == list(range(0, got[-1] + 1, 2))


def test_stream_stream_left_outer_join_on_event_time_windows(spark):
    # Equality on watermarked windows bounds the state: a window's rows leave it (the unmatched
    # left ones with NULLs) once the watermark passes the window's end.
    a = (rate_micro_batch(spark, 4).withWatermark("timestamp", "0 seconds")
         .select(F.col("value").alias("a"), F.window("timestamp", "2 seconds").alias("wa")))
    b = (rate_micro_batch(spark, 4).withWatermark("timestamp", "0 seconds").where("value % 2 = 0")
         .select(F.col("value").alias("b"), F.window("timestamp", "2 seconds").alias("wb")))
    run_epochs(a.join(b, (a.a == b.b) & (a.wa == b.wb), "left_outer"), "sj_window", epochs=5)
    rows = spark.sql("SELECT a, b, CAST(wa.`end` AS BIGINT) AS e FROM sj_window ORDER BY a").collect()
    got = {r.a: r.b for r in rows}
    assert len(got) == len(rows), "a left row came out twice"
    seen = (max(got) // 4 + 1) * 4
    assert seen >= 16
    for v in range(seen):
        if v % 2 == 0:
            assert got.get(v) == v
        elif v < seen - 12:
            assert v in got and got[v] is None
    # Rows of batch n (4 a batch) have timestamp n seconds, in the window ending at 2*(n//2)+2.
    assert all(r.e == 2 * ((r.a // 4) // 2) + 2 for r in rows)


def test_stream_stream_outer_join_without_watermark_is_rejected(spark):
    a = rate_micro_batch(spark, 4).select(F.col("value").alias("a"))
    b = rate_micro_batch(spark, 4).select(F.col("value").alias("b"))
    with pytest.raises(AnalysisException) as e:
        a.join(b, a.a == b.b, "left_outer").writeStream.format("memory").queryName("sj_left_bad").start()
    assert ("Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a "
            "watermark in the join keys, or a watermark on the nullable side and an appropriate range condition") in str(e.value)
