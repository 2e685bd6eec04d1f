"""Apache Iceberg tables from stock PySpark: USING iceberg (the default for managed tables),
SQL DDL and DML, the DataFrame writers, time travel, a server restart in between, streams into
(exactly once under SIGKILL) and out of Iceberg tables, and PyIceberg reading what Weir wrote
when it is installed. The server has its own state dir under the test's tmp_path: every DROP
that deletes files does so inside that dir's warehouse."""
import glob
import json
import os
import random
import signal
import time

import pytest
from pyspark.errors import AnalysisException

from conftest import session_of, start_server, stop_server
import crash_harness


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return tmp_path_factory.mktemp("iceberg") / "state"


@pytest.fixture(scope="module")
def server(state):
    s = start_server(["--state-dir", str(state)])
    yield s
    stop_server(s)


@pytest.fixture(scope="module")
def spark(server):
    yield from session_of(server)


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def condition(excinfo):
    return excinfo.value.getCondition()


def metadata_files(location):
    return sorted(glob.glob(os.path.join(location, "metadata", "v*.metadata.json")),
                  key=lambda p: int(os.path.basename(p)[1:].split(".")[0]))


def current_metadata(location):
    with open(metadata_files(location)[-1]) as f:
        return json.load(f)


def test_sql_tables(spark, state):
    spark.sql("CREATE TABLE ice (id BIGINT, name STRING, day STRING) USING iceberg PARTITIONED BY (day)")
    spark.sql("INSERT INTO ice VALUES (1, 'a', 'mon'), (2, 'b', 'tue')")
    spark.sql("INSERT INTO ice SELECT 3, 'c', 'mon'")
    assert rows(spark.table("ice")) == [(1, "a", "mon"), (2, "b", "tue"), (3, "c", "mon")]
    assert rows(spark.sql("SELECT id FROM ice WHERE day = 'mon'")) == [(1,), (3,)]
    loc = spark.sql("DESCRIBE TABLE EXTENDED ice").where("col_name = 'Location'").first()[1]
    assert "USING iceberg" in spark.sql("SHOW CREATE TABLE ice").first()[0]
    meta = current_metadata(loc.removeprefix("file:"))
    assert meta["format-version"] == 2 and len(meta["snapshots"]) == 2

    # Dynamic partition overwrite replaces only the partitions the new rows hold.
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    spark.sql("INSERT OVERWRITE ice VALUES (9, 'z', 'tue')")
    assert rows(spark.table("ice")) == [(1, "a", "mon"), (3, "c", "mon"), (9, "z", "tue")]
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")
    spark.sql("INSERT OVERWRITE ice VALUES (7, 'q', 'wed')")
    assert rows(spark.table("ice")) == [(7, "q", "wed")]

    # Managed tables are Iceberg tables unless spark.sql.sources.default is set.
    spark.sql("CREATE TABLE dflt AS SELECT CAST(id AS SMALLINT) AS s, id FROM range(3)")
    assert "USING iceberg" in spark.sql("SHOW CREATE TABLE dflt").first()[0]
    assert [(c.name, c.dataType) for c in spark.catalog.listColumns("dflt")] == [("s", "int"), ("id", "bigint")]
    assert rows(spark.table("dflt")) == [(0, 0), (1, 1), (2, 2)]


