"""approx_top_k through the DataFrame API (pyspark 4.2 has no wrapper: call_function sends it by
name, as the wrappers do), with the answers Apache Spark 4.2's own Connect server gives for the
same DataFrames (compared side by side once; SQL-level cases are in
sql/expr/agg_approx_top_k_test.go)."""
import pytest
from pyspark.errors import SparkRuntimeException
from pyspark.sql import functions as F


def _pairs(rows):
    return [(r.item, r["count"]) for r in rows]


def test_approx_top_k_matches_spark(spark):
    df = spark.range(0, 1000, 1, 1).select((F.col("id") % 50).alias("v"), (F.col("id") % 3).alias("g"))
    r = df.select(F.call_function("approx_top_k", "v", F.lit(6)).alias("t"))
    assert r.columns == ["t"]
    # Equal counts come in the order of Spark's sketch slots.
    assert _pairs(r.collect()[0].t) == [(0, 20), (3, 20), (27, 20), (31, 20), (18, 20), (28, 20)]
    per = df.groupBy("g").agg(F.call_function("approx_top_k", F.col("v").cast("string"), F.lit(3)).alias("t")).orderBy("g")
    assert [(x.g, _pairs(x.t)) for x in per.collect()] == [
        (0, [("9", 7), ("25", 7), ("15", 7)]), (1, [("17", 7), ("25", 7), ("10", 7)]),
        (2, [("9", 7), ("17", 7), ("15", 7)])]
    one = spark.range(1).select(F.call_function("approx_top_k", "id"))
    assert one.columns == ["approx_top_k(id, 5, 10000)"]
    assert one.schema.simpleString() == \
        "struct<approx_top_k(id, 5, 10000):array<struct<item:bigint,count:bigint>>>"
    with pytest.raises(SparkRuntimeException) as e:
        spark.range(3).select(F.call_function("approx_top_k", "id", F.lit(5), F.lit(3))).collect()
    assert e.value.getErrorClass() == "APPROX_TOP_K_MAX_ITEMS_TRACKED_LESS_THAN_K"
