"""regr_* aggregates through stock PySpark, with the values Apache Spark 4.2's own Connect server
gives for the same queries (checked side by side; sql/expr's TestRegressionAggregates has more)."""
from decimal import Decimal

from pyspark.sql import functions as F


def test_regr_matches_spark(spark):
    row = spark.sql(
        "SELECT regr_count(y, x), regr_avgx(y, x), regr_avgy(y, x), regr_sxx(y, x), regr_syy(y, x), "
        "regr_sxy(y, x), regr_slope(y, x), regr_intercept(y, x), regr_r2(y, x) "
        "FROM VALUES (1.5D, 0.1D), (2.7D, 0.35D), (3.1D, 0.9D), (0.3D, 1.7D), (9.9D, 2.2D), (null, 5.5D) AS tab(y, x)"
    ).collect()[0]
    assert tuple(row) == (5, 1.05, 3.5, 3.16, 56.00000000000001, 7.800000000000001, 2.468354430379747,
                          0.9082278481012653, 0.3438065099457505)
    df = spark.sql("SELECT regr_avgx(y, x), regr_avgy(y, x) FROM VALUES (1.50BD, 2.25BD), (2.70BD, 3.5BD) AS tab(y, x)")
    assert df.schema.simpleString() == "struct<regr_avgx(y, x):decimal(7,6),regr_avgy(y, x):decimal(7,6)>"
    assert tuple(df.collect()[0]) == (Decimal("2.875000"), Decimal("2.100000"))


def test_regr_grouped_through_dataframe(spark):
    df = spark.createDataFrame([(1, 1, 2), (1, 2, 4), (2, 3, 1), (2, 5, 2), (2, 1, 3)], "k int, y int, x int")
    rows = df.groupBy("k").agg(F.regr_slope("y", "x"), F.regr_count("y", "x")).orderBy("k").collect()
    assert [tuple(r) for r in rows] == [(1, 0.5, 2), (2, -1.0, 3)]
    assert rows[0].__fields__ == ["k", "regr_slope(y, x)", "regr_count(y, x)"]
