"""Everyday batch DataFrame and SQL work from stock PySpark, checked with exact expectations."""
import datetime
import decimal

import pandas as pd
import pytest
from pyspark.errors import AnalysisException, ParseException
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql.types import (
    DoubleType, LongType, StringType, StructField, StructType,
)


def test_range_collect(spark):
    assert [r.id for r in spark.range(10).collect()] == list(range(10))
    assert spark.range(3, 12, 4).collect() == [Row(id=3), Row(id=7), Row(id=11)]


def test_sql_literals(spark):
    rows = spark.sql("SELECT 1 AS a, 'x' AS b").collect()
    assert rows == [Row(a=1, b="x")]


def test_sql_literal_types(spark):
    row = spark.sql(
        "SELECT CAST(1.5 AS DECIMAL(5,2)) AS d, DATE '2024-02-29' AS dt, "
        "TIMESTAMP_NTZ '2024-01-02 03:04:05' AS ts, X'CAFE' AS bin, "
        "array(1, 2) AS arr, named_struct('a', 1, 'b', 'z') AS st, map('k', 1) AS m"
    ).collect()[0]
    assert row.d == decimal.Decimal("1.50")
    assert row.dt == datetime.date(2024, 2, 29)
    assert row.ts == datetime.datetime(2024, 1, 2, 3, 4, 5)
    assert row.bin == bytearray(b"\xca\xfe")
    assert row.arr == [1, 2]
    assert row.st == Row(a=1, b="z")
    assert row.m == {"k": 1}


@pytest.fixture(scope="module")
def people(spark):
    return spark.createDataFrame(
        [("alice", 34, "eng"), ("bob", 45, "ops"), ("carol", 29, "eng"), ("dan", None, "ops")],
        ["name", "age", "dept"],
    )


def test_create_dataframe_and_transform(people):
    out = (
        people.select("name", "age", "dept")
        .filter(F.col("age") > 30)
        .withColumn("age2", F.col("age") * 2)
        .orderBy("name")
        .collect()
    )
    assert out == [
        Row(name="alice", age=34, dept="eng", age2=68),
        Row(name="bob", age=45, dept="ops", age2=90),
    ]


def test_group_by_agg(people):
    out = (
        people.groupBy("dept")
        .agg(F.count("*").alias("n"), F.sum("age").alias("s"), F.avg("age").alias("a"),
             F.min("age").alias("lo"), F.max("age").alias("hi"),
             F.countDistinct("name").alias("names"))
        .orderBy("dept")
        .collect()
    )
    assert out == [
        Row(dept="eng", n=2, s=63, a=31.5, lo=29, hi=34, names=2),
        Row(dept="ops", n=2, s=45, a=45.0, lo=45, hi=45, names=2),
    ]


def test_join_union_limit(spark, people):
    depts = spark.createDataFrame([("eng", "Engineering"), ("hr", "People")], ["dept", "title"])
    inner = people.join(depts, "dept").select("name", "title").orderBy("name").collect()
    assert inner == [Row(name="alice", title="Engineering"), Row(name="carol", title="Engineering")]
    left = people.join(depts, "dept", "left").filter(F.col("title").isNull()).count()
    assert left == 2
    anti = people.join(depts, "dept", "left_anti").select("name").orderBy("name").collect()
    assert [r.name for r in anti] == ["bob", "dan"]
    u = people.select("name").union(depts.select("dept")).orderBy("name").limit(3).collect()
    assert [r.name for r in u] == ["alice", "bob", "carol"]


def test_distinct_and_drop_duplicates(spark):
    df = spark.createDataFrame([(1, "a"), (1, "a"), (2, "b"), (2, "c")], ["k", "v"])
    assert sorted(df.distinct().collect()) == [Row(k=1, v="a"), Row(k=2, v="b"), Row(k=2, v="c")]
    assert df.dropDuplicates(["k"]).count() == 2
    assert df.count() == 4


