"""DataFrame API relations from stock PySpark (observe, stat, na.replace, unpivot, ...).

Expected values were confirmed against Apache Spark 4's own Connect server with the same calls.
"""
import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import Observation, functions as F


@pytest.fixture
def df(spark):
    return spark.createDataFrame(
        [(1, 2.0, "a"), (2, 4.0, "b"), (3, None, "a"), (4, 7.5, "c")], "id long, v double, s string")


def test_observe_batch_metrics(df):
    o = Observation("m1")
    rows = df.observe(o, F.count(F.lit(1)).alias("cnt"), F.sum("v").alias("sv"),
                      (F.max("id") + 1).alias("mx"), F.avg("id")).filter("id > 1").collect()
    assert [r.id for r in rows] == [2, 3, 4]
    # Spark: {'cnt': 4, 'sv': 13.5, 'mx': 5, 'avg(id)': 2.5} -- the rows before the filter.
    assert o.get == {"cnt": 4, "sv": 13.5, "mx": 5, "avg(id)": 2.5}


def test_observe_unnamed_and_literal_metrics(df):
    o = Observation("m2")
    df.observe(o, F.lit(1).alias("one"), F.count("id")).collect()
    assert o.get == {"one": 1, "count(id)": 4}
    o = Observation("m3")
    df.observe(o, F.collect_list("s").alias("l"), F.max("s")).collect()
    assert o.get == {"l": ["a", "b", "a", "c"], "max(s)": "c"}


@pytest.mark.parametrize("metric,cls", [
    (F.col("id"), "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE"),
    (F.count_distinct("id"), "INVALID_OBSERVED_METRICS.AGGREGATE_EXPRESSION_WITH_DISTINCT_UNSUPPORTED"),
])
def test_observe_invalid_metrics(df, metric, cls):
    with pytest.raises(AnalysisException) as e:
        df.observe(Observation(), metric).collect()
    assert e.value.getCondition() == cls


def test_observe_stream_progress(spark):
    df = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 10).option("numPartitions", 2).load()
          .observe("per_batch", F.count(F.lit(1)).alias("rows"), F.max("value").alias("mx")))
    q = df.writeStream.format("memory").queryName("observed_q").trigger(availableNow=True).start()
    try:
        q.processAllAvailable()
        for _ in range(50):
            if q.lastProgress is not None and q.lastProgress.batchId >= 1:
                break
            q.processAllAvailable()
        assert q.exception() is None
    finally:
        q.stop()
    seen = [p for p in q.recentProgress if p.numInputRows > 0]
    assert seen
    for p in seen:
        m = p.observedMetrics["per_batch"]
        # Each micro-batch's own rows: 10 rows, values batchId*10 .. batchId*10+9.
        assert m.rows == 10
        assert m.mx == p.batchId * 10 + 9


def test_stat_corr_cov(df):
    # Spark fills NULLs with 0.0 for these (StatFunctions.collectStatisticalData).
    assert df.stat.corr("id", "v") == pytest.approx(0.5045616758385946, rel=1e-12)
    assert df.stat.cov("id", "v") == pytest.approx(2.0833333333333335, rel=1e-12)
    with pytest.raises(IllegalArgumentException, match="correlation calculation for columns with dataType string"):
        df.stat.corr("id", "s")


def test_stat_approx_quantile(spark, df):
    assert df.stat.approxQuantile("id", [0.0, 0.5, 1.0], 0.0) == [1.0, 2.0, 4.0]
    assert df.stat.approxQuantile(["id", "v"], [0.25, 0.75], 0.1) == [[1.0, 3.0], [2.0, 7.5]]
    assert spark.range(1000).stat.approxQuantile("id", [0.1, 0.33, 0.999], 0.0) == [99.0, 329.0, 998.0]
    with pytest.raises(IllegalArgumentException, match="Quantile calculation for column s with data type StringType"):
        df.stat.approxQuantile("s", [0.5], 0.0)


def test_unpivot(spark, df):
    rows = df.unpivot("id", ["v"], "var", "val").collect()
    assert [tuple(r) for r in rows] == [(1, "v", 2.0), (2, "v", 4.0), (3, "v", None), (4, "v", 7.5)]
    wide = spark.createDataFrame([(1, 2.0, "a", 5), (2, 4.0, "b", 6)], "id long, v double, s string, w int")
    melted = wide.drop("s").melt(["id"], None, "var", "val")  # values: every non-id column
    assert melted.schema.simpleString() == "struct<id:bigint,var:string,val:double>"
    assert [tuple(r) for r in melted.collect()] == [(1, "v", 2.0), (1, "w", 5.0), (2, "v", 4.0), (2, "w", 6.0)]
    with pytest.raises(AnalysisException) as e:
        wide.unpivot(["id", "v", "s", "w"], [], "var", "val").collect()
    assert e.value.getCondition() == "UNPIVOT_REQUIRES_VALUE_COLUMNS"


def test_na_replace(df):
    # Spark: string old values replace in string columns only; numbers in numeric columns.
    assert [r.s for r in df.na.replace("a", "z").collect()] == ["z", "b", "z", "c"]
    assert [r.id for r in df.na.replace([1, 2], [10, 20], "id").collect()] == [10, 20, 3, 4]
    rows = df.na.replace(["a", "b"], ["x", None], "s").collect()
    assert [r.s for r in rows] == ["x", None, "x", "c"]
    assert [r.v for r in rows] == [2.0, 4.0, None, 7.5]
