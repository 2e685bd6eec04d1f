"""DataFrame.inputFiles(): the files a plan's file reads list, as file:// URIs (Spark's answer
for a directory of part files: each part file)."""
import os


def _parts(path, suffix):
    return sorted("file://" + os.path.join(path, f) for f in os.listdir(path) if f.endswith(suffix))


def test_input_files_of_each_file_format(spark, tmp_path):
    for fmt, suffix in (("parquet", ".parquet"), ("json", ".json"), ("csv", ".csv"), ("text", ".txt")):
        path = str(tmp_path / fmt)
        df = spark.range(4).selectExpr("cast(id as string) AS v").repartition(2)
        df.write.format(fmt).save(path)
        files = spark.read.format(fmt).load(path).inputFiles()
        assert sorted(files) == _parts(path, suffix), (fmt, files)
        assert files


def test_input_files_through_operators_and_unions(spark, tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    spark.range(3).coalesce(1).write.parquet(a)
    spark.range(3).coalesce(1).write.parquet(b)
    df = spark.read.parquet(a).filter("id > 0").union(spark.read.parquet(b)).select("id")
    assert sorted(df.inputFiles()) == _parts(a, ".parquet") + _parts(b, ".parquet")
    # A self-union lists each file once.
    one = spark.read.parquet(a)
    assert one.union(one).inputFiles() == _parts(a, ".parquet")


def test_input_files_of_non_file_plans_are_empty(spark, tmp_path):
    assert spark.range(3).inputFiles() == []
    assert spark.createDataFrame([(1,)], "a int").inputFiles() == []
    path = str(tmp_path / "t")
    spark.range(3).write.parquet(path)
    assert spark.read.parquet(path).localCheckpoint().inputFiles() == []


def _fcols():
    from pyspark.sql import functions as F
    return [F.input_file_name().alias("n"), F.input_file_block_start().alias("s"),
            F.input_file_block_length().alias("l")]


def _whole_file(uri):
    """A whole-file block of uri: (uri, 0, its size), as Spark 4.2 answers for small files."""
    return (uri, 0, os.path.getsize(uri[len("file://"):]))


def test_input_file_functions_of_each_file_format(spark, tmp_path):
    for fmt, suffix in (("parquet", ".parquet"), ("json", ".json"), ("csv", ".csv"), ("text", ".txt")):
        path = str(tmp_path / fmt)
        spark.range(4).selectExpr("cast(id as string) AS v").repartition(2).write.format(fmt).save(path)
        rows = spark.read.format(fmt).load(path).select(*_fcols()).collect()
        assert len(rows) == 4, fmt
        got = {(r.n, r.s, r.l) for r in rows}
        assert got == {_whole_file(u) for u in _parts(path, suffix)}, (fmt, got)


def test_input_file_functions_schema_names_and_no_file(spark):
    from pyspark.sql import functions as F
    df = spark.range(2).select(F.input_file_name(), F.input_file_block_start(), F.input_file_block_length())
    assert df.columns == ["input_file_name()", "input_file_block_start()", "input_file_block_length()"]
    assert [(f.dataType.simpleString(), f.nullable) for f in df.schema] == [
        ("string", False), ("bigint", False), ("bigint", False)]
    assert [tuple(r) for r in df.collect()] == [("", -1, -1)] * 2


def test_input_file_name_in_filters_unions_udfs_and_past_shuffles(spark, tmp_path):
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType
    path = str(tmp_path / "p")
    spark.range(6).coalesce(1).write.parquet(path)
    (uri,) = _parts(path, ".parquet")
    d = spark.read.parquet(path)
    assert d.filter(F.input_file_name() == uri).count() == 6
    assert d.filter(F.input_file_block_length() == os.path.getsize(uri[len("file://"):])).count() == 6
    rows = d.union(spark.range(2)).select(*_fcols()).collect()
    assert sorted((r.n, r.s) for r in rows) == [("", -1)] * 2 + [(uri, 0)] * 6
    # PySpark's test_udf_with_input_file_name: the function as a Python UDF's argument.
    echo = F.udf(lambda p: p, StringType())
    assert d.select(echo(F.input_file_name())).first()[0] == uri
    # An exchange (repartition, sort, aggregation, distinct) or cached rows: no file, as Spark.
    for past in (d.repartition(3), d.orderBy("id"), d.groupBy((F.col("id") % 2).alias("k")).count(),
                 d.distinct()):
        assert {tuple(r) for r in past.select(*_fcols()).collect()} == {("", -1, -1)}


def test_input_file_name_over_a_join_of_two_reads_is_refused(spark, tmp_path):
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F
    path = str(tmp_path / "p")
    spark.range(3).write.parquet(path)
    d = spark.read.parquet(path)
    joined = d.join(d.withColumnRenamed("id", "id2"), F.col("id") == F.col("id2"))
    try:
        joined.select(F.input_file_name()).collect()
        raise AssertionError("expected MULTI_SOURCES_UNSUPPORTED_FOR_EXPRESSION")
    except AnalysisException as e:
        assert e.getCondition() == "MULTI_SOURCES_UNSUPPORTED_FOR_EXPRESSION", e


def test_input_file_name_of_a_file_stream(spark, tmp_path):
    from pyspark.sql import functions as F
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"v": 1}\n{"v": 2}\n')
    df = spark.readStream.format("json").schema("v INT").load(str(src)).select("v", *_fcols())
    q = df.writeStream.format("memory").queryName("input_file_stream").trigger(availableNow=True).start()
    try:
        q.awaitTermination(60)
        rows = spark.table("input_file_stream").collect()
    finally:
        q.stop()
    uri = "file://" + str(src / "a.json")
    assert sorted(tuple(r) for r in rows) == [(1, uri, 0, 18), (2, uri, 0, 18)]  # Spark 4.2's answer
