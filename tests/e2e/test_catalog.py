"""spark.catalog over Weir's catalog (the database "default", temporary views, functions), with
the answers Apache Spark 4.2's Connect server gives for the same calls."""
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql.catalog import CatalogMetadata, Column, Database, Table


@pytest.fixture
def views(spark):
    spark.range(3).createOrReplaceTempView("cat_v1")
    spark.sql("SELECT 'x' AS s, 1.5D AS d").createOrReplaceTempView("cat_v2")
    yield
    spark.catalog.dropTempView("cat_v1")
    spark.catalog.dropTempView("cat_v2")


def test_current_names(spark):
    assert spark.catalog.currentDatabase() == "default"
    assert spark.catalog.currentCatalog() == "spark_catalog"
    spark.catalog.setCurrentDatabase("default")
    spark.catalog.setCurrentCatalog("spark_catalog")
    assert spark.catalog.listCatalogs() == [CatalogMetadata(name="spark_catalog", description=None)]
    dbs = spark.catalog.listDatabases()
    assert [(d.name, d.catalog, d.description) for d in dbs] == [("default", "spark_catalog", "default database")]
    assert spark.catalog.databaseExists("default") is True
    assert spark.catalog.databaseExists("nodb") is False
    assert spark.catalog.getDatabase("default").name == "default"


def test_unknown_database_and_catalog(spark):
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_FOUND"):
        spark.catalog.setCurrentDatabase("nodb")
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_FOUND"):
        spark.catalog.listTables("nodb")
    with pytest.raises(AnalysisException, match="CATALOG_NOT_FOUND"):
        spark.catalog.setCurrentCatalog("other")


def test_tables_and_columns(spark, views):
    tables = [t for t in spark.catalog.listTables() if t.name.startswith("cat_")]
    assert tables == [
        Table(name="cat_v1", catalog=None, namespace=[], description=None, tableType="TEMPORARY", isTemporary=True),
        Table(name="cat_v2", catalog=None, namespace=[], description=None, tableType="TEMPORARY", isTemporary=True),
    ]
    assert [t.name for t in spark.catalog.listTables(pattern="cat_v1")] == ["cat_v1"]
    assert spark.catalog.getTable("cat_v2").tableType == "TEMPORARY"
    assert spark.catalog.tableExists("cat_v1") is True
    assert spark.catalog.tableExists("nope") is False
    assert spark.catalog.listColumns("cat_v2") == [
        Column(name="s", description=None, dataType="string", nullable=False, isPartition=False, isBucket=False, isCluster=False),
        Column(name="d", description=None, dataType="double", nullable=False, isPartition=False, isBucket=False, isCluster=False),
    ]
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.catalog.getTable("nope")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.catalog.listColumns("nope")


def test_drop_temp_view(spark):
    spark.range(1).createOrReplaceTempView("cat_drop")
    assert spark.catalog.dropTempView("cat_drop") is True
    assert spark.catalog.dropTempView("cat_drop") is False
    assert spark.catalog.tableExists("cat_drop") is False
    assert spark.catalog.dropGlobalTempView("cat_drop") is False


def test_cache_names(spark, views):
    assert spark.catalog.isCached("cat_v1") is False
    spark.catalog.cacheTable("cat_v1")
    assert spark.catalog.isCached("cat_v1") is True
    spark.catalog.uncacheTable("cat_v1")
    assert spark.catalog.isCached("cat_v1") is False
    spark.catalog.cacheTable("cat_v1")
    spark.catalog.clearCache()
    assert spark.catalog.isCached("cat_v1") is False
    spark.catalog.refreshTable("cat_v1")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.catalog.isCached("nope")


def test_functions(spark):
    assert spark.catalog.functionExists("abs") is True
    assert spark.catalog.functionExists("no_such_fn") is False
    f = spark.catalog.getFunction("abs")
    assert (f.name, f.isTemporary) == ("abs", True)
    names = [f.name for f in spark.catalog.listFunctions()]
    assert "abs" in names and "sum" in names and names == sorted(names)
    with pytest.raises(AnalysisException, match="UNRESOLVED_ROUTINE"):
        spark.catalog.getFunction("no_such_fn")


def test_partition_methods_are_refused_by_name(spark):
    with pytest.raises(Exception, match="catalog method RecoverPartitions is not supported"):
        spark.catalog.recoverPartitions("t_new")
