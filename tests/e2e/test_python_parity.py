"""Python functions where PySpark's own parity tests (pyspark/sql/tests/pandas/test_pandas_map.py,
test_pandas_udf_grouped_agg.py) compare Weir with Apache Spark: row order, NOT NULL result
fields, barrier mode."""
import pandas as pd
from pyspark.sql import functions as F
from pyspark.sql.functions import pandas_udf


def test_grouped_agg_udf_keeps_the_builtin_aggregates_group_order(spark):
    """test_retain_group_columns: groupby(id).agg(pandas_udf) and groupby(id).agg(sum) compared
    unsorted: both give their groups in the order of their first rows read partition by
    partition, whatever order the partitions' batches arrived in."""
    df = (spark.range(10).toDF("id").withColumn("vs", F.array([F.lit(i) for i in range(20, 30)]))
          .withColumn("v", F.explode("vs")).drop("vs").withColumn("w", F.lit(1.0)))

    @pandas_udf("double")
    def psum(v: pd.Series) -> float:
        return float(v.sum())

    for _ in range(4):
        builtin = df.groupby(df.id).agg(F.sum(df.v).alias("s")).toPandas()
        python = df.groupby(df.id).agg(psum(df.v).alias("s")).toPandas()
        assert list(python["id"]) == list(builtin["id"])
        assert list(python["s"]) == [float(x) for x in builtin["s"]]
        assert sorted(builtin["id"]) == list(range(10))


def test_map_after_repartition_one_keeps_partition_order(spark):
    """test_dataframes_with_more_columns: repartition(1) reads its input partitions in order,
    as Spark's shuffle read does, so mapInPandas sees 0..9 (not the partition that arrived
    first)."""
    df = spark.range(10, numPartitions=3).select("id", F.col("id").alias("value"), F.col("id").alias("extra"))

    def f(it):
        for pdf in it:
            yield pdf[["id", "value"]]

    for _ in range(4):
        assert [r.id for r in df.repartition(1).mapInPandas(f, "id long, value long").collect()] == list(range(10))
        assert [r.id for r in df.repartition(1).collect()] == list(range(10))


def test_null_in_a_not_null_result_field_fails_the_query(spark):
    """test_violate_not_null: a result schema's NOT NULL field (top level or nested) that the
    function fills with None fails the query, as Spark's task fails reading the null ("Value at
    index is null"); mapInPandas, mapInArrow and applyInPandas alike."""
    import pyarrow as pa

    def pandas_func(it):
        for _ in it:
            yield pd.DataFrame({"a": [1, None]})

    cases = [
        lambda df: df.mapInPandas(pandas_func, "a long not null"),
        lambda df: df.mapInArrow(lambda it: (pa.RecordBatch.from_pydict({"a": [1, None]}) for _ in it), "a long not null"),
        lambda df: df.groupBy("id").applyInPandas(lambda pdf: pd.DataFrame({"a": [1, None]}), "a long not null"),
        lambda df: df.mapInPandas(lambda it: (pd.DataFrame({"s": [{"x": 1}, {"x": None}]}) for _ in it),
                                  "s struct<x: long not null>"),
    ]
    for make in cases:
        df = make(spark.range(1))
        try:
            df.collect()
        except Exception as e:  # noqa: BLE001
            assert "is null" in str(e) and "NOT NULL" in str(e), str(e)
        else:
            raise AssertionError("a null in a NOT NULL field was returned")
    # nulls where the schema allows them still come back
    assert spark.range(1).mapInPandas(pandas_func, "a long").collect()[1].a is None


def test_map_result_with_one_struct_column(spark):
    """A map function's result with a single struct column is that column (not its fields)."""
    rows = spark.range(1).mapInPandas(lambda it: (pd.DataFrame({"s": [{"x": 1}, {"x": None}]}) for _ in it),
                                      "s struct<x: long>").collect()
    assert [r.s.x for r in rows] == [1, None]


def test_map_in_pandas_barrier_mode(spark):
    """test_map_in_pandas_with_barrier_mode: barrier=True gives the function a
    BarrierTaskContext, barrier=False a plain TaskContext; barrier() and allGather() sync every
    partition's task (partitions without rows run one too), allGather answers in partition
    order."""
    df = spark.range(0, 10, 1, 3)

    def plain(it):
        from pyspark import BarrierTaskContext, TaskContext

        tc = TaskContext.get()
        assert tc is not None and not isinstance(tc, BarrierTaskContext)
        yield from it

    def synced(it):
        from pyspark import BarrierTaskContext

        tc = BarrierTaskContext.get()
        tc.barrier()
        everyone = tc.allGather(str(tc.partitionId()))
        tc.barrier()
        n = sum(len(pdf) for pdf in it)
        yield pd.DataFrame({"part": [tc.partitionId()], "n": [n], "all": [",".join(everyone)],
                            "tasks": [len(tc.getTaskInfos())]})

    assert sorted(r.id for r in df.mapInPandas(plain, "id long", False).collect()) == list(range(10))
    rows = sorted(df.mapInPandas(synced, "part long, n long, all string, tasks long", True).collect())
    assert [tuple(r) for r in rows] == [(0, 3, "0,1,2", 3), (1, 3, "0,1,2", 3), (2, 4, "0,1,2", 3)]
    # four partitions, two of them empty: every partition's task still takes part
    empty = spark.range(0, 2, 1, 1).repartition(4, "id")
    rows = empty.mapInPandas(synced, "part long, n long, all string, tasks long", True).collect()
    assert sorted(r.part for r in rows) == [0, 1, 2, 3] and {r.all for r in rows} == {"0,1,2,3"}
    assert sum(r.n for r in rows) == 2


def test_encode_decode_and_assert_true_around_python_functions(spark):
    """test_large_variable_types and test_udf_daytime_interval use encode() and assert_true()
    next to Python functions: encode/decode over Spark 4's charsets, assert_true raising
    USER_RAISED_EXCEPTION, raise_error."""
    import datetime

    from pyspark.errors import SparkRuntimeException
    from pyspark.sql.types import DayTimeIntervalType

    df = (spark.range(10, numPartitions=3).select(F.col("id").cast("string").alias("str"))
          .withColumn("bin", F.encode(F.col("str"), "utf-8")))
    assert df.mapInPandas(lambda it: it, "str string, bin binary").collect() == df.collect()
    assert df.select(F.decode("bin", "UTF-8").alias("s")).collect() == df.select(F.col("str").alias("s")).collect()

    @F.udf(DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.SECOND))
    def noop(x):
        return x

    td = spark.createDataFrame([(datetime.timedelta(microseconds=123),)], "td interval day to second").select(noop("td").alias("td"))
    assert td.select(F.assert_true(F.lit("INTERVAL '0 00:00:00.000123' DAY TO SECOND") == td.td.cast("string"))).collect()[0][0] is None
    try:
        td.select(F.assert_true(td.td.cast("string") == F.lit("x"), "not x")).collect()
    except SparkRuntimeException as e:
        assert e.getCondition() == "USER_RAISED_EXCEPTION" and "not x" in str(e)
    else:
        raise AssertionError("assert_true of a false condition returned")
    try:
        spark.range(1).select(F.raise_error(F.lit("boom"))).collect()
    except SparkRuntimeException as e:
        assert e.getCondition() == "USER_RAISED_EXCEPTION" and "boom" in str(e)
    else:
        raise AssertionError("raise_error returned")
