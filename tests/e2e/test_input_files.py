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