def test_dataframe_writers_and_time_travel(spark, tmp_path):
    df = spark.range(4).selectExpr("id", "CAST(id % 2 AS STRING) AS k")
    df.write.partitionBy("k").saveAsTable("events")
    df.where("id < 2").write.mode("append").saveAsTable("events")
    assert spark.table("events").count() == 6
    spark.range(10, 12).selectExpr("id", "'1' AS k").writeTo("events").append()
    spark.range(20, 21).selectExpr("id", "'1' AS k").writeTo("events").overwritePartitions()
    assert rows(spark.table("events")) == [(0, "0"), (0, "0"), (2, "0"), (20, "1")]
    loc = spark.sql("DESCRIBE TABLE EXTENDED events").where("col_name = 'Location'").first()[1].removeprefix("file:")
    before = current_metadata(loc)["current-snapshot-id"]
    spark.range(2).selectExpr("id", "'x' AS k", "id * 2 AS d").writeTo("events").createOrReplace()
    assert rows(spark.table("events")) == [(0, "x", 0), (1, "x", 2)]
    # The replace keeps the table's history: the snapshots before it, with their schema.
    meta = current_metadata(loc)
    assert any(s["snapshot-id"] == before for s in meta["snapshots"]) and len(meta["schemas"]) == 2
    assert rows(spark.sql(f"SELECT * FROM events VERSION AS OF {before}")) == [(0, "0"), (0, "0"), (2, "0"), (20, "1")]
    spark.range(3).writeTo("v2ice").using("iceberg").create()
    spark.range(3, 5).writeTo("v2ice").overwrite(__import__("pyspark.sql.functions", fromlist=["lit"]).lit(True))
    assert rows(spark.table("v2ice")) == [(3,), (4,)]

    # A path table: df.write.format("iceberg"), and reads as of a snapshot or a time.
    path = str(tmp_path / "path_table")
    spark.range(3).write.format("iceberg").save(path)
    first = current_metadata(path)["current-snapshot-id"]
    time.sleep(0.01)
    cut = int(time.time() * 1000)
    time.sleep(0.01)
    spark.range(3, 5).write.format("iceberg").mode("append").save(path)
    assert spark.read.format("iceberg").load(path).count() == 5
    assert rows(spark.read.format("iceberg").option("snapshot-id", str(first)).load(path)) == [(0,), (1,), (2,)]
    assert spark.read.format("iceberg").option("as-of-timestamp", str(cut)).load(path).count() == 3
    with pytest.raises(AnalysisException) as e:
        spark.range(1).write.format("iceberg").save(path)
    assert condition(e) == "PATH_ALREADY_EXISTS"

    # An external table over it.
    spark.sql(f"CREATE TABLE ext_ice USING iceberg LOCATION '{path}'")
    assert spark.table("ext_ice").count() == 5
    spark.sql("DROP TABLE ext_ice")
    assert metadata_files(path)  # an external table's files stay


