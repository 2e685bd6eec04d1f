"""Metric views from stock PySpark: CREATE VIEW … WITH METRICS LANGUAGE YAML over a catalog
table and over a query, measure(m) queries through spark.sql and the DataFrame API, DESCRIBE,
and the errors Spark 4.2's Connect server answers (the expected values are its answers). The
server has its own state dir under the test's tmp_path."""
import pytest
from pyspark.errors import AnalysisException, ParseException
from pyspark.errors.exceptions.connect import SparkException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from conftest import start_server, stop_server

SALES_YAML = """
version: 0.1
source: mv_sales
dimensions:
  - name: region
    expr: region
  - name: prod_upper
    expr: upper(product)
measures:
  - name: total
    expr: sum(amount)
  - name: cnt
    expr: count(1)
  - name: avg_qty
    expr: avg(qty)
"""

FILTERED_YAML = """
version: 0.1
source: SELECT * FROM mv_sales WHERE qty > 1
filter: amount IS NOT NULL
dimensions:
  - name: region
    expr: region
measures:
  - name: total
    expr: sum(amount) + 1
  - name: maxq
    expr: max(qty)
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = start_server(["--state-dir", str(tmp_path_factory.mktemp("metric_views") / "state")])
    yield s
    stop_server(s)


@pytest.fixture(scope="module")
def spark(server):
    s = SparkSession.builder.remote(server.url).create()
    s.sql("CREATE TABLE mv_sales (region STRING, product STRING, amount INT, qty INT) USING parquet")
    s.sql("INSERT INTO mv_sales VALUES ('east','a',10,1),('east','b',20,2),('west','a',5,3),"
          "('west','a',NULL,4),(NULL,'c',7,5)")
    s.sql(f"CREATE VIEW sales_mv WITH METRICS LANGUAGE YAML AS $${SALES_YAML}$$")
    s.sql(f"CREATE VIEW filtered_mv WITH METRICS LANGUAGE YAML AS $${FILTERED_YAML}$$")
    yield s
    s.stop()


def rows(df):
    return sorted((tuple(r) for r in df.collect()), key=repr)


def test_measures_grouped_by_dimensions(spark):
    df = spark.sql("SELECT region, prod_upper, measure(total), measure(cnt), measure(avg_qty) "
                   "FROM sales_mv GROUP BY region, prod_upper")
    assert df.columns == ["region", "prod_upper", "measure(total)", "measure(cnt)", "measure(avg_qty)"]
    assert df.schema.simpleString() == ("struct<region:string,prod_upper:string,measure(total):bigint,"
                                        "measure(cnt):bigint,measure(avg_qty):double>")
    assert rows(df) == rows(spark.createDataFrame(
        [(None, "C", 7, 1, 5.0), ("east", "A", 10, 1, 1.0), ("east", "B", 20, 1, 2.0), ("west", "A", 5, 2, 3.5)],
        df.schema))


def test_measures_without_group_by_and_with_where(spark):
    assert spark.sql("SELECT measure(total) FROM sales_mv").collect()[0][0] == 42
    df = spark.sql("SELECT measure(total), measure(cnt) FROM sales_mv WHERE region = 'east'")
    assert [tuple(r) for r in df.collect()] == [(30, 2)]
    df = spark.sql("SELECT measure(total) + 1 FROM sales_mv")
    assert df.columns == ["(measure(total) + 1)"]
    assert df.collect()[0][0] == 43
    df = spark.sql("SELECT m.region, measure(m.total) FROM sales_mv AS m WHERE m.prod_upper = 'A' GROUP BY m.region")
    assert df.columns == ["region", "measure(total)"]
    assert rows(df) == [("east", 10), ("west", 5)]
    df = spark.sql("SELECT lower(prod_upper) AS p, measure(cnt) AS c FROM sales_mv GROUP BY p")
    assert rows(df) == [("a", 3), ("b", 1), ("c", 1)]


def test_source_query_and_filter(spark):
    df = spark.sql("SELECT region, measure(total), measure(maxq) FROM filtered_mv GROUP BY region")
    assert df.schema.simpleString() == "struct<region:string,measure(total):bigint,measure(maxq):int>"
    assert rows(df) == [("east", 21, 2), ("west", 6, 3), (None, 8, 5)]


def test_dataframe_api(spark):
    df = spark.table("sales_mv").groupBy("region").agg(F.expr("measure(total)"))
    assert df.columns == ["region", "measure(total)"]
    assert rows(df) == [("east", 30), ("west", 5), (None, 7)]
    assert spark.table("sales_mv").select(F.expr("measure(cnt)")).collect()[0][0] == 5
    df = spark.table("sales_mv").where("region = 'west'").groupBy("region").agg(F.expr("measure(total)").alias("t"))
    assert [tuple(r) for r in df.collect()] == [("west", 5)]


def test_describe_and_show(spark):
    described = [(r.col_name, r.data_type) for r in spark.sql("DESCRIBE TABLE sales_mv").collect()]
    assert described == [("region", "string"), ("prod_upper", "string"), ("total", "bigint"),
                         ("cnt", "bigint"), ("avg_qty", "double")]
    extended = {r.col_name: r.data_type for r in spark.sql("DESCRIBE TABLE EXTENDED filtered_mv").collect()}
    assert extended["Type"] == "METRIC_VIEW"
    assert extended["Language"] == "YAML"
    assert extended["View Text"] == FILTERED_YAML
    assert extended["Table Properties"] == ("[metric_view.from.sql=SELECT * FROM mv_sales WHERE qty > 1, "
                                            "metric_view.from.type=SQL, metric_view.where=amount IS NOT NULL]")
    assert [r.col_name for r in spark.sql("SHOW COLUMNS IN filtered_mv").collect()] == ["region", "total", "maxq"]
    assert ("default", "sales_mv", False) in [tuple(r) for r in spark.sql("SHOW TABLES").collect()]
    with pytest.raises(AnalysisException) as e:
        spark.sql("SHOW CREATE TABLE sales_mv").collect()
    assert e.value.getCondition() == "UNSUPPORTED_SHOW_CREATE_TABLE.ON_METRIC_VIEW"


@pytest.mark.parametrize("query, exc, condition", [
    ("SELECT region FROM sales_mv", SparkException, "INTERNAL_ERROR"),
    ("SELECT * FROM sales_mv", SparkException, "INTERNAL_ERROR"),
    ("SELECT region, measure(total) FROM sales_mv", AnalysisException, "MISSING_GROUP_BY"),
    ("SELECT sum(amount) FROM sales_mv", AnalysisException, "UNRESOLVED_COLUMN.WITH_SUGGESTION"),
    ("SELECT measure(amount) FROM mv_sales", SparkException, "INTERNAL_ERROR"),
])
def test_query_errors(spark, query, exc, condition):
    with pytest.raises(exc) as e:
        spark.sql(query).collect()
    assert e.value.getCondition() == condition


@pytest.mark.parametrize("yaml, condition", [
    ("version: 0.1\ndimensions:\n  - name: r\n    expr: region\n", "INVALID_METRIC_VIEW_YAML"),
    ("version: 0.2\nsource: mv_sales\n", "INVALID_METRIC_VIEW_YAML"),
    ("version: 0.1\nsource: mv_sales\nextra: 1\n", "INVALID_METRIC_VIEW_YAML"),
    (": : not yaml [", "INVALID_METRIC_VIEW_YAML"),
    ("version: 0.1\nsource: mv_sales\ndimensions:\n  - name: r\n    expr: nosuch\n", "UNRESOLVED_COLUMN.WITH_SUGGESTION"),
    ("version: 0.1\nsource: no_such_table\nmeasures:\n  - name: t\n    expr: sum(amount)\n", "TABLE_OR_VIEW_NOT_FOUND"),
    ("version: 0.1\nsource: mv_sales\nmeasures:\n  - name: t\n    expr: amount\n", "MISSING_GROUP_BY"),
    ("version: 0.1\nsource: mv_sales\ndimensions:\n  - name: x\n    expr: region\nmeasures:\n"
     "  - name: x\n    expr: sum(amount)\n", "COLUMN_ALREADY_EXISTS"),
])
def test_create_errors(spark, yaml, condition):
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"CREATE VIEW bad_mv WITH METRICS LANGUAGE YAML AS $${yaml}$$")
    assert e.value.getCondition() == condition


def test_create_replace_and_drop(spark):
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"CREATE OR REPLACE VIEW sales_mv WITH METRICS LANGUAGE YAML AS $${SALES_YAML}$$")
    assert e.value.getCondition() == "TABLE_OR_VIEW_ALREADY_EXISTS"
    spark.sql("CREATE VIEW renamed_mv (r, s) WITH METRICS LANGUAGE YAML AS $$\nversion: 0.1\nsource: mv_sales\n"
              "dimensions:\n  - name: region\n    expr: region\nmeasures:\n  - name: total\n    expr: sum(amount)\n$$")
    df = spark.sql("SELECT r, measure(s) FROM renamed_mv GROUP BY r")
    assert df.columns == ["r", "measure(s)"]
    assert rows(df) == [("east", 30), ("west", 5), (None, 7)]
    spark.sql("DROP VIEW renamed_mv")
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT measure(s) FROM renamed_mv").collect()
    assert e.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    with pytest.raises(ParseException) as e:  # a metric view is never temporary
        spark.sql("CREATE TEMP VIEW t_mv WITH METRICS LANGUAGE YAML AS $$\nversion: 0.1\nsource: mv_sales\n$$")
    assert e.value.getCondition() == "PARSE_SYNTAX_ERROR"


def test_catalog_api(spark):
    t = spark.catalog.getTable("sales_mv")
    assert (t.name, t.tableType, t.isTemporary) == ("sales_mv", "VIEW", False)
    assert [(t.name, t.tableType) for t in spark.catalog.listTables() if t.name == "filtered_mv"] == [("filtered_mv", "VIEW")]
    assert spark.catalog.tableExists("sales_mv")
    assert [(c.name, c.dataType) for c in spark.catalog.listColumns("filtered_mv")] == [
        ("region", "string"), ("total", "bigint"), ("maxq", "int")]


def test_metric_view_survives_restart(tmp_path):
    state = str(tmp_path / "state")
    for query_only in (False, True):
        server = start_server(["--state-dir", state])
        try:
            s = SparkSession.builder.remote(server.url).create()
            if not query_only:
                s.sql("CREATE TABLE kept (k STRING, v INT) USING parquet")
                s.sql("INSERT INTO kept VALUES ('a', 1), ('a', 2), ('b', 3)")
                s.sql("CREATE VIEW kept_mv WITH METRICS LANGUAGE YAML AS $$\nversion: 0.1\nsource: kept\n"
                      "dimensions:\n  - name: k\n    expr: k\nmeasures:\n  - name: total\n    expr: sum(v)\n$$")
            assert rows(s.sql("SELECT k, measure(total) FROM kept_mv GROUP BY k")) == [("a", 3), ("b", 3)]
            s.stop()
        finally:
            stop_server(server)
