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


def test_a_write_by_the_server_refreshes_cached_dataframes_reading_its_path(spark, tmp_path):
    # Spark 4.2's CacheManager.recacheByPath: after a write to a path, a cached DataFrame whose
    # plan reads it is computed again by its next reader (answers checked on Spark's server).
    path = str(tmp_path / "t")
    spark.range(3).write.parquet(path)
    df = spark.read.parquet(path)
    doubled = spark.read.parquet(path).selectExpr("id * 2 AS x")
    other = spark.range(2)
    df.cache()
    doubled.cache()
    other.cache()
    try:
        assert df.count() == 3  # the first action fills the cache
        assert sorted(r.x for r in doubled.collect()) == [0, 2, 4]
        assert other.count() == 2
        spark.range(10).write.mode("append").parquet(path)
        assert df.count() == 13
        assert "InMemoryTableScan" in explained(df)  # still cached, with the new rows
        assert sorted(r.x for r in doubled.collect())[-3:] == [14, 16, 18]
        spark.range(5).write.mode("overwrite").parquet(path)
        assert df.count() == 5
        assert sorted(r.id for r in spark.read.parquet(path).filter("id > 1").collect()) == [2, 3, 4]
    finally:
        df.unpersist()
        doubled.unpersist()
        other.unpersist()
    assert spark.read.parquet(path).count() == 5


def test_files_added_outside_are_not_seen_until_unpersist(spark, tmp_path):
    import glob
    import shutil
    path = str(tmp_path / "u")
    spark.range(3).coalesce(1).write.parquet(path)
    df = spark.read.parquet(path)
    df.cache()
    try:
        assert df.count() == 3
        (part,) = glob.glob(path + "/part-*.parquet")
        shutil.copy(part, path + "/part-99999-extra.parquet")
        # As in Spark, the cached rows stay, for a new DataFrame reading the path too.
        assert df.count() == 3
        assert spark.read.parquet(path).count() == 3
    finally:
        df.unpersist()
    assert spark.read.parquet(path).count() == 6


def test_table_writes_refresh_cached_dataframes_reading_the_table(spark):
    spark.sql("DROP TABLE IF EXISTS persist_refresh_t")
    spark.range(3).write.saveAsTable("persist_refresh_t")
    t = spark.table("persist_refresh_t")
    t.cache()
    try:
        assert t.count() == 3
        spark.range(2).write.insertInto("persist_refresh_t")
        assert t.count() == 5
        spark.sql("INSERT INTO persist_refresh_t VALUES (100)")
        assert t.count() == 6
        spark.range(4).write.mode("append").saveAsTable("persist_refresh_t")
        assert t.count() == 10
    finally:
        t.unpersist()
        spark.sql("DROP TABLE IF EXISTS persist_refresh_t")


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


def test_many_cached_dataframes_past_the_budget_keep_their_answers(spark):
    # Each DataFrame holds 80 KB; the budget holds one: the others are dropped (memory only,
    # recomputed when read) or spilled (MEMORY_AND_DISK, read back from disk).
    from pyspark import StorageLevel

    spark.conf.set("spark.weir.storage.memoryBudgetBytes", "100000")
    dfs = []
    try:
        for i in range(6):
            df = spark.range(i, i + 10000)
            df.persist(StorageLevel.MEMORY_ONLY if i % 2 else StorageLevel.MEMORY_AND_DISK)
            dfs.append(df)
            assert df.count() == 10000
        for i, df in enumerate(dfs):
            assert df.agg(F.min("id"), F.max("id")).collect()[0] == (i, i + 9999)
            assert "InMemoryTableScan" in explained(df)
    finally:
        for df in dfs:
            df.unpersist()
        spark.conf.unset("spark.weir.storage.memoryBudgetBytes")


def test_checkpoint_does_not_read_its_source_again(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.range(3).write.parquet(path)
    eager = spark.read.parquet(path).checkpoint()
    local = spark.read.parquet(path).localCheckpoint()
    lazy = spark.read.parquet(path).localCheckpoint(eager=False)
    assert lazy.count() == 3  # the first action computes a lazy checkpoint
    spark.range(10, 12).write.mode("append").parquet(path)
    for df in (eager, local, lazy):
        assert sorted(r.id for r in df.collect()) == [0, 1, 2]
        assert sorted(r.id for r in df.filter("id > 0").collect()) == [1, 2]
    assert spark.read.parquet(path).count() == 5
    assert "Scan ExistingRDD" in explained(eager)


def test_checkpoint_with_storage_level_and_release(spark):
    from pyspark import StorageLevel

    df = spark.range(5).selectExpr("id", "id * 2 AS x").localCheckpoint(storageLevel=StorageLevel.DISK_ONLY)
    assert [r.x for r in df.filter("id >= 3").collect()] == [6, 8]
    joined = df.join(spark.range(2), "id")
    assert sorted(r.x for r in joined.collect()) == [0, 2]
    del df, joined  # the client releases the server's DataFrame (RemoveCachedRemoteRelationCommand)


def test_checkpoint_of_a_stream_is_refused(spark):
    import pytest
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as e:
        spark.readStream.format("rate").load().localCheckpoint()
    assert "writeStream.start()" in str(e.value)
