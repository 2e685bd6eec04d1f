"""Generators (explode & friends, json_tuple, LATERAL VIEW) and lambdas from stock PySpark: exact rows."""
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import Row
from pyspark.sql import functions as F


@pytest.fixture(scope="module")
def df(spark):
    return spark.createDataFrame(
        [
            (1, [10, 20], {"a": 1}, '{"a": 1, "b": "x", "c": [1, 2]}', [Row(x=1, y="p"), Row(x=2, y="q")]),
            (2, [], {}, "not json", []),
            (3, None, None, None, None),
        ],
        "id int, arr array<int>, m map<string,int>, js string, ss array<struct<x:int,y:string>>",
    )


def rows(frame):
    return [tuple(r) for r in frame.collect()]


def test_explode_array_and_map(df):
    out = df.select("id", F.explode("arr"))
    assert out.columns == ["id", "col"]
    assert rows(out) == [(1, 10), (1, 20)]
    out = df.select("id", F.explode("m"))
    assert out.columns == ["id", "key", "value"]
    assert rows(out) == [(1, "a", 1)]
    assert rows(df.select("id", F.explode("arr").alias("v")).where("v > 10")) == [(1, 20)]


def test_explode_outer_and_posexplode(df):
    assert rows(df.select("id", F.explode_outer("arr"))) == [(1, 10), (1, 20), (2, None), (3, None)]
    out = df.select("id", F.posexplode("arr").alias("p", "v"))
    assert out.columns == ["id", "p", "v"]
    assert rows(out) == [(1, 0, 10), (1, 1, 20)]
    assert rows(df.select("id", F.posexplode_outer("m"))) == [(1, 0, "a", 1), (2, None, None, None), (3, None, None, None)]


def test_inline_stack_and_with_column(df, spark):
    out = df.select("id", F.inline("ss"))
    assert out.columns == ["id", "x", "y"]
    assert rows(out) == [(1, 1, "p"), (1, 2, "q")]
    assert rows(df.select("id", F.inline_outer("ss"))) == [(1, 1, "p"), (1, 2, "q"), (2, None, None), (3, None, None)]
    out = spark.range(1).select(F.stack(F.lit(2), F.lit("a"), F.lit(1), F.lit("b"), F.lit(2)))
    assert out.columns == ["col0", "col1"]
    assert rows(out) == [("a", 1), ("b", 2)]
    out = df.withColumn("e", F.explode("arr")).select("id", "e")
    assert rows(out) == [(1, 10), (1, 20)]


def test_json_tuple(df):
    out = df.select("id", F.json_tuple("js", "a", "b", "c", "missing"))
    assert out.columns == ["id", "c0", "c1", "c2", "c3"]
    assert rows(out) == [(1, "1", "x", "[1,2]", None), (2, None, None, None, None), (3, None, None, None, None)]
    assert rows(df.selectExpr("json_tuple(js, 'b', 'a') AS (b, a)").where("b IS NOT NULL")) == [("x", "1")]


def test_select_expr_and_sql_lateral_view(df, spark):
    assert rows(df.selectExpr("id", "explode(arr) AS v")) == [(1, 10), (1, 20)]
    df.createOrReplaceTempView("gen_t")
    got = spark.sql("SELECT id, v FROM gen_t LATERAL VIEW explode(arr) t AS v ORDER BY v DESC").collect()
    assert [tuple(r) for r in got] == [(1, 20), (1, 10)]
    got = spark.sql("SELECT id, t.v FROM gen_t LATERAL VIEW OUTER explode(arr) t AS v ORDER BY id, v").collect()
    assert [tuple(r) for r in got] == [(1, 10), (1, 20), (2, None), (3, None)]
    got = spark.sql("SELECT id, j.c0, j.c1 FROM gen_t LATERAL VIEW json_tuple(js, 'a', 'b') j ORDER BY id").collect()
    assert [tuple(r) for r in got] == [(1, "1", "x"), (2, None, None), (3, None, None)]