def test_sql_time_travel(spark):
    spark.sql("CREATE TABLE tt (id BIGINT) USING iceberg")
    spark.sql("INSERT INTO tt VALUES (1)")
    loc = spark.sql("DESCRIBE TABLE EXTENDED tt").where("col_name = 'Location'").first()[1].removeprefix("file:")
    first = current_metadata(loc)["current-snapshot-id"]
    first_ms = current_metadata(loc)["snapshots"][-1]["timestamp-ms"]
    time.sleep(0.02)
    spark.sql("INSERT INTO tt VALUES (2)")
    assert rows(spark.table("tt")) == [(1,), (2,)]
    for clause in (f"VERSION AS OF {first}", f"FOR SYSTEM_VERSION AS OF {first}", f"VERSION AS OF '{first}'"):
        assert rows(spark.sql(f"SELECT * FROM tt {clause}")) == [(1,)], clause
    at = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(first_ms // 1000)) + ".%03d" % (first_ms % 1000)
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    for clause in (f"TIMESTAMP AS OF '{at}'", f"FOR SYSTEM_TIME AS OF '{at}'",
                   f"TIMESTAMP AS OF CAST('{at}' AS TIMESTAMP) + INTERVAL 1 MILLISECOND"):
        assert rows(spark.sql(f"SELECT t.id FROM tt {clause} AS t")) == [(1,)], clause
    assert rows(spark.sql("SELECT * FROM tt TIMESTAMP AS OF current_timestamp()")) == [(1,), (2,)]
    assert rows(spark.read.option("snapshot-id", str(first)).table("tt")) == [(1,)]
    assert rows(spark.read.option("versionAsOf", str(first)).table("tt")) == [(1,)]
    assert rows(spark.read.option("timestampAsOf", at).table("tt")) == [(1,)]
    assert rows(spark.read.option("as-of-timestamp", str(first_ms)).table("tt")) == [(1,)]

    # Spark's errors (Iceberg's runtime's for the snapshots that are not there).
    with pytest.raises(Exception, match="Cannot find snapshot with ID 12345"):
        spark.sql("SELECT * FROM tt VERSION AS OF 12345").collect()
    with pytest.raises(Exception, match="Cannot find matching snapshot ID or reference name for version nope"):
        spark.sql("SELECT * FROM tt VERSION AS OF 'nope'").collect()
    with pytest.raises(Exception, match="Cannot find a snapshot older than 2000-01-01T00:00:00"):
        spark.sql("SELECT * FROM tt TIMESTAMP AS OF '2000-01-01'").collect()
    spark.sql("CREATE TABLE tt_pq (id BIGINT) USING parquet")
    spark.range(1).createOrReplaceTempView("tt_view")
    for sql, name in (("SELECT * FROM tt_pq VERSION AS OF 1", "`spark_catalog`.`default`.`tt_pq`"),
                      ("SELECT * FROM tt_view TIMESTAMP AS OF '2020-01-01'", "`tt_view`")):
        with pytest.raises(AnalysisException) as e:
            spark.sql(sql).collect()
        assert condition(e) == "UNSUPPORTED_FEATURE.TIME_TRAVEL" and name in str(e.value)
    with pytest.raises(AnalysisException) as e:
        spark.read.option("versionAsOf", "1").option("timestampAsOf", at).table("tt").collect()
    assert condition(e) == "INVALID_TIME_TRAVEL_SPEC"
    for sql, cond in (("SELECT * FROM tt TIMESTAMP AS OF rand()", "INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.NON_DETERMINISTIC"),
                      ("SELECT * FROM tt TIMESTAMP AS OF 'abc'", "INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.INPUT")):
        with pytest.raises(AnalysisException) as e:
            spark.sql(sql).collect()
        assert condition(e) == cond
    with pytest.raises(Exception, match="cannot refer to any columns"):
        spark.sql("SELECT * FROM tt TIMESTAMP AS OF id").collect()
    spark.conf.unset("spark.sql.session.timeZone")


def test_delete_and_update_copy_on_write(spark):
    spark.sql("CREATE TABLE dml (id BIGINT, name STRING, day STRING) USING iceberg PARTITIONED BY (day)")
    spark.sql("INSERT INTO dml VALUES (1, 'a', 'mon'), (2, 'b', 'tue'), (3, 'c', 'mon'), (4, NULL, 'wed')")
    loc = spark.sql("DESCRIBE TABLE EXTENDED dml").where("col_name = 'Location'").first()[1].removeprefix("file:")
    before = current_metadata(loc)["current-snapshot-id"]
    spark.sql("DELETE FROM dml WHERE id = 2 OR name = 'zzz'")  # NULL names are kept (condition not true)
    assert rows(spark.table("dml")) == [(1, "a", "mon"), (3, "c", "mon"), (4, None, "wed")]
    meta = current_metadata(loc)
    assert meta["snapshots"][-1]["summary"]["operation"] == "overwrite"
    assert len(meta["snapshots"]) == 2  # one snapshot per statement
    spark.sql("UPDATE dml AS d SET name = upper(d.name), id = id * 10 WHERE day = 'mon'")
    assert rows(spark.table("dml")) == [(4, None, "wed"), (10, "A", "mon"), (30, "C", "mon")]
    spark.sql("UPDATE dml SET name = 'x'")
    assert {r.name for r in spark.table("dml").collect()} == {"x"}
    assert rows(spark.sql(f"SELECT id FROM dml VERSION AS OF {before}")) == [(1,), (2,), (3,), (4,)]
    spark.sql("DELETE FROM dml")
    assert spark.table("dml").count() == 0

    spark.sql("CREATE TABLE dml_pq (id BIGINT) USING parquet")
    for sql, op in (("DELETE FROM dml_pq WHERE id = 1", "DELETE"), ("UPDATE dml_pq SET id = 2", "UPDATE TABLE")):
        with pytest.raises(Exception) as e:
            spark.sql(sql).collect()
        assert e.value.getCondition() == "UNSUPPORTED_FEATURE.TABLE_OPERATION"
        assert f"`spark_catalog`.`default`.`dml_pq` does not support {op}." in str(e.value)
    with pytest.raises(AnalysisException) as e:
        spark.sql("DELETE FROM no_such_table WHERE id = 1")
    assert condition(e) == "TABLE_OR_VIEW_NOT_FOUND"
    with pytest.raises(AnalysisException) as e:
        spark.sql("UPDATE dml SET nope = 1")
    assert condition(e) == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_merge_into(spark):
    spark.sql("CREATE TABLE mt (id BIGINT, v STRING, day STRING) USING iceberg PARTITIONED BY (day)")
    spark.sql("INSERT INTO mt VALUES (1, 'a', 'mon'), (2, 'b', 'tue'), (3, 'c', 'mon'), (4, 'd', 'wed')")
    spark.createDataFrame([(1, "A", "mon", "u"), (2, "B", "tue", "d"), (5, "E", "fri", "u"), (6, "F", "sat", "x")],
                          "id long, v string, day string, op string").createOrReplaceTempView("src")
    loc = spark.sql("DESCRIBE TABLE EXTENDED mt").where("col_name = 'Location'").first()[1].removeprefix("file:")
    before = current_metadata(loc)["current-snapshot-id"]
    spark.sql("""MERGE INTO mt AS t USING src AS s ON t.id = s.id
        WHEN MATCHED AND s.op = 'd' THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = s.v || '!'
        WHEN NOT MATCHED AND s.op = 'u' THEN INSERT (id, v, day) VALUES (s.id, s.v, s.day)
        WHEN NOT MATCHED BY SOURCE AND t.id = 4 THEN UPDATE SET t.v = 'gone'""")
    assert rows(spark.table("mt")) == [(1, "A!", "mon"), (3, "c", "mon"), (4, "gone", "wed"), (5, "E", "fri")]
    meta = current_metadata(loc)
    assert meta["snapshots"][-1]["summary"]["operation"] == "overwrite"
    assert meta["snapshots"][-2]["snapshot-id"] == before  # one snapshot for the statement
    # UPDATE SET * / INSERT * by name; NOT MATCHED BY SOURCE THEN DELETE; a subquery source.
    spark.sql("""MERGE INTO mt USING (SELECT id, upper(v) AS v, 'sun' AS day FROM src WHERE id IN (1, 5, 6)) u
        ON mt.id = u.id - 2 WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED BY SOURCE THEN DELETE
        WHEN NOT MATCHED THEN INSERT *""")
    assert rows(spark.table("mt")) == [(1, "A", "sun"), (5, "E", "sun"), (6, "F", "sun")]
    dup = "MERGE INTO mt t USING (SELECT 5 AS id UNION ALL SELECT 5) s ON t.id = s.id WHEN MATCHED THEN "
    with pytest.raises(Exception) as e:
        spark.sql(dup + "UPDATE SET v = 'z'").collect()
    assert e.value.getCondition() == "MERGE_CARDINALITY_VIOLATION"
    spark.sql(dup + "DELETE")  # every match deletes: no cardinality check, as Spark
    # Only NOT MATCHED clauses: the new rows are appended.
    spark.sql("MERGE INTO mt USING src s ON mt.id = s.id WHEN NOT MATCHED AND s.op <> 'x' THEN INSERT *")
    assert rows(spark.table("mt")) == [(1, "A", "sun"), (2, "B", "tue"), (5, "E", "fri"), (6, "F", "sun")]
    assert current_metadata(loc)["snapshots"][-1]["summary"]["operation"] == "append"
    with pytest.raises(Exception) as e:
        spark.sql("MERGE INTO mt USING src s ON mt.id = s.id WHEN MATCHED THEN DELETE WHEN MATCHED THEN UPDATE SET *")
    assert e.value.getCondition() == "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION"
    # The DataFrame API (Spark Connect's MergeIntoTableCommand).
    from pyspark.sql.functions import col, expr, lit
    src = spark.table("src").alias("s")
    (src.mergeInto("mt", col("mt.id") == col("s.id"))
        .whenMatched(col("s.op") == "x").delete()
        .whenMatched().update({"v": expr("s.v || '?'")})
        .whenNotMatched().insertAll()
        .whenNotMatchedBySource().update({"day": lit("old")})
        .merge())
    assert rows(spark.table("mt")) == [(1, "A?", "sun"), (2, "B?", "tue"), (5, "E?", "fri")]
    with pytest.raises(AnalysisException) as e:
        src.mergeInto("mt", col("mt.id") == col("s.id")).merge()
    assert condition(e) == "NO_MERGE_ACTION_SPECIFIED"
    spark.sql("CREATE TABLE mt_pq (id BIGINT) USING parquet")
    with pytest.raises(Exception) as e:
        spark.sql("MERGE INTO mt_pq t USING src s ON t.id = s.id WHEN MATCHED THEN DELETE").collect()
    assert e.value.getCondition() == "UNSUPPORTED_FEATURE.TABLE_OPERATION"
    assert "`spark_catalog`.`default`.`mt_pq` does not support MERGE INTO TABLE." in str(e.value)


def test_create_or_replace_table_sql(spark):
    spark.sql("CREATE OR REPLACE TABLE rep (a INT) USING iceberg")  # created: no table yet
    spark.sql("INSERT INTO rep VALUES (1), (2)")
    loc = spark.sql("DESCRIBE TABLE EXTENDED rep").where("col_name = 'Location'").first()[1].removeprefix("file:")
    before = current_metadata(loc)["current-snapshot-id"]
    spark.sql("CREATE OR REPLACE TABLE rep USING iceberg PARTITIONED BY (p) AS SELECT 'x' AS b, 7 AS p")
    assert rows(spark.table("rep")) == [("x", 7)]
    assert spark.table("rep").columns == ["b", "p"]
    meta = current_metadata(loc)
    assert any(s["snapshot-id"] == before for s in meta["snapshots"]) and len(meta["schemas"]) == 2
    assert rows(spark.sql(f"SELECT * FROM rep VERSION AS OF {before}")) == [(1,), (2,)]
    spark.sql("CREATE OR REPLACE TABLE rep (z STRING) USING iceberg")  # empty, history kept
    assert spark.table("rep").count() == 0 and spark.table("rep").columns == ["z"]
    assert rows(spark.sql(f"SELECT * FROM rep VERSION AS OF {before}")) == [(1,), (2,)]
    spark.sql("CREATE TABLE rep_pq (a INT) USING parquet")
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE OR REPLACE TABLE rep_pq (a INT) USING parquet")
    assert condition(e) == "UNSUPPORTED_FEATURE.TABLE_OPERATION"


def test_errors(spark):
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE TABLE bad USING iceberg AS SELECT INTERVAL '1' DAY AS d")
    assert condition(e) == "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE"
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE TABLE ice (a INT) USING iceberg")
    assert condition(e) == "TABLE_OR_VIEW_ALREADY_EXISTS"


def test_streams_into_and_out_of_iceberg(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"n": 1}\n{"n": 2}\n')
    q = (spark.readStream.schema("n LONG").json(str(src)).writeStream
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).toTable("streamed"))
    q.awaitTermination()
    assert rows(spark.table("streamed")) == [(1,), (2,)]
    assert "USING iceberg" in spark.sql("SHOW CREATE TABLE streamed").first()[0]
    spark.sql("INSERT INTO streamed VALUES (3)")
    q = (spark.readStream.table("streamed").writeStream.format("memory").queryName("from_ice")
         .trigger(availableNow=True).start())
    q.awaitTermination()
    assert rows(spark.table("from_ice")) == [(1,), (2,), (3,)]


