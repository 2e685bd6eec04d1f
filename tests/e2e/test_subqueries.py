"""Subqueries from stock PySpark, SQL and DataFrame API: correlated EXISTS / IN / scalar
subqueries with NULLs, the count bug, Spark's errors. Expected rows are Apache Spark 4.2's (this
file was run once against Spark's own Connect server)."""
import pytest
from pyspark.errors import AnalysisException, SparkRuntimeException
from pyspark.errors.exceptions.connect import SparkConnectGrpcException
from pyspark.sql import functions as F


@pytest.fixture(scope="module")
def views(spark):
    o = spark.createDataFrame([(1, 1, 10), (2, 2, 20), (3, None, 30), (4, 4, None), (5, 5, 50)], "id int, k int, v int")
    i = spark.createDataFrame([(1, 100), (1, 5), (2, None), (None, 7), (4, 40)], "k int, w int")
    o.createOrReplaceTempView("sq_o")
    i.createOrReplaceTempView("sq_i")
    return o, i


def rows(frame):
    return [tuple(r) for r in frame.collect()]


def test_correlated_exists_and_in(spark, views):
    q = "SELECT id FROM sq_o WHERE {} ORDER BY id"
    assert rows(spark.sql(q.format("EXISTS (SELECT * FROM sq_i WHERE sq_i.k = sq_o.k)"))) == [(1,), (2,), (4,)]
    assert rows(spark.sql(q.format(
        "NOT EXISTS (SELECT * FROM sq_i WHERE sq_i.k = sq_o.k AND sq_i.w > sq_o.v)"))) == [(2,), (3,), (4,), (5,)]
    # NOT IN is null-aware: a NULL in the subquery's rows, or a NULL value, is not "not in".
    assert rows(spark.sql(q.format("v NOT IN (SELECT w FROM sq_i WHERE sq_i.k = sq_o.k)"))) == [(1,), (3,), (5,)]
    assert rows(spark.sql(q.format("(k, v) NOT IN (SELECT k, w FROM sq_i WHERE w <> 100)"))) == [(1,), (2,), (3,), (5,)]
    assert rows(spark.sql(q.format("id = 1 OR EXISTS (SELECT * FROM sq_i WHERE sq_i.w > sq_o.v)"))) == [(1,), (2,), (3,), (5,)]


def test_correlated_scalar_and_count_bug(spark, views):
    out = spark.sql(
        "SELECT id, (SELECT count(*) FROM sq_i WHERE sq_i.k = sq_o.k), "
        "(SELECT max(w) FROM sq_i WHERE sq_i.k > sq_o.k) AS m FROM sq_o ORDER BY id")
    assert out.columns == ["id", "scalarsubquery(k)", "m"]
    assert rows(out) == [(1, 2, 40), (2, 1, 40), (3, 0, None), (4, 1, None), (5, 0, None)]
    out = spark.sql("SELECT id FROM sq_o WHERE v > (SELECT 0.1 * avg(w) FROM sq_i WHERE sq_i.k = sq_o.k) ORDER BY id")
    assert rows(out) == [(1,)]


def test_exists_and_in_as_values(spark, views):
    out = spark.sql(
        "SELECT id, EXISTS (SELECT * FROM sq_i WHERE sq_i.k = sq_o.k), v IN (SELECT w FROM sq_i), "
        "v NOT IN (SELECT w FROM sq_i WHERE w > 7) AS n FROM sq_o ORDER BY id")
    assert out.columns == ["id", "exists(k)", "(v IN (listquery()))", "n"]
    assert rows(out) == [(1, True, False, True), (2, True, False, True), (3, False, False, True),
                         (4, True, False, False), (5, False, False, True)]


def test_scalar_subquery_in_having(spark, views):
    out = spark.sql("SELECT k, sum(v) AS total FROM sq_o GROUP BY k HAVING sum(v) > (SELECT avg(v) FROM sq_o) ORDER BY k")
    assert rows(out) == [(None, 30), (5, 50)]


def test_errors(spark, views):
    with pytest.raises((SparkRuntimeException, SparkConnectGrpcException)) as e:
        spark.sql("SELECT id, (SELECT w FROM sq_i WHERE sq_i.k = sq_o.k) FROM sq_o").collect()
    assert e.value.getCondition() == "SCALAR_SUBQUERY_TOO_MANY_ROWS"
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT id, (SELECT max(w) + sq_o.v FROM sq_i) FROM sq_o").collect()
    assert e.value.getCondition() == "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE"
    with pytest.raises((SparkRuntimeException, SparkConnectGrpcException)) as e:
        spark.sql("SELECT id, (SELECT w FROM sq_i WHERE k = 1) FROM sq_o").collect()
    assert e.value.getCondition() == "SCALAR_SUBQUERY_TOO_MANY_ROWS"


def test_dataframe_subqueries(spark, views):
    o, i = views
    # df.scalar(), df.exists() and col.outer(): PySpark 4's DataFrame subqueries.
    total = i.select(F.max("w")).scalar()
    assert rows(o.select("id", (F.col("v") * 10 > total).alias("big")).orderBy("id").limit(2)) == [(1, False), (2, True)]
    has = i.where(F.col("k") == F.col("sq_o.k").outer()).exists()
    assert rows(o.alias("sq_o").where(has).select("id").orderBy("id")) == [(1,), (2,), (4,)]
    cnt = i.where(F.col("k") == F.col("sq_o.k").outer()).select(F.count(F.lit(1))).scalar()
    assert rows(o.alias("sq_o").select("id", cnt.alias("n")).orderBy("id")) == [(1, 2), (2, 1), (3, 0), (4, 1), (5, 0)]
    assert rows(o.where(F.col("k").isin(i.select("k"))).select("id").orderBy("id")) == [(1,), (2,), (4,)]


def test_dataframe_outer_by_plan_id_is_refused(spark, views):
    # As in Spark 4.2: o.k names the outer DataFrame's column by its plan id, which the subquery
    # does not have (its own k must not be taken for it).
    o, i = views
    with pytest.raises(AnalysisException) as e:
        o.where(i.where(i.k == o.k.outer()).exists()).collect()
    assert e.value.getCondition() == "CANNOT_RESOLVE_DATAFRAME_COLUMN"
