"""Hints (issue 14): join strategy hints are kept, shown by explain and honoured (a broadcast hint
plans a broadcast hash join); COALESCE / REPARTITION hints repartition; unknown hints are dropped.
Expected plans, messages and errors were checked against Apache Spark 4.2's own Connect server."""

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import functions as F


def explain(df):
    return df._explain_string(extended=True) if hasattr(df, "_explain_string") else \
        df.sparkSession.client.explain_string(df._plan.to_proto(df.sparkSession.client), "extended")


def rows(df):
    return sorted(tuple(r) for r in df.collect())


@pytest.fixture(scope="module")
def sides(spark):
    left = spark.range(0, 2000, 1, 4).select((F.col("id") % 300).alias("k"), F.col("id").alias("v"))
    right = spark.range(0, 500, 1, 3).select((F.col("id") % 250).alias("k"), (F.col("id") * 10).alias("w"))
    return left, right


@pytest.mark.parametrize("how", ["inner", "left", "left_semi", "left_anti", "right", "full"])
def test_broadcast_hint_gives_the_same_rows(sides, how):
    left, right = sides
    plain = rows(left.join(right, "k", how))
    assert rows(left.join(right.hint("broadcast"), "k", how)) == plain
    assert rows(left.hint("broadcast").join(right, "k", how)) == plain
    assert plain  # every join type here has rows


def test_hints_in_the_plans(spark, sides):
    left, right = sides
    plan = explain(left.join(right.hint("broadcast"), "k"))
    assert "ResolvedHint (strategy=broadcast)" in plan.split("== Optimized")[0]
    assert "rightHint=(strategy=broadcast)" in plan.split("== Optimized")[1]
    for name, strategy in [("mapjoin", "broadcast"), ("merge", "merge"), ("shuffle_hash", "shuffle_hash"),
                           ("SHUFFLE_REPLICATE_NL", "shuffle_replicate_nl")]:
        assert f"ResolvedHint (strategy={strategy})" in explain(left.join(right.hint(name), "k"))
    # A hint Spark does not know is dropped.
    assert "ResolvedHint" not in explain(left.join(right.hint("nope"), "k"))
    assert rows(left.join(right.hint("nope"), "k")) == rows(left.join(right, "k"))


def test_sql_hints(spark):
    spark.range(0, 100, 1, 3).createOrReplaceTempView("hint_t1")
    spark.range(0, 50, 1, 2).createOrReplaceTempView("hint_t2")
    q = "SELECT /*+ BROADCAST(t1), MERGE(t2) */ * FROM hint_t1 t1 JOIN hint_t2 t2 ON t1.id = t2.id"
    plan = explain(spark.sql(q))
    analyzed = plan.split("== Optimized")[0]
    assert "ResolvedHint (strategy=broadcast)" in analyzed and "ResolvedHint (strategy=merge)" in analyzed
    # The broadcast side becomes the build (right) side, the columns put back in order above.
    optimized = plan.split("== Optimized")[1].split("== Physical")[0]
    assert "leftHint=(strategy=merge), rightHint=(strategy=broadcast)" in optimized
    assert spark.sql(q).count() == 50
    # A table name without an alias; a name nothing has.
    assert "ResolvedHint (strategy=broadcast)" in explain(
        spark.sql("SELECT /*+ BROADCASTJOIN(hint_t2) */ * FROM hint_t1 JOIN hint_t2 USING (id)"))
    assert "ResolvedHint" not in explain(spark.sql("SELECT /*+ BROADCAST(nope) */ * FROM hint_t1"))
    # A hint comment anywhere but after SELECT is a comment.
    assert spark.sql("SELECT * FROM hint_t1 /*+ BROADCAST(hint_t1) */").count() == 100


def test_repartition_hints(spark):
    assert "Repartition 3" in explain(spark.sql("SELECT /*+ COALESCE(3) */ * FROM range(10)"))
    assert "Repartition 4" in explain(spark.range(10).hint("repartition", 4))
    for q in ["SELECT /*+ REPARTITION(3, id) */ * FROM range(10)", "SELECT /*+ REPARTITION(id) */ * FROM range(10)",
              "SELECT /*+ REPARTITION_BY_RANGE(3, id) */ * FROM range(10)", "SELECT /*+ REBALANCE */ * FROM range(10)",
              "SELECT /*+ REPARTITION */ * FROM range(10)"]:
        assert "Repartition" in explain(spark.sql(q)), q
        assert sorted(r.id for r in spark.sql(q).collect()) == list(range(10)), q


def test_hint_errors(spark):
    for q in ["SELECT /*+ COALESCE(id) */ * FROM range(10)", "SELECT /*+ COALESCE */ * FROM range(10)"]:
        with pytest.raises(AnalysisException, match="COALESCE Hint expects a partition number as a parameter"):
            spark.sql(q).collect()
    with pytest.raises(IllegalArgumentException, match=r"Number of partitions \(0\) must be positive"):
        spark.sql("SELECT /*+ REPARTITION(0) */ * FROM range(10)").collect()
    with pytest.raises(AnalysisException, match='Join strategy hint parameter should be an identifier or string but was "1"'):
        spark.sql("SELECT /*+ BROADCAST(1) */ * FROM range(10) t").collect()