def test_stream_source_refuses_overwrites(spark, tmp_path):
    spark.sql("CREATE TABLE ow (n BIGINT) USING iceberg")
    spark.sql("INSERT INTO ow VALUES (1)")
    spark.sql("INSERT OVERWRITE ow VALUES (2)")
    spark.sql("INSERT INTO ow VALUES (3)")
    q = (spark.readStream.table("ow").writeStream.format("memory").queryName("ow_fail")
         .trigger(availableNow=True).start())
    with pytest.raises(Exception, match="Cannot process overwrite snapshot"):
        q.awaitTermination()
    q = (spark.readStream.option("streaming-skip-overwrite-snapshots", "true").table("ow").writeStream
         .format("memory").queryName("ow_skip").trigger(availableNow=True).start())
    q.awaitTermination()
    assert rows(spark.table("ow_skip")) == [(1,), (3,)]  # the appends' rows


def test_two_streams_append_to_one_table(spark, tmp_path):
    # Two queries commit many small epochs into one table at once: a commit lost to the other
    # query's is made again on the newer metadata, so no epoch's rows are lost or doubled.
    spark.sql("CREATE TABLE both_streams (q STRING, n BIGINT) USING iceberg")
    queries = []
    for name in ("a", "b"):
        src = tmp_path / f"src_{name}"
        src.mkdir()
        for f in range(12):
            (src / f"{f:02d}.json").write_text("".join(f'{{"n": {f * 10 + i}}}\n' for i in range(10)))
        queries.append(spark.readStream.schema("n LONG").option("maxFilesPerTrigger", 1).json(str(src))
                       .selectExpr(f"'{name}' AS q", "n").writeStream
                       .option("checkpointLocation", str(tmp_path / f"ck_{name}"))
                       .trigger(availableNow=True).toTable("both_streams"))
    for q in queries:
        q.awaitTermination()
    got = spark.table("both_streams").collect()
    assert len(got) == 240
    assert sorted((r.q, r.n) for r in got) == [(q, n) for q in ("a", "b") for n in range(120)]


