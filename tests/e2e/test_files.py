"""File sinks and sources from stock PySpark: exactly-once parquet output read back, file streams."""
import json
import os
import time

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType


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
    # A plain Parquet reader, given the files the log lists, sees the same rows.
    import pyarrow.parquet as pq
    table = pq.ParquetDataset([e["path"][len("file://"):] for e in entries]).read()
    assert sorted(zip(table.column("value").to_pylist(), table.column("tens").to_pylist())) == \
        [(v, 10 * v) for v in range(7)]
    assert sum(e["size"] for e in entries) == sum(os.path.getsize(e["path"][len("file://"):]) for e in entries)


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
        # A file appearing later becomes a new epoch. It is placed atomically (written
        # elsewhere, then renamed in), as Spark's file source requires: the query polls the
        # directory every millisecond and could otherwise read it half written.
        time.sleep(0.01)
        staged = tmp_path / "c.json.staged"
        staged.write_text('{"id": 4, "name": "four"}\n')
        os.replace(staged, src / "c.json")
        q.processAllAvailable()
        rows = spark.sql("SELECT id FROM json_files ORDER BY id").collect()
        assert [r.id for r in rows] == [1, 2, 3, 4]
    finally:
        q.stop()


def test_text_stream_reads_files_written_in_place(spark, tmp_path):
    # Files written in place with open/write/close, as users and PySpark's own tests do: the
    # query polls the directory every millisecond and lists a file between its writer's open
    # and close, yet logs it only once written (settled: not empty, unchanged for 20 ms), so
    # every row arrives exactly once.
    src = tmp_path / "in_place"
    src.mkdir()
    q = (spark.readStream.format("text").load(str(src))
         .writeStream.format("memory").queryName("in_place_lines").start())
    try:
        want = []
        for i in range(10):
            with open(src / f"f{i}.txt", "w") as f:
                f.write(f"file {i} a\nfile {i} b\n")
            want += [f"file {i} a", f"file {i} b"]
            q.processAllAvailable()
            rows = spark.sql("SELECT value FROM in_place_lines").collect()
            assert sorted(r.value for r in rows) == sorted(want)
        # No epoch read a file cut short: each read one whole file.
        epochs = [p for p in q.recentProgress
                  if p["sources"][0]["startOffset"] != p["sources"][0]["endOffset"]]
        assert [p["numInputRows"] for p in epochs] == [2] * 10
    finally:
        q.stop()


def test_streaming_file_source_requires_a_schema(spark, tmp_path):
    with pytest.raises(Exception) as e:
        spark.readStream.format("json").load(str(tmp_path)).schema
    assert "Schema must be specified when creating a streaming source DataFrame." in str(e.value)
    text = spark.readStream.format("text").load(str(tmp_path))
    assert text.columns == ["value"]


def test_json_and_csv_sinks_write_sparks_text_forms(spark, tmp_path):
    df = rate_micro_batch(spark, 3, 1).selectExpr(
        "value", "CAST(value AS DOUBLE) / 2 AS half",
        "CASE WHEN value = 1 THEN NULL ELSE concat('v,', CAST(value AS STRING)) END AS label",
        "timestamp_micros(1704164645678000 + value * 1000000) AS ts")
    for fmt in ("json", "csv"):
        out = str(tmp_path / fmt)
        q = (df.writeStream.format(fmt).option("checkpointLocation", str(tmp_path / (fmt + "-cp")))
             .option("header", "true").trigger(availableNow=True).start(out))
        q.awaitTermination(60)
        assert q.exception() is None
        parts = sorted(p for p in os.listdir(out) if p.startswith("part-"))
        text = "".join(open(os.path.join(out, p)).read() for p in parts)
        if fmt == "json":
            assert text == (
                '{"value":0,"half":0.0,"label":"v,0","ts":"2024-01-02T03:04:05.678Z"}\n'
                '{"value":1,"half":0.5,"ts":"2024-01-02T03:04:06.678Z"}\n'
                '{"value":2,"half":1.0,"label":"v,2","ts":"2024-01-02T03:04:07.678Z"}\n')
            rows = spark.read.json(out).orderBy("value").collect()
            assert [(r.value, r.half, r.label) for r in rows] == [(0, 0.0, "v,0"), (1, 0.5, None), (2, 1.0, "v,2")]
        else:
            assert text == ('value,half,label,ts\n'
                            '0,0.0,"v,0",2024-01-02T03:04:05.678Z\n'
                            '1,0.5,,2024-01-02T03:04:06.678Z\n'
                            '2,1.0,"v,2",2024-01-02T03:04:07.678Z\n')
            rows = spark.read.option("header", "true").csv(out).orderBy("value").collect()
            assert [tuple(r) for r in rows] == [
                ("0", "0.0", "v,0", "2024-01-02T03:04:05.678Z"), ("1", "0.5", None, "2024-01-02T03:04:06.678Z"),
                ("2", "1.0", "v,2", "2024-01-02T03:04:07.678Z")]