def test_lambdas(df, spark):
    out = df.select("id", F.transform("arr", lambda x: x + F.col("id")).alias("t"))
    assert rows(out) == [(1, [11, 21]), (2, []), (3, None)]
    out = df.select(
        F.filter("arr", lambda x: x > 10).alias("f"),
        F.exists("arr", lambda x: x == 20).alias("e"),
        F.forall("arr", lambda x: x > 10).alias("a"),
        F.aggregate("arr", F.lit(0), lambda acc, x: acc + x).alias("s"),
        F.reduce("arr", F.lit(0), lambda acc, x: acc + x, lambda acc: acc * 2).alias("d"),
        F.zip_with("arr", F.array(F.lit(1), F.lit(2)), lambda a, b: a * b).alias("z"),
        F.array_sort("arr", lambda l, r: r - l).alias("desc"),
    ).where("id = 1")
    assert rows(out) == [([20], True, False, 30, 60, [10, 40], [20, 10])]
    out = df.select(
        F.map_filter("m", lambda k, v: v > 0).alias("mf"),
        F.transform_keys("m", lambda k, v: F.upper(k)).alias("tk"),
        F.transform_values("m", lambda k, v: v * 100).alias("tv"),
        F.map_zip_with("m", F.create_map(F.lit("b"), F.lit(5)), lambda k, v1, v2: F.coalesce(v1, v2)).alias("mz"),
    ).where("id = 1")
    assert rows(out) == [({"a": 1}, {"A": 1}, {"a": 100}, {"a": 1, "b": 5})]
    # Nested lambdas, and explode over a higher-order function.
    out = df.select(F.transform("arr", lambda x: F.aggregate("arr", F.lit(0), lambda acc, y: acc + x * y)).alias("t")).where("id = 1")
    assert rows(out) == [([300, 600],)]
    assert rows(df.select(F.explode(F.transform("arr", lambda x: x * 2)).alias("v"))) == [(20,), (40,)]
    out = df.select(F.transform("ss", lambda s: F.concat(s.y, s["x"].cast("string"))).alias("t")).where("id = 1")
    assert rows(out) == [(["p1", "q2"],)]
    grouped = df.groupBy((F.col("id") % 2).alias("k")).agg(
        F.transform(F.array_sort(F.collect_list("id")), lambda x: x * 10).alias("t")).orderBy("k")
    assert rows(grouped) == [(0, [20]), (1, [10, 30])]
    got = spark.sql("SELECT transform(array(1, 2, 3), x -> x * x) AS sq, filter(array(1, 2, 3), (x, i) -> i > 0) AS f").collect()
    assert [tuple(r) for r in got] == [([1, 4, 9], [2, 3])]


def test_generator_errors(df):
    with pytest.raises(AnalysisException) as e:
        df.select(F.explode("arr"), F.explode("m")).collect()
    assert e.value.getCondition() == "UNSUPPORTED_GENERATOR.MULTI_GENERATOR"
    with pytest.raises(AnalysisException) as e:
        df.select(F.explode("arr") + 1).collect()
    assert e.value.getCondition() == "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS"
    with pytest.raises(AnalysisException) as e:
        df.select(F.explode("js")).collect()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
    with pytest.raises(AnalysisException) as e:
        df.select(F.explode("m").alias("only_one")).collect()
    assert e.value.getCondition() == "UDTF_ALIAS_NUMBER_MISMATCH"
    with pytest.raises(AnalysisException) as e:
        df.select(F.col("id").alias("a", "b")).collect()
    assert e.value.getCondition() == "MULTI_ALIAS_WITHOUT_GENERATOR"
    with pytest.raises(AnalysisException) as e:
        df.select(F.filter("arr", lambda x: x + 1)).collect()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"


def rate_micro_batch(spark, rows_per_batch):
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", rows_per_batch).option("numPartitions", 2).load())


