"""Python UDFs wherever Spark allows them: grouping expressions, aggregate arguments, over
aggregates, sort keys and join conditions, and SQL named arguments (f(a => x)), with the
expectations of PySpark's own UDF tests (pyspark/sql/tests/test_udf.py)."""
import random

import pytest
from pyspark.errors import AnalysisException, PythonException
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql.functions import col, udf
from pyspark.sql.types import BooleanType, IntegerType, StringType


@pytest.fixture(autouse=True, params=["false", "true"], ids=["pickled", "arrow"])
def udf_kind(spark, request):
    """Every test runs with pickled (SQL_BATCHED_UDF) and Arrow-optimized @udf functions."""
    spark.conf.set("spark.sql.execution.pythonUDF.arrow.enabled", request.param)
    yield request.param
    spark.conf.unset("spark.sql.execution.pythonUDF.arrow.enabled")


@pytest.fixture
def kv(spark):
    return spark.createDataFrame([(1, "1"), (2, "2"), (1, "2"), (1, "2")], ["key", "value"])


def test_udf_with_filter_and_distinct(kv, udf_kind):
    is_one = udf(lambda a: a == 1, BooleanType())
    assert is_one.evalType == (101 if udf_kind == "true" else 100)  # SQL_ARROW_BATCHED_UDF / SQL_BATCHED_UDF
    assert kv.select(col("key")).distinct().filter(is_one(col("key"))).collect() == [Row(key=1)]
    below_two = udf(lambda a: a < 2, BooleanType())
    got = kv.select("key", "value").filter(below_two(col("key")) & (kv.value < "2")).collect()
    assert got == [Row(key=1, value="1")]


def test_udf_in_grouping_and_aggregate_arguments(kv):
    my_copy = udf(lambda x: x, IntegerType())
    my_add = udf(lambda a, b: int(a + b), IntegerType())
    my_strlen = udf(lambda x: len(x), IntegerType())
    sel = (
        kv.groupBy(my_copy(col("key")).alias("k"))
        .agg(F.sum(my_strlen(col("value"))).alias("s"))
        .select(my_add(col("k"), col("s")).alias("t"))
    )
    assert sorted(sel.collect()) == [Row(t=3), Row(t=4)]


def test_udf_over_aggregates_and_grouping_columns(kv):
    twice = udf(lambda x: 2 * x, "long")
    tag = udf(lambda k: f"k{k}", StringType())
    got = (
        kv.groupBy("key")
        .agg(twice(F.count("*")).alias("c2"), tag(col("key")).alias("tag"), (twice(F.sum("key")) + 1).alias("s"))
        .orderBy("key")
        .collect()
    )
    assert got == [Row(key=1, c2=6, tag="k1", s=7), Row(key=2, c2=2, tag="k2", s=5)]
    # A global aggregate over a UDF's results, and a UDF over it.
    [row] = kv.select(twice(F.sum(twice(col("key"))))).collect()
    assert row[0] == 20


def test_udf_grouping_in_sql(spark, kv):
    kv.createOrReplaceTempView("kv_places")
    spark.udf.register("plus_one", lambda x: x + 1, "long")
    got = spark.sql(
        "SELECT plus_one(key) AS k, count(*) AS n FROM kv_places GROUP BY plus_one(key) "
        "HAVING plus_one(count(*)) > 1 ORDER BY plus_one(max(key))"
    ).collect()
    assert got == [Row(k=2, n=3), Row(k=3, n=1)]


def test_nondeterministic_udf_in_aggregate(spark):
    rnd = udf(lambda: int(100 * random.random()), "int").asNondeterministic()
    df = spark.range(10)
    with pytest.raises(AnalysisException, match="Non-deterministic") as e:
        df.groupby("id").agg(F.sum(rnd())).collect()
    assert e.value.getCondition() == "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION"
    with pytest.raises(AnalysisException, match="Non-deterministic"):
        df.agg(F.sum(rnd())).collect()


def test_udf_in_sort_keys(spark):
    neg = udf(lambda x: -x, "long")
    assert [r.id for r in spark.range(5).orderBy(neg("id")).collect()] == [4, 3, 2, 1, 0]
    df = spark.createDataFrame([(1, "b"), (2, "a"), (3, "b")], ["n", "s"])
    got = df.orderBy(udf(lambda s: s.upper())("s"), col("n").desc()).collect()
    assert got == [Row(n=2, s="a"), Row(n=3, s="b"), Row(n=1, s="b")]


def test_udf_with_order_by_and_limit(spark):
    my_copy = udf(lambda x: x, IntegerType())
    df = spark.range(10).orderBy("id")
    assert df.select(df.id, my_copy(df.id).alias("copy")).limit(1).collect() == [Row(id=0, copy=0)]


def test_udf_in_join_condition(spark):
    left = spark.createDataFrame([Row(a=1)])
    right = spark.createDataFrame([Row(b=1)])
    f = udf(lambda a, b: a == b, BooleanType())
    df = left.join(right, f("a", "b"))
    spark.conf.set("spark.sql.crossJoin.enabled", "false")
    try:
        with pytest.raises(AnalysisException, match="Detected implicit cartesian product"):
            df.collect()
    finally:
        spark.conf.set("spark.sql.crossJoin.enabled", "true")
    assert df.collect() == [Row(a=1, b=1)]


def test_udf_in_left_outer_join_condition(spark):
    left = spark.createDataFrame([Row(a=1)])
    right = spark.createDataFrame([Row(b=1)])
    f = udf(lambda a: str(a), StringType())
    # The UDF reads the left side only: it is evaluated there.
    df = left.join(right, f("a") == col("b").cast("string"), how="left_outer")
    assert df.collect() == [Row(a=1, b=1)]


