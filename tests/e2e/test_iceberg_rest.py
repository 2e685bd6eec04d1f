"""Iceberg tables in a REST catalog configured as Iceberg's Spark runtime takes one
(spark.sql.catalog.NAME = org.apache.iceberg.spark.SparkCatalog, .type = rest, .uri, ...),
against Apache Iceberg's own REST catalog fixture server (scripts/iceberg-rest.sh: the
RESTCatalogServer of iceberg-open-api's test fixtures, a JdbcCatalog with its files on the local
file system), not a mock. The catalog is the server's configuration (weir --conf) for one session
and the session's own (spark.conf.set) for another. PyIceberg reads what Weir wrote through the
same catalog.

ICEBERG_REST_URI points at a running catalog server; without it the fixture starts one of its
own (the first run downloads its jars from Maven Central). A catalog server that cannot start
fails the tests with its log: nothing is skipped."""
import os
import subprocess
import time

import pytest
from pyspark.errors import AnalysisException

from conftest import serve, session_of

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "iceberg-rest.sh")
CATALOG = "org.apache.iceberg.spark.SparkCatalog"


@pytest.fixture(scope="module")
def catalog_uri(tmp_path_factory):
    if os.environ.get("ICEBERG_REST_URI"):
        yield os.environ["ICEBERG_REST_URI"]
        return
    env = {**os.environ, "WEIR_ICEBERG_REST_RUN": str(tmp_path_factory.mktemp("iceberg-rest-run"))}
    out = subprocess.run([SCRIPT, "start"], capture_output=True, text=True, timeout=900, env=env)
    assert out.returncode == 0, f"the Iceberg REST catalog server did not start:\n{out.stderr}"
    try:
        yield out.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([SCRIPT, "stop"], check=False, timeout=60, env=env)


@pytest.fixture(scope="module")
def server(catalog_uri, tmp_path_factory):
    state = tmp_path_factory.mktemp("iceberg-rest") / "state"
    yield from serve(["--state-dir", str(state),
                     "--conf", f"spark.sql.catalog.lake={CATALOG}",
                     "--conf", "spark.sql.catalog.lake.type=rest",
                     "--conf", f"spark.sql.catalog.lake.uri={catalog_uri}",
                     "--conf", "spark.sql.catalog.lake.header.X-Weir-Test=1"])


@pytest.fixture(scope="module")
def spark(server):
    yield from session_of(server)


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def test_sql_ddl_and_dml(spark):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.db")
    spark.sql("CREATE TABLE lake.db.t (id BIGINT, name STRING) USING iceberg")
    spark.sql("INSERT INTO lake.db.t VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO lake.db.t VALUES (3, 'c')")
    assert rows(spark.sql("SELECT * FROM lake.db.t")) == [(1, "a"), (2, "b"), (3, "c")]
    assert rows(spark.table("lake.db.t").where("id > 1")) == [(2, "b"), (3, "c")]
    assert [r.tableName for r in spark.sql("SHOW TABLES IN lake.db").collect()] == ["t"]
    with pytest.raises(AnalysisException) as e:
        spark.sql("CREATE TABLE lake.db.t (x INT)")
    assert e.value.getCondition() == "TABLE_OR_VIEW_ALREADY_EXISTS"
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT * FROM lake.db.missing").collect()
    assert e.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    # DELETE / UPDATE are copy-on-write snapshots committed through the catalog.
    spark.sql("DELETE FROM lake.db.t WHERE id = 2")
    spark.sql("UPDATE lake.db.t SET name = 'z' WHERE id = 3")
    assert rows(spark.table("lake.db.t")) == [(1, "a"), (3, "z")]
    spark.createDataFrame([(3, "m"), (4, "n")], "id BIGINT, name STRING").createOrReplaceTempView("src")
    spark.sql("MERGE INTO lake.db.t t USING src s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT *")
    assert rows(spark.table("lake.db.t")) == [(1, "a"), (3, "m"), (4, "n")]


def test_time_travel(spark, catalog_uri):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.tt")
    spark.sql("CREATE TABLE lake.tt.t (id INT) USING iceberg")
    spark.sql("INSERT INTO lake.tt.t VALUES (1)")
    from pyiceberg.catalog.rest import RestCatalog

    cat = RestCatalog("lake", uri=catalog_uri)
    first = cat.load_table("tt.t").current_snapshot().snapshot_id
    spark.sql("INSERT INTO lake.tt.t VALUES (2)")
    assert rows(spark.sql(f"SELECT * FROM lake.tt.t VERSION AS OF {first}")) == [(1,)]
    assert rows(spark.read.option("snapshot-id", str(first)).table("lake.tt.t")) == [(1,)]
    assert rows(spark.table("lake.tt.t")) == [(1,), (2,)]