def test_pyiceberg_reads_what_weir_wrote(spark, tmp_path):
    import pyiceberg  # scripts/python-requirements.txt: the test command installs it
    from pyiceberg.table import StaticTable

    path = str(tmp_path / "interop")
    spark.range(5).selectExpr("id", "CAST(id AS STRING) AS s").write.format("iceberg").save(path)
    t = StaticTable.from_metadata(metadata_files(path)[-1])
    got = t.scan().to_arrow()
    assert got.schema.names == ["id", "s"]
    assert sorted(got.column("id").to_pylist()) == [0, 1, 2, 3, 4]
    assert pyiceberg.__version__


def test_weir_reads_what_pyiceberg_wrote(spark, tmp_path):
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    wh = tmp_path / "pyice"
    wh.mkdir()
    cat = SqlCatalog("local", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
    cat.create_namespace("ns")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", None], pa.string())})
    t = cat.create_table("ns.people", schema=data.schema)
    t.append(data)
    t.append(pa.table({"id": pa.array([4], pa.int64()), "name": pa.array(["d"], pa.string())}))
    location = t.location().removeprefix("file://")
    spark.sql(f"CREATE TABLE from_py USING iceberg LOCATION '{location}'")
    assert [(c.name, c.dataType) for c in spark.catalog.listColumns("from_py")] == [("id", "bigint"), ("name", "string")]
    assert rows(spark.table("from_py")) == [(1, "a"), (2, "b"), (3, None), (4, "d")]
    assert rows(spark.sql("SELECT id FROM from_py WHERE id > 2")) == [(3,), (4,)]


def test_restart_keeps_tables(server, spark, state):
    from pyspark.sql import SparkSession

    spark.stop()
    stop_server(server)
    again = start_server(["--state-dir", str(state)])
    s = None
    try:
        s = SparkSession.builder.remote(again.url).create()
        assert rows(s.table("ice")) == [(7, "q", "wed")]
        assert rows(s.table("events")) == [(0, "x", 0), (1, "x", 2)]
        s.sql("DROP TABLE ice")
        with pytest.raises(AnalysisException) as e:
            s.table("ice").collect()
        assert condition(e) == "TABLE_OR_VIEW_NOT_FOUND"
        assert not os.path.exists(os.path.join(str(state), "warehouse", "ice"))
    finally:
        if s is not None:
            s.stop()  # a session left open keeps pytest from exiting
        stop_server(again)


def test_stream_exactly_once_under_sigkill(tmp_path):
    """A checkpointed rate-micro-batch → toTable query under repeated kill -9: the table holds
    each row exactly once, and one snapshot per epoch carrying the query id and epoch."""
    seed = int(os.environ.get("WEIR_CRASH_SEED", random.randrange(1 << 30)))
    kills = int(os.environ.get("WEIR_ICEBERG_KILLS", "4"))
    print(f"iceberg crash test: seed={seed} kills={kills}")
    rnd = random.Random(seed)
    state, cp = tmp_path / "state", str(tmp_path / "ck")
    for i in range(kills + 1):
        server = start_server(["--state-dir", str(state)])
        spark = crash_harness.session(server)
        try:
            q = (crash_harness.rate(spark).selectExpr("value").writeStream
                 .option("checkpointLocation", cp).trigger(processingTime="50 milliseconds").toTable("sunk"))
            deadline = time.time() + 20
            while time.time() < deadline and (q.lastProgress is None or q.lastProgress["batchId"] < 1):
                time.sleep(0.05)
            if i == kills:
                q.stop()
                got = [r[0] for r in spark.table("sunk").collect()]
                loc = spark.sql("DESCRIBE TABLE EXTENDED sunk").where("col_name = 'Location'").first()[1]
                spark.stop()
                stop_server(server)
                break
            time.sleep(rnd.uniform(0.0, 0.4))
        finally:
            if i < kills:
                os.kill(server.proc.pid, signal.SIGKILL)
                server.proc.wait()
                crash_harness.drop(spark)
    assert len(got) == len(set(got)), f"{len(got) - len(set(got))} rows twice"
    n = len(got)
    assert n > 0 and n % crash_harness.ROWS_PER_BATCH == 0
    assert sorted(got) == list(range(n)), "rows missing"
    meta = current_metadata(loc.removeprefix("file:"))
    epochs = [int(s["summary"]["weir.epoch-id"]) for s in meta["snapshots"]]
    assert len(epochs) == len(set(epochs)) == n // crash_harness.ROWS_PER_BATCH
