"""The logical optimizer from stock PySpark: comma joins with WHERE equalities run as hash joins
in a good order, explain shows the analyzed and optimized plans, and results do not depend on
spark.weir.optimizer.enabled (batch and streaming)."""
import io
import contextlib


def _tables(spark, tmp_path):
    cust = spark.createDataFrame([(1, "ann", 10), (2, "bob", 20), (3, "cy", 10)], "c_id int, c_name string, c_nation int")
    orders = spark.createDataFrame([(100, 1, 5.0), (101, 1, 7.5), (102, 2, 1.0), (103, 3, 2.0), (104, 9, 3.0)],
                                   "o_id int, o_cust int, o_total double")
    nation = spark.createDataFrame([(10, "FR"), (20, "DE")], "n_id int, n_name string")
    for name, df in (("cust", cust), ("orders", orders), ("nation", nation)):
        path = str(tmp_path / name)
        df.write.parquet(path)
        spark.read.parquet(path).createOrReplaceTempView(name)


QUERY = """
SELECT n_name, c_name, sum(o_total) AS total
FROM orders, nation, cust
WHERE c_id = o_cust AND c_nation = n_id AND o_total > 1.5
GROUP BY n_name, c_name
ORDER BY n_name, c_name
"""


def test_comma_join_with_where_equalities(spark, tmp_path):
    _tables(spark, tmp_path)
    rows = [tuple(r) for r in spark.sql(QUERY).collect()]
    assert rows == [("FR", "ann", 12.5), ("FR", "cy", 2.0)]
    try:
        spark.conf.set("spark.weir.optimizer.enabled", "false")
        assert [tuple(r) for r in spark.sql(QUERY).collect()] == rows
    finally:
        spark.conf.unset("spark.weir.optimizer.enabled")


def test_explain_shows_optimized_plan(spark, tmp_path):
    _tables(spark, tmp_path)
    df = spark.sql("SELECT c_name FROM cust, orders WHERE c_id = o_cust AND o_total > 2.0")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain(extended=True)
    text = out.getvalue()
    analyzed = text[text.index("== Analyzed Logical Plan =="):text.index("== Optimized Logical Plan ==")]
    optimized = text[text.index("== Optimized Logical Plan =="):text.index("== Physical Plan ==")]
    assert "Join Cross" in analyzed
    assert "Join Inner, (o_cust = c_id)" in optimized or "Join Inner, (c_id = o_cust)" in optimized
    assert "PushedFilters: [(o_total > 2.0)]" in optimized
    assert "[o_cust, o_total]" in optimized  # pruned to the columns read
    rows = spark.sql("EXPLAIN SELECT c_name FROM cust, orders WHERE c_id = o_cust").collect()
    assert "Join Inner" in rows[0][0]


def test_streaming_result_unchanged(spark, tmp_path):
    src = tmp_path / "in"
    spark.createDataFrame([(i, i % 3) for i in range(20)], "v int, k int").write.parquet(str(src))
    results = {}
    for enabled in ("true", "false"):
        spark.conf.set("spark.weir.optimizer.enabled", enabled)
        try:
            stream = (spark.readStream.schema("v int, k int").parquet(str(src))
                      .selectExpr("v * 2 AS w", "k").where("k = 1 AND w > 4"))
            name = "opt_" + enabled
            q = stream.writeStream.format("memory").queryName(name).trigger(availableNow=True).start()
            q.awaitTermination(60)
            results[enabled] = sorted(tuple(r) for r in spark.table(name).collect())
        finally:
            spark.conf.unset("spark.weir.optimizer.enabled")
    assert results["true"] == results["false"] == [(w, 1) for w in (8, 14, 20, 26, 32, 38)]