def test_ctas_writeto_and_pyiceberg_reads(spark, catalog_uri):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.w")
    spark.sql("CREATE TABLE lake.w.ctas USING iceberg PARTITIONED BY (p) AS "
              "SELECT id, CAST(id % 2 AS INT) AS p FROM range(6)")
    assert rows(spark.table("lake.w.ctas")) == [(i, i % 2) for i in range(6)]
    df = spark.createDataFrame([(1, "x"), (2, "y")], "k INT, v STRING")
    df.writeTo("lake.w.v2").create()
    spark.createDataFrame([(3, "z")], "k INT, v STRING").writeTo("lake.w.v2").append()
    assert rows(spark.table("lake.w.v2")) == [(1, "x"), (2, "y"), (3, "z")]
    spark.createDataFrame([(9, "o")], "k INT, v STRING").writeTo("lake.w.v2").overwrite(
        __import__("pyspark.sql.functions", fromlist=["lit"]).lit(True))
    assert rows(spark.table("lake.w.v2")) == [(9, "o")]

    from pyiceberg.catalog.rest import RestCatalog

    cat = RestCatalog("lake", uri=catalog_uri)
    assert ("w", "ctas") in cat.list_tables("w")
    t = cat.load_table("w.ctas")
    assert sorted(t.scan().to_arrow().to_pylist(), key=lambda r: r["id"]) == \
        [{"id": i, "p": i % 2} for i in range(6)]
    assert [f.name for f in t.spec().fields] == ["p"]
    assert cat.load_table("w.v2").scan().to_arrow().to_pylist() == [{"k": 9, "v": "o"}]
    # And Weir reads what PyIceberg commits through the same catalog.
    import pyarrow as pa

    cat.load_table("w.v2").append(pa.table({"k": pa.array([10], pa.int32()), "v": ["p"]}))
    assert rows(spark.table("lake.w.v2")) == [(9, "o"), (10, "p")]


def test_drop_table_and_namespace(spark, catalog_uri):
    spark.sql("CREATE NAMESPACE lake.d")
    spark.sql("CREATE TABLE lake.d.gone (a INT)")
    spark.sql("INSERT INTO lake.d.gone VALUES (1)")
    loc = spark.sql("DESCRIBE TABLE EXTENDED lake.d.gone").where("col_name = 'Location'").collect()[0].data_type
    with pytest.raises(AnalysisException) as e:
        spark.sql("DROP NAMESPACE lake.d")
    assert e.value.getCondition() == "SCHEMA_NOT_EMPTY"
    spark.sql("DROP TABLE lake.d.gone")
    assert spark.sql("SHOW TABLES IN lake.d").collect() == []
    # DROP TABLE without PURGE leaves the files, as Iceberg's catalogs do.
    assert os.path.isdir(os.path.join(loc.removeprefix("file:"), "data"))
    spark.sql("DROP NAMESPACE lake.d")
    from pyiceberg.catalog.rest import RestCatalog

    assert ("d",) not in RestCatalog("lake", uri=catalog_uri).list_namespaces()


def test_session_conf_catalog_and_stream_exactly_once(server, catalog_uri, tmp_path):
    """A catalog the session configures itself; writeStream.toTable into it records each
    epoch's query id in the snapshot summary, and a restarted query writes no epoch twice."""
    from pyspark.sql import SparkSession

    s = SparkSession.builder.remote(server.url).create()
    try:
        s.conf.set("spark.sql.catalog.mine", CATALOG)
        s.conf.set("spark.sql.catalog.mine.type", "rest")
        s.conf.set("spark.sql.catalog.mine.uri", catalog_uri)
        s.sql("CREATE NAMESPACE IF NOT EXISTS mine.s")
        src = tmp_path / "in"
        src.mkdir()
        (src / "a.json").write_text('{"n": 1}\n{"n": 2}\n')
        ckpt = str(tmp_path / "ckpt")

        def run():
            q = (s.readStream.schema("n BIGINT").json(str(src)).writeStream
                 .option("checkpointLocation", ckpt).trigger(availableNow=True).toTable("mine.s.events"))
            q.awaitTermination(120)
            return q

        q = run()
        assert rows(s.table("mine.s.events")) == [(1,), (2,)]
        (src / "b.json").write_text('{"n": 3}\n')
        run()
        assert rows(s.table("mine.s.events")) == [(1,), (2,), (3,)]
        # A rerun with nothing new adds nothing; every snapshot is the query's, one per epoch.
        run()
        assert rows(s.table("mine.s.events")) == [(1,), (2,), (3,)]
        from pyiceberg.catalog.rest import RestCatalog

        t = RestCatalog("mine", uri=catalog_uri).load_table("s.events")
        summaries = [snap.summary for snap in t.snapshots()]
        epochs = [int(x["weir.epoch-id"]) for x in summaries if x.get("weir.query-id") == q.id]
        assert epochs == sorted(set(epochs)) and len(epochs) == 2
    finally:
        s.stop()


def test_catalog_errors(spark, server):
    from pyspark.sql import SparkSession

    s = SparkSession.builder.remote(server.url).create()
    try:
        s.conf.set("spark.sql.catalog.bad", CATALOG)
        s.conf.set("spark.sql.catalog.bad.type", "hive")
        with pytest.raises(Exception) as e:
            s.sql("CREATE NAMESPACE bad.x")
        assert "type rest" in str(e.value)
    finally:
        s.stop()
    with pytest.raises(AnalysisException) as e:
        spark.sql("SELECT * FROM nosuch.db.t").collect()
    assert e.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"


def test_dropped_table_location_is_not_recreated_as_a_directory_table(spark):
    """A path write to the location of a table the REST catalog dropped does not make a
    Hadoop-style table there behind the catalog's back."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.p")
    spark.sql("CREATE TABLE lake.p.t (a INT)")
    spark.sql("INSERT INTO lake.p.t VALUES (1)")
    loc = spark.sql("DESCRIBE TABLE EXTENDED lake.p.t").where("col_name = 'Location'").collect()[0].data_type
    spark.sql("DROP TABLE lake.p.t")
    with pytest.raises(Exception) as e:
        spark.createDataFrame([(2,)], "a INT").write.format("iceberg").mode("append").save(loc)
    assert "NoSuchTableException" in str(e.value) or "Table does not exist" in str(e.value)
    assert not any(n.startswith("v") for n in os.listdir(os.path.join(loc.removeprefix("file:"), "metadata")))
