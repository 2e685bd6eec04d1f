"""Issue 17's typed kernels through the DataFrame API: casts of integer columns to DOUBLE fused
with a constant comparison or + - * % pmod, double remainders, integers cast to strings.
Expected values are Apache Spark 4.2's Connect server's answers to the same DataFrames."""
import math

from pyspark.sql import functions as F


def _ids(spark):
    # Negative and positive ids, a NULL every seventh row, and BIGINT extremes that round in a
    # double.
    base = spark.range(-20, 21).select(F.when(F.col("id") % 7 != 0, F.col("id")).alias("id"))
    ext = spark.createDataFrame([(9223372036854775807,), (-9223372036854775808,), (9007199254740993,)], "id long")
    return base.unionByName(ext)


def test_cast_to_double_compared_with_constants(spark):
    d = F.col("id").cast("double")
    df = _ids(spark)
    got = df.agg(
        F.count(F.when(d > 5.0, 1)).alias("gt"),
        F.count(F.when(d <= -3.5, 1)).alias("le"),
        F.count(F.when(F.lit(2.0) < d, 1)).alias("const_left"),
        F.count(F.when(d == 9007199254740992.0, 1)).alias("rounded_eq"),
        F.count(F.when(d < F.lit(float("nan")), 1)).alias("below_nan"),
        F.count(F.when(d >= F.lit(float("nan")), 1)).alias("at_least_nan"),
    ).collect()[0]
    assert got.asDict() == {"gt": 15, "le": 16, "const_left": 18, "rounded_eq": 1, "below_nan": 39, "at_least_nan": 0}


def test_cast_to_double_arithmetic_with_constants(spark):
    d = F.col("id").cast("double")
    rows = _ids(spark).filter(F.col("id").between(-20, 20)).select(
        "id", (d * 0.95).alias("m"), (10.0 - d).alias("s"), (d % 3.0).alias("r"),
        F.expr("pmod(CAST(id AS DOUBLE), -4.0)").alias("p")).orderBy("id").collect()
    assert len(rows) == 36
    for r in rows:
        assert r.m == r.id * 0.95
        assert r.s == 10.0 - r.id
        assert r.r == math.fmod(r.id, 3.0) and math.copysign(1, r.r) == math.copysign(1, r.id)
    assert [r.p for r in rows if r.id in (-6, -5, 5, 6)] == [-2.0, -1.0, 1.0, 2.0]
    neg_zero = [r.r for r in rows if r.id == -6][0]
    assert neg_zero == 0.0 and math.copysign(1, neg_zero) == -1


def test_double_remainder_filter_and_cast_to_string(spark):
    df = spark.range(0, 3000)
    got = df.filter(F.col("id").cast("double") % 3.0 == 0.0).count()
    assert got == 1000
    texts = _ids(spark).select(F.col("id").cast("string").alias("t")).collect()
    assert sorted((r.t for r in texts if r.t is not None), key=len)[-3:] == [
        "9007199254740993", "9223372036854775807", "-9223372036854775808"]
    assert sum(1 for r in texts if r.t is None) == 5
    assert spark.range(0, 300).filter(F.expr("CAST(id % 3 AS STRING) = '0'")).count() == 100
