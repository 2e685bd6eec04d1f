"""Batch writes (df.write): files written with Spark's layout (part files and _SUCCESS, no
_spark_metadata) and read back with spark.read, save modes with Spark's errors, and
df.write.format("kafka") read back with Kafka's own console consumer from a real broker."""
import os
import subprocess

import pytest
from pyspark.errors import AnalysisException
from pyspark.errors.exceptions.connect import SparkConnectGrpcException

from test_kafka import _classpath, kafka, topic_name  # noqa: F401  (the broker fixture)


def _rows(df):
    return sorted(tuple(r) for r in df.collect())


def _layout(path):
    names = sorted(os.listdir(path))
    assert "_SUCCESS" in names, names
    assert "_spark_metadata" not in names, names
    return [n for n in names if n.startswith("part-")]


@pytest.mark.parametrize("fmt", ["parquet", "json", "csv", "text"])
def test_write_files_and_read_back(spark, tmp_path, fmt):
    out = str(tmp_path / fmt)
    if fmt == "text":
        df = spark.range(5).selectExpr("CONCAT('line ', CAST(id AS STRING)) AS value")
        df.write.text(out)
        assert _rows(spark.read.text(out)) == [(f"line {i}",) for i in range(5)]
    else:
        df = spark.range(5).selectExpr("id", "CAST(id * 10 AS STRING) AS s", "id % 2 = 0 AS even")
        writer = df.write.format(fmt)
        if fmt == "csv":
            writer = writer.option("header", "true")
        writer.save(out)
        reader = spark.read.format(fmt).schema("id BIGINT, s STRING, even BOOLEAN")
        if fmt == "csv":
            reader = reader.option("header", "true")
        assert _rows(reader.load(out)) == [(i, str(i * 10), i % 2 == 0) for i in range(5)]
    parts = _layout(out)
    assert parts and all(p.endswith("-c000." + {"parquet": "snappy.parquet", "text": "txt"}.get(fmt, fmt))
                         for p in parts), parts
    # One job id for every file of the write, as Spark names them.
    assert len({p.split("-", 2)[2] for p in parts}) == 1, parts


def test_parquet_schema_is_kept(spark, tmp_path):
    out = str(tmp_path / "p")
    spark.sql("SELECT 1 AS a, 'x' AS b, CAST(2.5 AS DOUBLE) AS c").write.parquet(out)
    back = spark.read.parquet(out)
    assert [(f.name, f.dataType.simpleString()) for f in back.schema.fields] == [
        ("a", "int"), ("b", "string"), ("c", "double")]
    assert _rows(back) == [(1, "x", 2.5)]
    # An empty write still leaves a file with the schema.
    empty = str(tmp_path / "empty")
    spark.range(3).where("id > 10").write.parquet(empty)
    assert _layout(empty)
    assert spark.read.parquet(empty).columns == ["id"]
    assert spark.read.parquet(empty).count() == 0


def test_save_modes(spark, tmp_path):
    out = str(tmp_path / "modes")
    spark.range(2).write.json(out)
    with pytest.raises(AnalysisException) as e:
        spark.range(9).write.json(out)
    assert e.value.getCondition() == "PATH_ALREADY_EXISTS"
    assert f"Path file:{out} already exists" in str(e.value)
    with pytest.raises(AnalysisException):
        spark.range(9).write.mode("error").json(out)
    spark.range(9).write.mode("ignore").json(out)
    assert _rows(spark.read.schema("id BIGINT").json(out)) == [(0,), (1,)]
    spark.range(2, 4).write.mode("append").json(out)
    assert _rows(spark.read.schema("id BIGINT").json(out)) == [(0,), (1,), (2,), (3,)]
    spark.range(7, 8).write.mode("overwrite").json(out)
    assert _rows(spark.read.schema("id BIGINT").json(out)) == [(7,)]
    # Overwriting the path the query reads is refused, and the data stays.
    with pytest.raises(AnalysisException) as e:
        spark.read.schema("id BIGINT").json(out).write.mode("overwrite").json(out)
    assert e.value.getCondition() == "UNSUPPORTED_OVERWRITE.PATH"
    assert _rows(spark.read.schema("id BIGINT").json(out)) == [(7,)]