def two_line_files(tmp_path, n):
    """A new directory of n text files f<i>.txt ("line <i>a", "line <i>b"), a second apart."""
    src = tmp_path / "lines"
    src.mkdir()
    for i in range(n):
        p = src / f"f{i}.txt"
        p.write_text(f"line {i}a\nline {i}b\n")
        os.utime(p, (1_700_000_000 + i, 1_700_000_000 + i))
    return src


def test_text_stream_max_files_per_trigger(spark, tmp_path):
    src = two_line_files(tmp_path, 3)
    q = (spark.readStream.format("text").option("maxFilesPerTrigger", 1).load(str(src))
         .writeStream.format("memory").queryName("text_lines").start())
    try:
        deadline = time.time() + 60
        while spark.sql("SELECT count(*) AS n FROM text_lines").first().n < 6 and time.time() < deadline:
            time.sleep(0.05)
        rows = spark.sql("SELECT value FROM text_lines").collect()
        assert sorted(r.value for r in rows) == ["line 0a", "line 0b", "line 1a", "line 1b", "line 2a", "line 2b"]
        # One file per epoch, oldest first.
        epochs = [p for p in q.recentProgress if p["numInputRows"]]
        assert [p["numInputRows"] for p in epochs] == [2, 2, 2]
        ends = [p["sources"][0]["endOffset"] for p in epochs]
        assert [json.loads(e) if isinstance(e, str) else e for e in ends] == [
            {"logOffset": 0}, {"logOffset": 1}, {"logOffset": 2}]
        assert epochs[0]["sources"][0]["description"] == "FileStreamSource[file://" + str(src) + "]"
    finally:
        q.stop()


def test_text_stream_available_now_max_files_per_trigger(spark, tmp_path):
    # availableNow reads the files there at start in epochs of maxFilesPerTrigger files (oldest
    # first), then stops; a file written later is left for the next run from the checkpoint.
    src = two_line_files(tmp_path, 5)
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")

    def run():
        q = (spark.readStream.format("text").option("maxFilesPerTrigger", 2).load(str(src))
             .writeStream.format("parquet").option("checkpointLocation", cp).trigger(availableNow=True).start(out))
        assert q.awaitTermination(60)
        assert q.exception() is None
        return q

    q = run()
    progress = q.recentProgress
    assert [p["numInputRows"] for p in progress] == [4, 4, 2]
    ends = [p["sources"][0]["endOffset"] for p in progress]
    assert [json.loads(e) if isinstance(e, str) else e for e in ends] == [
        {"logOffset": 0}, {"logOffset": 1}, {"logOffset": 2}]
    assert sorted(r.value for r in spark.read.parquet(out).collect()) == sorted(
        f"line {i}{s}" for i in range(5) for s in "ab")
    late = src / "f9.txt"
    late.write_text("line 9a\n")
    q = run()
    assert [p["numInputRows"] for p in q.recentProgress] == [1]
    assert len(spark.read.parquet(out).collect()) == 11


def test_text_stream_once_ignores_max_files_per_trigger(spark, tmp_path):
    # Trigger.Once reads every file there in one epoch whatever maxFilesPerTrigger, as Spark does.
    src = tmp_path / "lines"
    src.mkdir()
    for i in range(3):
        (src / f"f{i}.txt").write_text(f"line {i}\n")
    q = (spark.readStream.format("text").option("maxFilesPerTrigger", 1).load(str(src))
         .writeStream.format("memory").queryName("text_once").trigger(once=True).start())
    assert q.awaitTermination(60)
    assert q.exception() is None
    assert [p["numInputRows"] for p in q.recentProgress] == [3]
    assert sorted(r.value for r in spark.sql("SELECT value FROM text_once").collect()) == [
        "line 0", "line 1", "line 2"]


