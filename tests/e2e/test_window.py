"""Window functions from stock PySpark (DataFrame API and SQL). The expected values, column
names and error classes were taken from Apache Spark 4.2's own Connect server running this file's
queries."""
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import Row, Window
from pyspark.sql import functions as F

ROWS = [(1, "a", 10), (2, "a", 20), (3, "a", 20), (4, "b", None), (5, "b", 5), (6, "b", 7), (7, "c", 1)]


@pytest.fixture(scope="module")
def df(spark):
    d = spark.createDataFrame(ROWS, "id int, k string, v int")
    d.createOrReplaceTempView("win_t")
    return d


def by_id(d):
    return [tuple(r) for r in d.orderBy("id").collect()]


def test_ranking(df):
    w = Window.partitionBy("k").orderBy("v")
    out = df.select("id", F.row_number().over(w), F.rank().over(w), F.dense_rank().over(w),
                    F.percent_rank().over(w), F.cume_dist().over(w), F.ntile(2).over(Window.orderBy("id")))
    spec = "(PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    assert out.columns == [
        "id", "row_number() OVER " + spec, "RANK() OVER " + spec, "DENSE_RANK() OVER " + spec,
        "PERCENT_RANK() OVER " + spec,
        "cume_dist() OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        "ntile(2) OVER (ORDER BY id ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"]
    assert [(f.dataType.simpleString(), f.nullable) for f in out.schema.fields[1:]] == [
        ("int", False), ("int", False), ("int", False), ("double", False), ("double", False), ("int", False)]
    assert by_id(out) == [
        (1, 1, 1, 1, 0.0, 0.3333333333333333, 1), (2, 2, 2, 2, 0.5, 1.0, 1), (3, 3, 2, 2, 0.5, 1.0, 1),
        (4, 1, 1, 1, 0.0, 0.3333333333333333, 1), (5, 2, 2, 2, 0.5, 0.6666666666666666, 2),
        (6, 3, 3, 3, 1.0, 1.0, 2), (7, 1, 1, 1, 0.0, 1.0, 2)]


def test_offsets(df):
    w = Window.partitionBy("k").orderBy("v")
    out = df.select("id", F.lag("v").over(Window.orderBy("id")), F.lead("v", 2, -1).over(Window.orderBy("id")),
                    F.nth_value("v", 2).over(w), F.nth_value("v", 1, True).over(Window.partitionBy("k").orderBy("id")))
    assert out.columns[1:3] == [
        "lag(v, 1, NULL) OVER (ORDER BY id ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)",
        "lead(v, 2, -1) OVER (ORDER BY id ASC NULLS FIRST ROWS BETWEEN 2 FOLLOWING AND 2 FOLLOWING)"]
    assert out.columns[4].startswith("nth_value(v, 1) ignore nulls OVER (PARTITION BY k ORDER BY id ASC NULLS FIRST RANGE")
    assert by_id(out) == [
        (1, None, 20, None, 10), (2, 10, None, 20, 10), (3, 20, 5, 20, 10), (4, 20, 7, None, None),
        (5, None, 1, 5, 5), (6, 5, -1, 5, 5), (7, 7, -1, None, 1)]


def test_aggregates_and_frames(df):
    out = df.select(
        "id", F.sum("v").over(Window.orderBy("id")), F.avg("v").over(Window.partitionBy("k")),
        F.count("*").over(Window.orderBy("v").rowsBetween(-1, 1)),
        F.max("v").over(Window.orderBy("v").rangeBetween(-5, 0)),
        F.min("v").over(Window.orderBy("id").rowsBetween(Window.unboundedPreceding, Window.currentRow)))
    assert out.columns[1:4] == [
        "sum(v) OVER (ORDER BY id ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        "avg(v) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
        "count(1) OVER (ORDER BY v ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND 1 FOLLOWING)"]
    assert by_id(out) == [
        (1, 10, 16.666666666666668, 3, 10, 10), (2, 30, 16.666666666666668, 3, 20, 10),
        (3, 50, 16.666666666666668, 2, 20, 10), (4, 50, 6.0, 2, None, 10), (5, 55, 6.0, 3, 5, 5),
        (6, 62, 6.0, 3, 7, 5), (7, 63, 1.0, 3, 1, 1)]


def test_first_last_collect(df):
    w = Window.partitionBy("k").orderBy("v")
    whole = Window.partitionBy("k").orderBy("id").rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    out = df.select("id", F.first("v").over(w), F.last("v", True).over(whole), F.first_value("v").over(w),
                    F.collect_list("v").over(w))
    assert by_id(out) == [
        (1, 10, 20, 10, [10]), (2, 10, 20, 10, [10, 20, 20]), (3, 10, 20, 10, [10, 20, 20]),
        (4, None, 7, None, []), (5, None, 7, None, [5]), (6, None, 7, None, [5, 7]), (7, 1, 1, 1, [1])]


def test_with_column_and_filter(df):
    w = Window.partitionBy("k").orderBy(F.desc("id"))
    assert [r.rn for r in df.withColumn("rn", F.row_number().over(w)).orderBy("id").collect()] == [3, 2, 1, 3, 2, 1, 1]
    top = df.withColumn("rn", F.row_number().over(Window.partitionBy("k").orderBy("id"))).filter("rn = 1")
    assert by_id(top) == [(1, "a", 10, 1), (4, "b", None, 1), (7, "c", 1, 1)]


def test_sql(df, spark):
    out = spark.sql(
        "SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING), "
        "lag(v, 1) IGNORE NULLS OVER (ORDER BY id), first_value(v) IGNORE NULLS OVER (PARTITION BY k ORDER BY id), "
        "avg(v) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM win_t")
    assert out.columns[1] == "sum(v) OVER (ORDER BY id ASC NULLS FIRST ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING)"
    assert out.columns[3] == "first(v) OVER (PARTITION BY k ORDER BY id ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
    assert by_id(out) == [
        (1, 50, None, 10, 7.333333333333333), (2, 50, 10, 10, 20.0), (3, 45, 20, 10, 20.0),
        (4, 32, 20, None, None), (5, 13, 20, 5, 5.75), (6, 13, 5, 5, 7.333333333333333), (7, 8, 7, 1, 3.0)]


def test_sql_grouped_named_qualify(df, spark):
    out = spark.sql("SELECT k AS id, sum(v), sum(sum(v)) OVER (), rank() OVER (ORDER BY sum(v) DESC) FROM win_t GROUP BY k")
    assert out.columns[2:] == [
        "sum(sum(v)) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
        "RANK() OVER (ORDER BY sum(v) DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"]
    assert by_id(out) == [("a", 50, 63, 1), ("b", 12, 63, 2), ("c", 1, 63, 3)]
    named = spark.sql("SELECT id, rank() OVER w AS r, sum(v) OVER w AS s FROM win_t WINDOW w AS (PARTITION BY k ORDER BY id)")
    assert by_id(named) == [(1, 1, 10), (2, 2, 30), (3, 3, 50), (4, 1, None), (5, 2, 5), (6, 3, 12), (7, 1, 1)]
    q = spark.sql("SELECT id, k FROM win_t QUALIFY row_number() OVER (PARTITION BY k ORDER BY id) = 1")
    assert by_id(q) == [(1, "a"), (4, "b"), (7, "c")]
    nested = spark.sql("SELECT DISTINCT sum(row_number() OVER (ORDER BY id)) OVER () AS s, "
                       "sum(v) FILTER (WHERE v > 5) OVER () AS f FROM win_t")
    assert nested.collect() == [Row(s=28, f=57)]


def test_date_timestamp_decimal_ranges(spark):
    out = spark.sql(
        "SELECT id, count(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL 2 DAYS PRECEDING AND CURRENT ROW) c, "
        "sum(id) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) s, "
        "avg(id) OVER (ORDER BY dec RANGE BETWEEN 1.5 PRECEDING AND 0.5 FOLLOWING) a FROM ("
        "SELECT id, date_add(DATE'2024-01-01', CAST(id AS INT)) d, timestamp_seconds(id*1800) ts, "
        "CAST(id AS DECIMAL(5,1)) dec FROM range(6))")
    assert by_id(out) == [(0, 1, 0, 0.0), (1, 2, 1, 0.5), (2, 3, 3, 1.5), (3, 3, 6, 2.5), (4, 3, 9, 3.5), (5, 3, 12, 4.5)]


@pytest.mark.parametrize("query,error_class", [
    ("SELECT row_number() FROM win_t", "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE"),
    ("SELECT id FROM win_t WHERE row_number() OVER (ORDER BY id) > 1", "WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE"),
    ("SELECT id, rank() OVER (PARTITION BY k) FROM win_t", "WINDOW_FUNCTION_FRAME_NOT_ORDERED"),
    ("SELECT id, sum(DISTINCT v) OVER (PARTITION BY k) FROM win_t", "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED"),
    ("SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) FROM win_t",
     "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON"),
    ("SELECT id, sum(v) OVER (ORDER BY id, k RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM win_t",
     "DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER"),
    ("SELECT id, k FROM win_t ORDER BY rank() OVER (ORDER BY v DESC), id", "UNSUPPORTED_EXPR_FOR_OPERATOR"),
    ("SELECT abs(v) OVER (ORDER BY id) FROM win_t", "UNSUPPORTED_EXPR_FOR_WINDOW"),
    ("SELECT ntile(0) OVER (ORDER BY id) FROM win_t", "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE"),
])
def test_errors(df, spark, query, error_class):
    with pytest.raises(AnalysisException) as e:
        spark.sql(query).collect()
    assert e.value.getCondition() == error_class


def test_streaming_refused(spark):
    stream = spark.readStream.format("rate").load().select(F.row_number().over(Window.orderBy("value")).alias("id"))
    with pytest.raises(AnalysisException) as e:
        q = stream.writeStream.format("memory").queryName("win_stream").start()
        q.stop()
    assert e.value.getCondition() == "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"