def test_partition_by(spark, tmp_path):
    out = str(tmp_path / "parts")
    spark.range(6).selectExpr("id", "id % 3 AS k").write.partitionBy("k").parquet(out)
    assert sorted(os.listdir(out)) == ["_SUCCESS", "k=0", "k=1", "k=2"]
    assert _rows(spark.read.parquet(out).select("id", "k")) == [(i, i % 3) for i in range(6)]


def test_writer_refusals(spark, tmp_path):
    df = spark.range(3)
    with pytest.raises(AnalysisException) as e:
        df.write.insertInto("no_such_table")
    assert e.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    with pytest.raises(AnalysisException) as e:
        df.write.bucketBy(2, "id").save(str(tmp_path / "b"))
    assert "'save' does not support bucketBy right now." in str(e.value)
    with pytest.raises(AnalysisException) as e:
        df.write.format("avro").save(str(tmp_path / "a"))
    assert e.value.getCondition() == "DATA_SOURCE_NOT_FOUND"
    stream = spark.readStream.format("rate").load()
    with pytest.raises(AnalysisException) as e:
        stream.write.format("noop").mode("append").save()
    assert e.value.getCondition() == "CALL_ON_STREAMING_DATASET_UNSUPPORTED"
    with pytest.raises(AnalysisException) as e:
        df.write.format("noop").save()
    assert "cannot be written with ErrorIfExists mode" in str(e.value)
    df.write.format("noop").mode("overwrite").save()


def consume(kafka, topic, n, committed=False, timeout_ms=30000, headers=False):
    """Reads n records of topic from the beginning with Kafka's console consumer, as
    "partition|key|value" lines (with headers: "partition|k1:v1,k2:v2|key|value"), sorted."""
    args = ["java", "-cp", _classpath(), "org.apache.kafka.tools.consumer.ConsoleConsumer",
            "--bootstrap-server", kafka, "--topic", topic, "--from-beginning",
            "--max-messages", str(n), "--timeout-ms", str(timeout_ms),
            "--property", "print.key=true", "--property", "print.partition=true",
            "--property", "key.separator=|", "--property", f"print.headers={str(headers).lower()}"]
    if committed:
        args += ["--isolation-level", "read_committed"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=timeout_ms / 1000 + 60)
    lines = [l for l in out.stdout.splitlines() if l.startswith("Partition:")]
    return sorted(l.removeprefix("Partition:") for l in lines)


def test_kafka_batch_write_read_back_with_a_kafka_client(spark, kafka):
    topic = topic_name("batch-write")
    other = topic_name("batch-write-row-topic")
    df = spark.range(6).selectExpr("CAST(id AS STRING) AS key", "CONCAT('v', CAST(id AS STRING)) AS value",
                                   "CAST(0 AS INT) AS partition")
    (df.write.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", topic).save())
    assert consume(kafka, topic, 6) == sorted(f"0|{i}|v{i}" for i in range(6))
    # The topic column routes rows when no topic option is given; a null key is allowed.
    # Headers travel as an array of (key string, value binary) structs.
    rows = spark.range(3).selectExpr(f"'{other}' AS topic", "CAST(NULL AS STRING) AS key",
                                     "CAST(CAST(id AS STRING) AS BINARY) AS value",
                                     "array(named_struct('key', 'h', 'value', CAST(CONCAT('x', CAST(id AS STRING)) AS BINARY)))"
                                     " AS headers")
    rows.write.format("kafka").option("kafka.bootstrap.servers", kafka).mode("append").save()
    assert consume(kafka, other, 3, headers=True) == ["0|h:x0|null|0", "0|h:x1|null|1", "0|h:x2|null|2"]


def test_kafka_batch_write_errors(spark, kafka):
    base = spark.range(2).selectExpr("CAST(id AS STRING) AS value")
    with pytest.raises(AnalysisException) as e:
        spark.range(2).selectExpr("CAST(id AS STRING) AS key").write.format("kafka") \
            .option("kafka.bootstrap.servers", kafka).option("topic", "t").save()
    assert "Required attribute 'value' not found" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        base.write.format("kafka").option("kafka.bootstrap.servers", kafka).save()
    assert "topic option required when no 'topic' attribute is present" in str(e.value)
    with pytest.raises(AnalysisException) as e:
        base.write.format("kafka").option("kafka.bootstrap.servers", kafka).option("topic", "t") \
            .mode("overwrite").save()
    assert "Save mode Overwrite not allowed for Kafka" in str(e.value)
