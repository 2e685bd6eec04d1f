"""Persistent tables, views and databases from stock PySpark: SQL DDL and DML, the DataFrame
writers (saveAsTable, insertInto, writeTo), spark.catalog, writeStream.toTable and
readStream.table, and everything still there after the server restarts on its state dir.
The server has its own state dir under the test's tmp_path: every DROP that deletes files does
so inside that dir's warehouse."""
import os

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

from conftest import start_server, stop_server


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return tmp_path_factory.mktemp("tables") / "state"


@pytest.fixture(scope="module")
def server(state):
    s = start_server(["--state-dir", str(state)])
    yield s
    stop_server(s)


def session(server):
    return SparkSession.builder.remote(server.url).create()


@pytest.fixture(scope="module")
def spark(server):
    s = session(server)
    yield s
    if not s.is_stopped:  # the restart test stops it before stopping its server
        s.stop()


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def condition(excinfo):
    return excinfo.value.getCondition()


def test_sql_tables_views_and_databases(spark, state):
    spark.sql("CREATE DATABASE sales COMMENT 'the sales'")
    spark.sql("CREATE TABLE sales.orders (id INT, item STRING, day STRING) USING parquet "
              "PARTITIONED BY (day) TBLPROPERTIES ('owner' = 'ops')")
    spark.sql("INSERT INTO sales.orders VALUES (1, 'a', 'd1'), (2, 'b', 'd2')")
    spark.sql("INSERT INTO sales.orders PARTITION (day = 'd3') VALUES (3, 'c')")
    assert rows(spark.table("sales.orders")) == [(1, "a", "d1"), (2, "b", "d2"), (3, "c", "d3")]
    spark.sql("INSERT OVERWRITE sales.orders PARTITION (day = 'd2') VALUES (4, 'x')")
    assert rows(spark.sql("SELECT * FROM spark_catalog.sales.orders")) == [(1, "a", "d1"), (3, "c", "d3"), (4, "x", "d2")]
    location = state / "warehouse" / "sales.db" / "orders"
    assert sorted(n for n in os.listdir(location) if n.startswith("day=")) == ["day=d1", "day=d2", "day=d3"]

    spark.sql("USE sales")
    spark.sql("CREATE VIEW big AS SELECT id, item FROM orders WHERE id > 1")
    assert rows(spark.sql("SELECT * FROM big")) == [(3, "c"), (4, "x")]
    spark.sql("CREATE TABLE copy USING json AS SELECT id * 10 AS id10 FROM orders")
    assert rows(spark.table("copy")) == [(10,), (30,), (40,)]
    assert [tuple(r) for r in spark.sql("SHOW TABLES").collect()] == [
        ("sales", "big", False), ("sales", "copy", False), ("sales", "orders", False)]
    assert [r.namespace for r in spark.sql("SHOW DATABASES").collect()] == ["default", "sales"]
    assert [tuple(r) for r in spark.sql("SHOW TBLPROPERTIES orders").collect()] == [("owner", "ops")]
    assert spark.sql("SHOW CREATE TABLE orders").first()[0] == (
        "CREATE TABLE spark_catalog.sales.orders (\n  id INT,\n  item STRING COLLATE UTF8_BINARY,\n"
        "  day STRING COLLATE UTF8_BINARY)\nUSING parquet\nPARTITIONED BY (day)\nTBLPROPERTIES (\n  'owner' = 'ops')\n")
    described = [tuple(r) for r in spark.sql("DESCRIBE TABLE orders").collect()]
    assert described == [("id", "int", None), ("item", "string", None), ("day", "string", None),
                         ("# Partition Information", "", ""), ("# col_name", "data_type", "comment"),
                         ("day", "string", None)]
    extended = {r.col_name: r.data_type for r in spark.sql("DESCRIBE EXTENDED orders").collect()}
    assert extended["Type"] == "MANAGED" and extended["Provider"] == "parquet"
    assert extended["Location"] == "file:" + str(location.resolve())

    spark.sql("ALTER TABLE orders ADD COLUMNS (qty BIGINT)")
    assert spark.table("orders").columns == ["id", "item", "qty", "day"]
    spark.sql("INSERT INTO orders VALUES (5, 'y', 7, 'd1')")
    assert rows(spark.table("orders").where("id = 5")) == [(5, "y", 7, "d1")]
    spark.sql("ALTER TABLE copy RENAME TO copy2")
    assert rows(spark.table("copy2")) == [(10,), (30,), (40,)]
    assert not (state / "warehouse" / "sales.db" / "copy").exists()
    spark.sql("TRUNCATE TABLE copy2")
    assert spark.table("copy2").count() == 0
    spark.sql("USE default")