def test_from_pandas_to_pandas(spark):
    pdf = pd.DataFrame({"x": [1, 2, 3], "y": [0.5, 1.5, 2.5], "s": ["a", "b", None]})
    df = spark.createDataFrame(pdf)
    back = df.withColumn("z", F.col("x") + F.col("y")).toPandas()
    assert back["x"].tolist() == [1, 2, 3]
    assert back["z"].tolist() == [1.5, 3.5, 5.5]
    assert back["s"].tolist()[:2] == ["a", "b"] and back["s"].isna().tolist()[2]


def test_schema_and_explain(spark, people, capsys):
    assert people.columns == ["name", "age", "dept"]
    assert people.dtypes == [("name", "string"), ("age", "bigint"), ("dept", "string")]
    schema = StructType([StructField("id", LongType(), False)])
    assert spark.range(1).schema == schema
    people.printSchema()
    printed = capsys.readouterr().out
    assert "root\n |-- name: string (nullable = true)\n |-- age: long (nullable = true)" in printed
    people.filter("age > 1").explain()
    assert "Filter" in capsys.readouterr().out


def test_show(spark, capsys):
    spark.range(3).withColumn("sq", F.col("id") * F.col("id")).show()
    assert capsys.readouterr().out == (
        "+---+---+\n"
        "| id| sq|\n"
        "+---+---+\n"
        "|  0|  0|\n"
        "|  1|  1|\n"
        "|  2|  4|\n"
        "+---+---+\n\n"
    )


def test_temp_views_and_sql(spark, people):
    people.createOrReplaceTempView("people")
    rows = spark.sql(
        "SELECT dept, count(*) AS n FROM people WHERE age IS NOT NULL GROUP BY dept "
        "HAVING count(*) >= 1 ORDER BY dept"
    ).collect()
    assert rows == [Row(dept="eng", n=2), Row(dept="ops", n=1)]
    names = [r.tableName for r in spark.sql("SHOW TABLES").collect()]
    assert "people" in names
    assert spark.table("people").count() == 4
    cte = spark.sql(
        "WITH e AS (SELECT * FROM people WHERE dept = 'eng') SELECT name FROM e ORDER BY name"
    ).collect()
    assert [r.name for r in cte] == ["alice", "carol"]


def test_conf(spark):
    spark.conf.set("spark.weir.test.key", "v1")
    assert spark.conf.get("spark.weir.test.key") == "v1"
    spark.conf.unset("spark.weir.test.key")
    assert spark.conf.get("spark.weir.test.key", "dflt") == "dflt"


def test_bad_sql_is_parse_exception(spark):
    with pytest.raises(ParseException) as e:
        spark.sql("SELEC 1").collect()
    assert "PARSE_SYNTAX_ERROR" in str(e.value)


def test_unknown_column_is_analysis_exception(spark):
    with pytest.raises(AnalysisException) as e:
        spark.range(3).select("nope").collect()
    assert e.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_unknown_table_and_function(spark):
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT * FROM no_such_table").collect()
    assert e.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT no_such_fn(1)").collect()
    assert e.value.getCondition() == "UNRESOLVED_ROUTINE"


def test_server_keeps_serving_after_errors(spark):
    for _ in range(3):
        with pytest.raises(Exception):
            spark.sql("SELECT FROM").collect()
    assert spark.range(5).count() == 5


def test_create_dataframe_from_pandas_category_and_large_strings(spark):
    """pandas categories (Arrow dictionaries) and pyarrow large strings are Spark strings."""
    import pandas as pd
    import pyarrow as pa

    pdf = pd.DataFrame({"c": pd.Categorical(["a", "b", "a"]),
                        "s": pd.Series(["x", "y", None], dtype=pd.ArrowDtype(pa.large_string()))})
    df = spark.createDataFrame(pdf)
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["string", "string"]
    assert [tuple(r) for r in df.collect()] == [("a", "x"), ("b", "y"), ("a", None)]
