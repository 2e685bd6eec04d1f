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


@pytest.fixture
def mixed(spark):
    return spark.createDataFrame([(1, "a", 2.5, None), (2, "b", None, "x"), (3, "a", 7.0, "y"), (None, "c", 1.0, "10")],
                                 "i int, s string, d double, t string")


def test_describe_and_summary(spark, mixed):
    # Every value below is what Spark 4.2's own Connect server returns for the same calls.
    d = mixed.describe()
    assert d.schema.simpleString() == "struct<summary:string,i:string,s:string,d:string,t:string>"
    assert [tuple(r) for r in d.collect()] == [
        ("count", "3", "4", "3", "3"), ("mean", "2.0", None, "3.5", "10.0"),
        ("stddev", "1.0", None, "3.122498999199199", None), ("min", "1", "a", "1.0", "10"), ("max", "3", "c", "7.0", "y")]
    assert [tuple(r) for r in mixed.describe("i").collect()] == [
        ("count", "3"), ("mean", "2.0"), ("stddev", "1.0"), ("min", "1"), ("max", "3")]
    s = mixed.summary()
    assert [r.summary for r in s.collect()] == ["count", "mean", "stddev", "min", "25%", "50%", "75%", "max"]
    assert [(r.i, r.d, r.t) for r in s.collect()][4:7] == [("1", "1.0", "10.0"), ("2", "2.5", "10.0"), ("3", "7.0", "10.0")]
    rows = mixed.summary("count", "min", "33%", "count_distinct", "approx_count_distinct").collect()
    assert [tuple(r) for r in rows] == [
        ("count", "3", "4", "3", "3"), ("min", "1", "a", "1.0", "10"), ("33%", "1", None, "1.0", "10.0"),
        ("count_distinct", "3", "3", "3", "3"), ("approx_count_distinct", "3", "3", "3", "3")]
    # No numeric or string column: the statistics' names only.
    assert [tuple(r) for r in spark.createDataFrame([(True,)], "b boolean").describe().collect()] == [
        ("count",), ("mean",), ("stddev",), ("min",), ("max",)]
    assert [tuple(r) for r in spark.range(0).describe().collect()] == [
        ("count", "0"), ("mean", None), ("stddev", None), ("min", None), ("max", None)]
    for bad in ["foo", "1x%"]:
        with pytest.raises(IllegalArgumentException) as e:
            mixed.summary(bad).collect()
        assert e.value.getCondition() == "UNRECOGNIZED_STATISTIC"


def test_crosstab_and_pivot_without_values(spark, mixed):
    ct = mixed.stat.crosstab("s", "t")
    assert ct.schema.simpleString() == "struct<s_t:string,10:bigint,null:bigint,x:bigint,y:bigint>"
    assert sorted(tuple(r) for r in ct.collect()) == [("a", 0, 1, 0, 1), ("b", 0, 0, 1, 0), ("c", 1, 0, 0, 0)]
    ct = spark.createDataFrame([(1.0, "a`x"), (1.5, None)], "a double, b string").stat.crosstab("a", "b")
    assert ct.schema.simpleString() == "struct<a_b:string,ax:bigint,null:bigint>"
    df = spark.createDataFrame([(1, "a", 2), (1, "b", 3), (2, "a", 5), (2, None, 7), (3, "c", 1)], "k int, p string, v int")
    p = df.groupBy("k").pivot("p").sum("v")
    assert p.schema.simpleString() == "struct<k:int,null:bigint,a:bigint,b:bigint,c:bigint>"
    assert [tuple(r) for r in p.orderBy("k").collect()] == [
        (1, None, 2, 3, None), (2, 7, 5, None, None), (3, None, None, None, 1)]
    assert df.groupBy("k").pivot("v").count().columns == ["k", "1", "2", "3", "5", "7"]
    spark.conf.set("spark.sql.pivotMaxValues", "2")
    try:
        with pytest.raises(AnalysisException, match="The pivot column p has more than 2 distinct values"):
            df.groupBy("k").pivot("p").sum("v").collect()
    finally:
        spark.conf.unset("spark.sql.pivotMaxValues")
    with pytest.raises(AnalysisException, match="pivot is not supported on a streaming DataFrames"):
        spark.readStream.format("rate").load().groupBy("value").pivot("timestamp").count().schema