def test_dataframe_writers(spark):
    df = spark.range(4).selectExpr("id", "CAST(id % 2 AS STRING) AS k")
    df.write.partitionBy("k").saveAsTable("events")
    assert rows(spark.table("events")) == [(0, "0"), (1, "1"), (2, "0"), (3, "1")]
    df.where("id < 2").write.mode("append").saveAsTable("events")
    assert spark.table("events").count() == 6
    df.selectExpr("k", "id + 100 AS id").write.mode("append").saveAsTable("events")  # by name
    assert rows(spark.table("events").where("id >= 100")) == [(100, "0"), (101, "1"), (102, "0"), (103, "1")]
    spark.createDataFrame([(9, "z")], "a long, b string").write.insertInto("events")  # by position
    assert rows(spark.table("events").where("id = 9")) == [(9, "z")]
    df.write.mode("ignore").saveAsTable("events")
    assert spark.table("events").count() == 11
    with pytest.raises(AnalysisException) as e:
        df.write.saveAsTable("events")
    assert condition(e) == "TABLE_OR_VIEW_ALREADY_EXISTS"
    spark.range(2).write.mode("overwrite").saveAsTable("events")
    assert rows(spark.table("events")) == [(0,), (1,)]
    spark.range(3).write.mode("overwrite").insertInto("events")
    assert rows(spark.table("events")) == [(0,), (1,), (2,)]

    with pytest.raises(AnalysisException) as e:
        spark.range(1).selectExpr("id", "1 AS extra").write.mode("append").saveAsTable("events")
    assert condition(e) == "_LEGACY_ERROR_TEMP_1161"
    with pytest.raises(AnalysisException) as e:
        spark.table("events").write.mode("overwrite").saveAsTable("events")
    assert condition(e) == "UNSUPPORTED_OVERWRITE.TABLE"

    # DataFrameWriterV2 on file tables (Spark's v1 tables): create() makes one; writing into
    # or replacing one is refused as Spark 4.2 refuses it.
    spark.range(3).writeTo("v2t").using("json").create()
    assert rows(spark.table("v2t")) == [(0,), (1,), (2,)]
    assert spark.catalog.getTable("v2t").tableType == "MANAGED"
    with pytest.raises(AnalysisException) as e:
        spark.range(1).writeTo("v2t").create()
    assert condition(e) == "TABLE_OR_VIEW_ALREADY_EXISTS"
    for write in (lambda w: w.append(), lambda w: w.overwritePartitions()):
        with pytest.raises(AnalysisException) as e:
            write(spark.range(1).writeTo("v2t"))
        assert condition(e) == "_LEGACY_ERROR_TEMP_1012" and "Cannot write into v1 table" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        spark.range(1).writeTo("v2t").createOrReplace()
    assert condition(e) == "UNSUPPORTED_FEATURE.TABLE_OPERATION"
    with pytest.raises(AnalysisException) as e:
        spark.range(1).writeTo("no_such_v2t").append()
    assert condition(e) == "TABLE_OR_VIEW_NOT_FOUND"


