"""df.persist()/cache(): a later DataFrame built the same way reads the cached rows (Spark's
CacheManager), and explain shows it as Spark does (InMemoryTableScan over InMemoryRelation)."""
import io
from contextlib import redirect_stdout

from pyspark.sql import functions as F
from pyspark.sql.functions import udf


def explained(df):
    with io.StringIO() as buf, redirect_stdout(buf):
        df.explain()
        return buf.getvalue()


def test_explain_shows_cached_plan_of_an_equal_dataframe(spark):
    def func(x):
        return x

    df = spark.range(1)
    cached = df.select(udf(func)("id"))
    cached.cache()
    try:
        # A new DataFrame (new plan ids, new UDF object) built the same way matches, as in
        # PySpark's test_udf_cache.
        text = explained(df.select(udf(func)("id")))
        assert text.count("InMemoryTableScan") == 1, text
        assert text.count("InMemoryRelation") == 1, text
        assert "StorageLevel(disk, memory, deserialized, 1 replicas)" in text
        assert df.select(udf(func)("id")).collect()[0][0] == "0"
        assert "InMemoryTableScan" not in explained(df.select(udf(func)("id").alias("other")))
    finally:
        cached.unpersist()
    assert "InMemoryTableScan" not in explained(df.select(udf(func)("id")))


def test_cached_rows_are_read_until_unpersist(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.range(3).write.parquet(path)
    df = spark.read.parquet(path)
    df.cache()
    try:
        assert df.count() == 3  # the first action fills the cache
        spark.range(10).write.mode("append").parquet(path)
        # As in Spark, a cached DataFrame keeps the rows it was filled with.
        assert df.count() == 3
        assert sorted(r.id for r in spark.read.parquet(path).filter("id > 1").collect()) == [2]
    finally:
        df.unpersist()
    assert spark.read.parquet(path).count() == 13


def test_different_functions_or_data_do_not_share_a_cache(spark):
    df = spark.range(3)
    plus1 = df.select(udf(lambda x: x + 1, "long")("id").alias("v"))
    plus1.cache()
    local = spark.createDataFrame([(1,)], "a int")
    local.cache()
    try:
        assert [r.v for r in plus1.collect()] == [1, 2, 3]
        assert [r.v for r in df.select(udf(lambda x: x + 2, "long")("id").alias("v")).collect()] == [2, 3, 4]
        assert local.collect()[0].a == 1
        assert spark.createDataFrame([(2,)], "a int").collect()[0].a == 2
    finally:
        plus1.unpersist()
        local.unpersist()


def test_references_into_a_cached_dataframe_resolve(spark):
    df = spark.range(5)
    doubled = df.select("id", (df.id * 2).alias("x"))
    doubled.cache()
    try:
        rows = doubled.filter(df["id"] > 2).select(doubled["x"]).collect()
        assert [r.x for r in rows] == [6, 8]
        assert "InMemoryTableScan" in explained(doubled.filter(df["id"] > 2))
        assert doubled.storageLevel.useMemory
    finally:
        doubled.unpersist()
    assert not doubled.storageLevel.useMemory