def test_freq_items(spark, mixed):
    fi = mixed.stat.freqItems(["s", "t", "i"], 0.3)
    assert fi.schema.simpleString() == "struct<s_freqItems:array<string>,t_freqItems:array<string>,i_freqItems:array<int>>"
    row = fi.collect()[0]
    # Three counters: s's three items all fit; t's and i's fourth distinct item empties them.
    assert sorted(row.s_freqItems) == ["a", "b", "c"] and row.t_freqItems == [] and row.i_freqItems == []
    nulls = spark.createDataFrame([(None, "a"), (None, "a"), (1, None), (None, None)], "i int, s string")
    row = nulls.stat.freqItems(["i", "s"], 0.5).collect()[0]
    assert set(row.i_freqItems) == {None, 1} and set(row.s_freqItems) == {None, "a"}
    from pyspark.sql import Row
    vals = [Row(a=1, b=-2.0) if i % 2 == 0 else Row(a=i, b=i * 1.0) for i in range(100)]
    row = spark.createDataFrame(vals).stat.freqItems(("a", "b"), 0.4).collect()[0]
    assert sorted(row.a_freqItems) == [1, 99] and row.b_freqItems == [-2.0]  # 99: Spark's false positive too
    with pytest.raises(IllegalArgumentException, match=r"Support must be in \[1e-4, 1\], but got 1.0E-5"):
        mixed.stat.freqItems(["s"], 0.00001).collect()


def test_sample_by(spark):
    d = spark.range(100).selectExpr("id % 3 AS k", "id")
    counts = d.stat.sampleBy("k", {0: 0.5, 1: 0.2}, seed=7).groupBy("k").count().orderBy("k").collect()
    assert [tuple(r) for r in counts] == [(0, 17), (1, 4)]  # Spark 4.2's sample: same rand(seed)
    assert d.stat.sampleBy(F.col("k"), {0: 0.5, 1: 0.2}, seed=7).select(F.sum("id")).collect()[0][0] == 1036
    with pytest.raises(IllegalArgumentException, match=r"Fractions must be in \[0, 1\]"):
        d.stat.sampleBy("k", {0: 1.5}, seed=1).collect()


def test_transpose(spark):
    df = spark.createDataFrame([("x", 1, 2.0), ("a", 3, None), (None, 5, 6.5)], "k string, v int, w double")
    t = df.transpose()  # index values sorted, NULL index dropped, values as the common type
    assert t.schema.simpleString() == "struct<key:string,a:double,x:double>"
    assert [tuple(r) for r in t.collect()] == [("v", 3.0, 1.0), ("w", None, 2.0)]
    t = spark.createDataFrame([(1, "p"), (2, "q"), (1, "r")], "id int, s string").transpose()
    assert t.columns == ["key", "1", "1", "2"] and [tuple(r) for r in t.collect()] == [("s", "p", "r", "q")]
    assert spark.range(0).transpose().columns == ["key"]
    assert spark.range(3).transpose().columns == ["key", "0", "1", "2"]
    with pytest.raises(AnalysisException) as e:
        df.transpose(df.v).collect()
    assert e.value.getCondition() == "TRANSPOSE_NO_LEAST_COMMON_TYPE"
    spark.conf.set("spark.sql.transposeMaxValues", "1")
    try:
        with pytest.raises(AnalysisException) as e:
            df.transpose().collect()
        assert e.value.getCondition() == "TRANSPOSE_EXCEED_ROW_LIMIT"
    finally:
        spark.conf.unset("spark.sql.transposeMaxValues")


def test_html_string(spark):
    # The notebook table (_repr_html_ with eager evaluation): Spark 4.2's exact text.
    spark.conf.set("spark.sql.repl.eagerEval.enabled", "true")
    try:
        df = spark.createDataFrame([(1, "a<b>&\"'c", "é€—ü\u00a0x"), (2, "line\nbreak", None), (3, "long" * 10, "z")],
                                   "id int, s string, t string")
        assert df._repr_html_() == (
            "<table border='1'>\n<tr><th>id</th><th>s</th><th>t</th></tr>\n"
            "<tr><td>1</td><td>a&lt;b&gt;&amp;&quot;'c</td><td>&eacute;&euro;&mdash;&uuml;&nbsp;x</td></tr>\n"
            "<tr><td>2</td><td>line\\nbreak</td><td>NULL</td></tr>\n"
            "<tr><td>3</td><td>longlonglonglongl...</td><td>z</td></tr>\n</table>\n")
        spark.conf.set("spark.sql.repl.eagerEval.maxNumRows", "1")
        spark.conf.set("spark.sql.repl.eagerEval.truncate", "5")
        assert df._repr_html_() == (
            "<table border='1'>\n<tr><th>id</th><th>s</th><th>t</th></tr>\n"
            "<tr><td>1</td><td>a&lt;...</td><td>&eacute;&euro;...</td></tr>\n</table>\nonly showing top 1 row\n")
    finally:
        for k in ["spark.sql.repl.eagerEval.enabled", "spark.sql.repl.eagerEval.maxNumRows", "spark.sql.repl.eagerEval.truncate"]:
            spark.conf.unset(k)