def test_catalog_api(spark, tmp_path):
    spark.catalog.createTable("cat_t", schema=spark.range(1).schema, source="csv")
    assert spark.catalog.tableExists("cat_t") and spark.catalog.tableExists("default.cat_t")
    t = spark.catalog.getTable("cat_t")
    assert (t.name, t.namespace, t.tableType, t.isTemporary) == ("cat_t", ["default"], "MANAGED", False)
    ext = str(tmp_path / "ext")
    spark.range(2).write.parquet(ext)
    spark.catalog.createTable("cat_ext", path=ext)
    assert spark.catalog.getTable("cat_ext").tableType == "EXTERNAL"
    assert rows(spark.table("cat_ext")) == [(0,), (1,)]
    cols = spark.catalog.listColumns("sales.orders")
    assert [(c.name, c.isPartition) for c in cols] == [("id", False), ("item", False), ("qty", False), ("day", True)]
    assert {t.name for t in spark.catalog.listTables("sales")} == {"big", "copy2", "orders"}
    assert spark.catalog.databaseExists("sales") and not spark.catalog.databaseExists("nodb")
    assert spark.catalog.getTableProperties("sales.orders") == {"owner": "ops"}
    spark.catalog.createDatabase("scratch", ifNotExists=True)
    spark.catalog.dropTable("cat_ext")
    assert os.listdir(ext)  # an external table's files stay
    spark.catalog.dropDatabase("scratch")
    assert not spark.catalog.databaseExists("scratch")


def test_global_temp_views_and_lookup_order(server, spark):
    spark.range(2).createGlobalTempView("gv")
    with pytest.raises(AnalysisException) as e:
        spark.range(1).createGlobalTempView("gv")
    assert condition(e) == "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"
    with pytest.raises(AnalysisException) as e:
        spark.table("gv").collect()  # an unqualified name never finds a global view
    assert condition(e) == "TABLE_OR_VIEW_NOT_FOUND"
    assert rows(spark.sql("SELECT * FROM global_temp.gv")) == [(0,), (1,)]
    spark.range(1).createOrReplaceTempView("lv")
    listed = [(t.name, t.namespace, t.isTemporary) for t in spark.catalog.listTables("global_temp")]
    assert listed == [("gv", ["global_temp"], True), ("lv", [], True)]
    assert [tuple(r) for r in spark.sql("SHOW TABLES IN global_temp").collect()] == [
        ("global_temp", "gv", True), ("", "lv", True)]
    assert spark.catalog.tableExists("global_temp.gv") and spark.catalog.tableExists("gv", "global_temp")
    assert spark.catalog.getTable("global_temp.gv").namespace == ["global_temp"]
    assert [c.name for c in spark.catalog.listColumns("global_temp.gv")] == ["id"]

    # Shared by the server's sessions; temp views are not.
    other = session(server)
    try:
        assert rows(other.table("global_temp.gv")) == [(0,), (1,)]
        with pytest.raises(AnalysisException):
            other.table("lv").collect()
        other.range(5, 6).createOrReplaceGlobalTempView("gv")
    finally:
        other.stop()
    assert rows(spark.table("global_temp.gv")) == [(5,)]
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE DATABASE global_temp")
    assert condition(e) == "_LEGACY_ERROR_TEMP_1066"
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT * FROM global_temp.gv VERSION AS OF 1").collect()
    assert condition(e) == "UNSUPPORTED_FEATURE.TIME_TRAVEL"
    spark.sql("DROP VIEW global_temp.gv")
    assert spark.catalog.dropGlobalTempView("gv") is False
    spark.range(1).createGlobalTempView("gv")
    assert spark.catalog.dropGlobalTempView("gv") is True
    with pytest.raises(AnalysisException) as e:
        spark.sql("DROP VIEW global_temp.gv")
    assert condition(e) == "TABLE_OR_VIEW_NOT_FOUND"

    # Lookup order: a temp view hides a table of the same name; a qualified name reaches it.
    spark.sql("CREATE TABLE shadow USING parquet AS SELECT 'table' AS src")
    spark.sql("CREATE TEMP VIEW shadow AS SELECT 'view' AS src")
    assert spark.table("shadow").first().src == "view"
    assert spark.table("default.shadow").first().src == "table"
    spark.catalog.dropTempView("shadow")
    assert spark.table("shadow").first().src == "table"
    spark.sql("DROP TABLE shadow")