def test_udf_and_common_filter_in_join_condition(spark):
    left = spark.createDataFrame([Row(a=1, a1=1, a2=1), Row(a=2, a1=2, a2=2)])
    right = spark.createDataFrame([Row(b=1, b1=1, b2=1), Row(b=1, b1=3, b2=1)])
    f = udf(lambda a, b: a == b, BooleanType())
    df = left.join(right, [f("a", "b"), left.a1 == right.b1])
    assert df.collect() == [Row(a=1, a1=1, a2=1, b=1, b1=1, b2=1)]


def test_udf_as_join_keys(spark):
    left = spark.createDataFrame([Row(a=1, a1=1, a2=1), Row(a=2, a1=2, a2=2)])
    right = spark.createDataFrame([Row(b=1, b1=1, b2=1), Row(b=1, b1=3, b2=1)])
    f = udf(lambda a: a, IntegerType())
    df = left.join(right, [f("a") == f("b"), left.a1 == right.b1])
    assert df.collect() == [Row(a=1, a1=1, a2=1, b=1, b1=1, b2=1)]


def test_udf_not_supported_in_join_condition(spark):
    left = spark.createDataFrame([Row(a=1, a1=1, a2=1), Row(a=2, a1=2, a2=2)])
    right = spark.createDataFrame([Row(b=1, b1=1, b2=1), Row(b=1, b1=3, b2=1)])
    f = udf(lambda a, b: a == b, BooleanType())
    for how, sql in [("full", "FULL OUTER"), ("left", "LEFT OUTER"), ("right", "RIGHT OUTER"),
                     ("leftanti", "LEFT ANTI"), ("leftsemi", "LEFT SEMI")]:
        with pytest.raises(AnalysisException, match=f"Python UDF in the ON clause of a {sql} JOIN") as e:
            left.join(right, [f("a", "b"), left.a1 == right.b1], how).collect()
        assert e.value.getCondition() == "UNSUPPORTED_FEATURE.PYTHON_UDF_IN_ON_CLAUSE"


def test_udf_in_semi_join_condition_one_side(spark):
    left = spark.createDataFrame([Row(a=1), Row(a=2), Row(a=3)])
    right = spark.createDataFrame([Row(b=2), Row(b=4)])
    half = udf(lambda b: b // 2, "long")
    got = left.join(right, left.a == half(right.b), "leftsemi").orderBy("a").collect()
    assert got == [Row(a=1), Row(a=2)]


def test_udf_in_generate(spark):
    f = udf(lambda x: list(range(x)), "array<long>")
    df = spark.range(5)
    assert df.select(F.explode(f(*df))).groupBy().sum().first()[0] == 10
    got = spark.range(3).select("id", F.explode(f(col("id")))).collect()
    assert [tuple(r) for r in got] == [(1, 0), (2, 0), (2, 1)]


def test_sql_named_arguments(spark):
    @udf("int")
    def test_udf(a, b):
        return a + 10 * b

    spark.udf.register("test_udf", test_udf)
    for q in ["SELECT test_udf(id, b => id * 10) FROM range(2)",
              "SELECT test_udf(a => id, b => id * 10) FROM range(2)",
              "SELECT test_udf(b => id * 10, a => id) FROM range(2)"]:
        assert [r[0] for r in spark.sql(q).collect()] == [0, 101], q


def test_sql_named_arguments_kwargs_and_defaults(spark):
    @udf("int")
    def kw(**kwargs):
        return kwargs["a"] + 10 * kwargs["b"]

    @udf("int")
    def dflt(a, b=0):
        return a + 10 * b

    spark.udf.register("kw_udf", kw)
    spark.udf.register("dflt_udf", dflt)
    assert [r[0] for r in spark.sql("SELECT kw_udf(b => id * 10, a => id) FROM range(2)").collect()] == [0, 101]
    assert [r[0] for r in spark.sql("SELECT dflt_udf(a => id) FROM range(2)").collect()] == [0, 1]


def test_sql_named_arguments_negative(spark):
    @udf("int")
    def test_udf(a, b):
        return a + b

    spark.udf.register("test_udf", test_udf)
    with pytest.raises(AnalysisException, match="DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE"):
        spark.sql("SELECT test_udf(a => id, a => id * 10) FROM range(2)").show()
    with pytest.raises(AnalysisException, match="UNEXPECTED_POSITIONAL_ARGUMENT"):
        spark.sql("SELECT test_udf(a => id, id * 10) FROM range(2)").show()
    with pytest.raises(PythonException, match=r"test_udf\(\) got an unexpected keyword argument 'c'"):
        spark.sql("SELECT test_udf(c => 'x') FROM range(2)").show()
    with pytest.raises(PythonException, match=r"test_udf\(\) got multiple values for argument 'a'"):
        spark.sql("SELECT test_udf(id, a => id * 10) FROM range(2)").show()
    with pytest.raises(AnalysisException, match="NAMED_PARAMETERS_NOT_SUPPORTED") as e:
        spark.sql("SELECT abs(x => id) FROM range(2)").collect()
    assert e.value.getSqlState() == "4274K"


def test_scalar_udf_around_grouped_agg_udf(spark, kv):
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    @pandas_udf("double")
    def mean_udf(v: pd.Series) -> float:
        return float(v.mean())

    twice = udf(lambda x: 2 * x, "double")
    as_float = udf(lambda s: float(s), "double")
    got = kv.groupBy("key").agg(twice(mean_udf(as_float(col("value")))).alias("m")).orderBy("key").collect()
    assert got == [Row(key=1, m=10 / 3), Row(key=2, m=4.0)]