def test_streaming_explode_into_memory(spark):
    df = (rate_micro_batch(spark, 5)
          .select("value", F.posexplode(F.array(F.col("value"), F.col("value") * 10)).alias("p", "v")))
    q = df.writeStream.format("memory").queryName("gen_stream").trigger(once=True).start()
    assert q.awaitTermination(60)
    assert q.exception() is None
    got = spark.sql("SELECT value, p, v FROM gen_stream ORDER BY value, p").collect()
    assert [tuple(r) for r in got] == [(i, p, i * 10 ** p) for i in range(5) for p in (0, 1)]


def run_complete(df, name, epochs=3):
    """Runs df into a complete-mode memory table until at least `epochs` micro-batches ran."""
    q = df.writeStream.format("memory").queryName(name).outputMode("complete").start()
    try:
        for _ in range(100):
            q.processAllAvailable()
            if q.lastProgress is not None and q.lastProgress.batchId >= epochs - 1:
                break
        assert q.exception() is None
    finally:
        q.stop()


def test_streaming_explode_over_aggregate_retracts(spark):
    # Each update of a group retracts the rows its previous count generated (complete mode).
    counts = rate_micro_batch(spark, 6).groupBy((F.col("value") % 2).alias("k")).count()
    df = counts.select("k", F.explode(F.array(F.col("count"), -F.col("count"))).alias("c"))
    run_complete(df, "gen_agg")
    got = [tuple(r) for r in spark.sql("SELECT k, c FROM gen_agg ORDER BY k, c").collect()]
    # Exactly the rows of the latest counts: every earlier pair was retracted. Each of the
    # (at least three) micro-batches adds 3 rows to each key.
    n = got[-1][1]
    assert n >= 9 and n % 3 == 0
    assert got == [(0, -n), (0, n), (1, -n), (1, n)]


def test_streaming_explode_then_aggregate(spark):
    # Word-count shape: every row explodes into two keys, counted across micro-batches.
    words = rate_micro_batch(spark, 6).select(
        F.explode(F.split(F.concat_ws(" ", F.lit("a"), F.when(F.col("value") % 2 == 0, "even").otherwise("odd")), " ")).alias("w"))
    run_complete(words.groupBy("w").count(), "gen_words")
    got = [tuple(r) for r in spark.sql("SELECT w, `count` FROM gen_words ORDER BY w").collect()]
    # Whole micro-batches of 6 rows (at least three): every row counted for "a" and once for
    # its parity.
    n = got[0][1]
    assert n >= 18 and n % 6 == 0
    assert got == [("a", n), ("even", n // 2), ("odd", n // 2)]


def test_streaming_generator_errors(spark):
    stream = rate_micro_batch(spark, 5)
    with pytest.raises(AnalysisException) as e:
        stream.select(F.explode(F.array("value")), F.explode(F.array("value"))).writeStream.format("memory").queryName("gen_bad").start()
    assert e.value.getCondition() == "UNSUPPORTED_GENERATOR.MULTI_GENERATOR"
    with pytest.raises(AnalysisException) as e:
        stream.select(F.inline(F.array("value"))).writeStream.format("memory").queryName("gen_bad2").start()
    assert e.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"


def test_lambda_column_names(spark):
    nums = spark.sql("SELECT array(1, 2) AS a")
    v = "namedlambdavariable()"
    assert nums.select(F.transform("a", lambda x: x * 2)).columns == [f"transform(a, lambdafunction(({v} * 2), {v}))"]
    assert nums.select(F.aggregate("a", F.lit(0), lambda acc, x: acc + x)).columns == [
        f"aggregate(a, 0, lambdafunction(({v} + {v}), {v}, {v}), lambdafunction({v}, {v}))"]
    assert nums.selectExpr("filter(a, x -> x > 1)").columns == [f"filter(a, lambdafunction(({v} > 1), {v}))"]