def test_stream_into_and_out_of_tables(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"n": 1}\n{"n": 2}\n')
    q = (spark.readStream.schema("n LONG").json(str(src)).writeStream
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).toTable("streamed"))
    q.awaitTermination()
    assert rows(spark.table("streamed")) == [(1,), (2,)]
    assert spark.catalog.getTable("streamed").tableType == "MANAGED"
    q = (spark.readStream.table("streamed").writeStream.format("memory").queryName("from_table")
         .trigger(availableNow=True).start())
    q.awaitTermination()
    assert rows(spark.table("from_table")) == [(1,), (2,)]


def test_errors(spark):
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT * FROM nosuch")
    assert condition(e) == "TABLE_OR_VIEW_NOT_FOUND"
    with pytest.raises(AnalysisException) as e:
        spark.sql("DROP TABLE nosuch")
    assert condition(e) == "TABLE_OR_VIEW_NOT_FOUND" and "`spark_catalog`.`default`.`nosuch`" in str(e.value)
    spark.sql("DROP TABLE IF EXISTS nosuch")
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE TABLE sales.orders (a INT) USING parquet")
    assert condition(e) == "TABLE_OR_VIEW_ALREADY_EXISTS"
    spark.sql("CREATE TABLE IF NOT EXISTS sales.orders (a INT) USING parquet")
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE OR REPLACE TABLE sales.orders (a INT) USING parquet")
    assert condition(e) == "UNSUPPORTED_FEATURE.TABLE_OPERATION"
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE DATABASE sales")
    assert condition(e) == "SCHEMA_ALREADY_EXISTS"
    with pytest.raises(AnalysisException) as e:
        spark.sql("USE nodb")
    assert condition(e) == "SCHEMA_NOT_FOUND"
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE TABLE nodb.t (a INT) USING parquet")
    assert condition(e) == "SCHEMA_NOT_FOUND"
    with pytest.raises(AnalysisException) as e:
        spark.sql("DROP DATABASE sales")
    assert condition(e) == "SCHEMA_NOT_EMPTY"
    with pytest.raises(AnalysisException) as e:
        spark.sql("DROP VIEW sales.orders")
    assert condition(e) == "WRONG_COMMAND_FOR_OBJECT_TYPE"
    with pytest.raises(AnalysisException) as e:
        spark.sql("INSERT INTO sales.orders VALUES (1)")
    assert condition(e) == "INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS"


def test_restart_keeps_tables_then_drop_deletes_managed_files(server, spark, state):
    spark.stop()
    stop_server(server)
    restarted = start_server(["--state-dir", str(state)])
    try:
        spark = session(restarted)
        assert rows(spark.table("sales.orders").select("id", "day")) == [(1, "d1"), (3, "d3"), (4, "d2"), (5, "d1")]
        assert rows(spark.sql("SELECT * FROM sales.big")) == [(3, "c"), (4, "x"), (5, "y")]
        assert rows(spark.table("events")) == [(0,), (1,), (2,)]
        assert {t.name for t in spark.catalog.listTables("sales")} == {"big", "copy2", "orders"}
        warehouse = state / "warehouse"
        assert (warehouse / "events").exists()
        spark.sql("DROP TABLE events")
        assert not (warehouse / "events").exists()
        spark.sql("DROP DATABASE sales CASCADE")
        assert not (warehouse / "sales.db" / "orders").exists()
        assert [r.namespace for r in spark.sql("SHOW DATABASES").collect()] == ["default"]
        spark.stop()
    finally:
        stop_server(restarted)
        server.proc = restarted.proc  # the module fixture's stop finds it stopped
