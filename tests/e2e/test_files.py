"""File sinks and sources from stock PySpark: exactly-once parquet output read back, file streams."""
import json
import os
import time

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql.types import LongType, StringType, StructField, StructType


def rate_micro_batch(spark, rows_per_batch, partitions=2):
    return (spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", rows_per_batch).option("numPartitions", partitions).load())


def test_parquet_sink_available_now_reads_back_exactly(spark, tmp_path):
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")
    q = (rate_micro_batch(spark, 7).selectExpr("value", "value * 10 AS tens")
         .writeStream.format("parquet").option("checkpointLocation", cp)
         .trigger(availableNow=True).start(out))
    q.awaitTermination(60)
    assert q.exception() is None
    # Only committed files count: a stray part file without a log entry is ignored.
    with open(os.path.join(out, "part-00099-00000-stray.snappy.parquet"), "wb") as f:
        f.write(b"junk")
    rows = spark.read.parquet(out).orderBy("value").collect()
    assert [(r.value, r.tens) for r in rows] == [(v, 10 * v) for v in range(7)]
    log = sorted(os.listdir(os.path.join(out, "_spark_metadata")))
    assert log == ["0"]
    with open(os.path.join(out, "_spark_metadata", "0")) as f:
        lines = f.read().split("\n")
    assert lines[0] == "v1"
    entries = [json.loads(line) for line in lines[1:]]
    assert entries and all(e["action"] == "add" and e["path"].startswith("file:///") for e in entries)
    assert list(entries[0]) == ["path", "size", "isDir", "modificationTime", "blockReplication",
                                "blockSize", "action"]


def test_file_sink_needs_a_checkpoint_location(spark, tmp_path):
    with pytest.raises(AnalysisException) as e:
        rate_micro_batch(spark, 3).writeStream.format("json").start(str(tmp_path / "out"))
    assert 'checkpointLocation must be specified either through option("checkpointLocation", ...)' in str(e.value)


def test_json_file_stream_to_memory(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"id": 1, "name": "one"}\n{"id": 2}\n')
    (src / "b.json").write_text('{"id": 3, "name": "three"}\n')
    schema = StructType([StructField("id", LongType()), StructField("name", StringType())])
    df = spark.readStream.format("json").schema(schema).load(str(src))
    assert df.isStreaming and df.columns == ["id", "name"]
    q = df.writeStream.format("memory").queryName("json_files").start()
    try:
        q.processAllAvailable()
        rows = spark.sql("SELECT id, name FROM json_files ORDER BY id").collect()
        assert [(r.id, r.name) for r in rows] == [(1, "one"), (2, None), (3, "three")]
        # A file appearing later becomes a new epoch.
        time.sleep(0.01)
        (src / "c.json").write_text('{"id": 4, "name": "four"}\n')
        q.processAllAvailable()
        rows = spark.sql("SELECT id FROM json_files ORDER BY id").collect()
        assert [r.id for r in rows] == [1, 2, 3, 4]
    finally:
        q.stop()


def test_streaming_file_source_requires_a_schema(spark, tmp_path):
    with pytest.raises(Exception) as e:
        spark.readStream.format("json").load(str(tmp_path)).schema
    assert "Schema must be specified when creating a streaming source DataFrame." in str(e.value)
    text = spark.readStream.format("text").load(str(tmp_path))
    assert text.columns == ["value"]
