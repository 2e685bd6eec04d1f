"""Functions of the row's partition, the session and the server, through stock PySpark, with the
values Apache Spark 4.2's own Connect server gives for the same queries (checked side by side)."""
import re

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F


def test_partition_functions_match_spark(spark):
    # range(0, 6, 1, 3): two rows in each of three partitions, on Spark as on Weir.
    rows = spark.sql(
        "SELECT id, spark_partition_id(), monotonically_increasing_id(), randstr(3, 0), "
        "uniform(0, 100, 42), rand(7) FROM range(0, 6, 1, 3)").collect()
    assert [tuple(r) for r in rows] == [
        (0, 0, 0, "ceV", 61, 0.28188121484885875),
        (1, 0, 1, "0PX", 50, 0.45998819035056326),
        (2, 1, 8589934592, "fYx", 80, 0.4836508543933039),
        (3, 1, 8589934593, "VfA", 65, 0.734216416644485),
        (4, 2, 17179869184, "sWM", 79, 0.7145670158242735),
        (5, 2, 17179869185, "Rm7", 86, 0.46621774950712846),
    ]
    rows = spark.sql("SELECT shuffle(array(1, 20, 3, 5), 0) FROM range(0, 3, 1, 1)").collect()
    assert [r[0] for r in rows] == [[5, 1, 20, 3], [1, 3, 5, 20], [3, 1, 20, 5]]
    df = spark.range(0, 4, 1, 2).select(F.spark_partition_id().alias("p"), F.monotonically_increasing_id().alias("m"))
    assert [tuple(r) for r in df.collect()] == [(0, 0), (0, 1), (1, 8589934592), (1, 8589934593)]


def test_uuid_current_user_version(spark):
    row = spark.sql("SELECT uuid(), uuid(), current_user() = user(), user() = session_user(), version()").collect()[0]
    pattern = r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"
    assert re.match(pattern, row[0]) and re.match(pattern, row[1]) and row[0] != row[1]
    assert row[2] and row[3]
    # Spark answers "4.2.0 <git revision>"; Weir its reported Spark version and its own revision.
    assert row[4].split(" ")[0] == spark.version and len(row[4].split(" ")) == 2
    names = [r.function for r in spark.sql("SHOW FUNCTIONS LIKE 'row_number|explode_outer|between|<<'").collect()]
    assert names == ["<<", "between", "explode_outer", "row_number"]


def test_current_database_and_path_follow_use(spark):
    spark.sql("CREATE DATABASE IF NOT EXISTS rowid_db")
    try:
        spark.sql("USE rowid_db")
        row = spark.sql("SELECT current_database(), current_schema(), current_catalog(), current_path()").collect()[0]
        assert tuple(row) == ("rowid_db", "rowid_db", "spark_catalog",
                              "system.builtin,system.session,spark_catalog.rowid_db")
    finally:
        spark.sql("USE default")
        spark.sql("DROP DATABASE rowid_db")
    assert spark.sql("SELECT current_path()").first()[0] == "system.builtin,system.session,spark_catalog.default"


def test_sql_keywords(spark):
    df = spark.sql("SELECT * FROM sql_keywords()")
    assert [(f.name, f.dataType.simpleString(), f.nullable) for f in df.schema.fields] == \
        [("keyword", "string", False), ("reserved", "boolean", False)]
    rows = df.collect()
    # Spark 4.2.0: 423 keywords in its order, none reserved unless ANSI reserved keywords are enforced (80).
    assert len(rows) == 423 and not any(r.reserved for r in rows)
    assert [r.keyword for r in rows[:3]] == ["ADD", "AFTER", "AGGREGATE"]
    spark.conf.set("spark.sql.ansi.enforceReservedKeywords", "true")
    try:
        reserved = {r.keyword for r in spark.sql("SELECT keyword FROM sql_keywords() WHERE reserved").collect()}
    finally:
        spark.conf.unset("spark.sql.ansi.enforceReservedKeywords")
    assert len(reserved) == 80 and {"SELECT", "FROM", "WHERE"} <= reserved and "ADD" not in reserved
    with pytest.raises(AnalysisException, match="NOT_A_SCALAR_FUNCTION"):
        spark.sql("SELECT sql_keywords()").collect()
    with pytest.raises(AnalysisException, match="WRONG_NUM_ARGS"):
        spark.sql("SELECT * FROM sql_keywords(1)").collect()