def test_parquet_sink_partition_by_reads_back_with_partition_columns(spark, tmp_path):
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")
    q = (rate_micro_batch(spark, 10).selectExpr("value", "value % 3 AS k")
         .writeStream.partitionBy("k").format("parquet").option("checkpointLocation", cp)
         .trigger(availableNow=True).start(out))
    q.awaitTermination(60)
    assert q.exception() is None
    assert sorted(d for d in os.listdir(out) if not d.startswith("_")) == ["k=0", "k=1", "k=2"]
    with open(os.path.join(out, "_spark_metadata", "0")) as f:
        entries = [json.loads(line) for line in f.read().split("\n")[1:]]
    listed = sorted(e["path"][len("file://"):] for e in entries)
    written = sorted(os.path.join(root, n) for root, _, names in os.walk(out)
                     for n in names if n.startswith("part-"))
    assert listed == written
    # The partition column lives in the directory names only.
    import pyarrow.parquet as pq
    assert pq.read_schema(listed[0]).names == ["value"]
    df = spark.read.parquet(out)
    assert [(f.name, f.dataType) for f in df.schema.fields] == [("value", LongType()), ("k", IntegerType())]
    rows = df.orderBy("value").collect()
    assert [(r.value, r.k) for r in rows] == [(v, v % 3) for v in range(10)]


def test_partition_by_unknown_column_and_memory_sink_are_refused(spark, tmp_path):
    df = rate_micro_batch(spark, 3).selectExpr("value", "value % 3 AS k")
    with pytest.raises(AnalysisException, match="Partition column `nope` not found"):
        (df.writeStream.partitionBy("nope").format("parquet")
         .option("checkpointLocation", str(tmp_path / "cp")).start(str(tmp_path / "out")))
    with pytest.raises(AnalysisException, match="'memory' does not support partitioning"):
        df.writeStream.partitionBy("k").format("memory").queryName("parts").start()


def test_json_reads_single_quoted_text_as_spark(spark, tmp_path):
    """Spark's JSON reader and from_json allow single quotes by default (Jackson's
    ALLOW_SINGLE_QUOTES): Python's str(dict) lines read as JSON."""
    (tmp_path / "a.json").write_text("{'partition': 0, 'epoch': 1, 's': 'it\\'s \"x\"'}\n")
    rows = spark.read.schema("partition INT, epoch INT, s STRING").json(str(tmp_path)).collect()
    assert [tuple(r) for r in rows] == [(0, 1, "it's \"x\"")]
    got = spark.sql("""SELECT from_json("{'a': 'b'}", 'a STRING').a AS a""").collect()
    assert got[0].a == "b"


def test_start_path_and_path_option_as_spark(spark, tmp_path):
    """start(path) with a "path" option set: Spark's error, unless the legacy behaviour lets the
    parameter win (PySpark's test_stream_save_options_overwrite)."""
    from pyspark.errors import AnalysisException

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("hello\n")
    df = spark.readStream.format("text").load(str(src))
    w = df.writeStream.format("parquet").option("path", str(tmp_path / "fake"))
    with pytest.raises(AnalysisException) as e:
        w.start(path=str(tmp_path / "out"), checkpointLocation=str(tmp_path / "chk0"))
    assert "There is a 'path' option set and start() is called with a path parameter" in str(e.value)
    spark.conf.set("spark.sql.legacy.pathOptionBehavior.enabled", "true")
    try:
        q = w.start(path=str(tmp_path / "out"), checkpointLocation=str(tmp_path / "chk"))
        q.processAllAvailable()
        q.stop()
    finally:
        spark.conf.unset("spark.sql.legacy.pathOptionBehavior.enabled")
    assert [r.value for r in spark.read.parquet(str(tmp_path / "out")).collect()] == ["hello"]
    assert not (tmp_path / "fake").exists()


def test_save_path_and_path_option_as_spark(spark, tmp_path):
    from pyspark.errors import AnalysisException

    df = spark.range(2)
    with pytest.raises(AnalysisException) as e:
        df.write.option("path", str(tmp_path / "fake")).parquet(str(tmp_path / "out"))
    assert "There is a 'path' option set and save() is called with a path parameter" in str(e.value)
    spark.conf.set("spark.sql.legacy.pathOptionBehavior.enabled", "true")
    try:
        df.write.option("path", str(tmp_path / "fake")).parquet(str(tmp_path / "out"))
    finally:
        spark.conf.unset("spark.sql.legacy.pathOptionBehavior.enabled")
    assert sorted(r.id for r in spark.read.parquet(str(tmp_path / "out")).collect()) == [0, 1]
    assert not (tmp_path / "fake").exists()
