"""writeStream.foreach(writer) through the server's Python workers: per epoch and sink partition
one task runs open(partition_id, epoch_id), process(row) per row and close(error), as Spark's
PythonForeachWriter does; the epoch commits once every task ended cleanly."""
import json
import os
import time

import pytest
from pyspark.errors import StreamingQueryException
from pyspark.sql import functions as F


def put(src, name, rows):
    tmp = src / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.rename(tmp, src / name)


def stream_of(spark, tmp_path, rows):
    src = tmp_path / "src"
    src.mkdir()
    put(src, "a.json", rows)
    return src, spark.readStream.format("json").schema("k INT, v STRING").load(str(src))


def file_writer(out):
    """A writer logging its calls to one file per (partition, epoch) under out (defined in a
    function so that cloudpickle ships the class by value: the server's workers cannot import
    this test module)."""

    class FileWriter:
        def open(self, partition_id, epoch_id):
            self.f = open(os.path.join(out, f"p{partition_id}-e{epoch_id}.log"), "w")
            self.f.write(f"open {partition_id} {epoch_id}\n")
            return True

        def process(self, row):
            if row.v == "boom":
                raise ValueError(f"cannot write row {row.k}")
            self.f.write(f"process {row.k} {row.v}\n")

        def close(self, error):
            self.f.write(f"close {error!r}\n")
            self.f.close()

    return FileWriter()


def logs(out):
    return {name: (out / name).read_text() for name in sorted(os.listdir(out))}


def test_writer_object_opens_processes_and_closes_per_epoch(spark, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    src, stream = stream_of(spark, tmp_path, [{"k": 1, "v": "a"}, {"k": 2, "v": None}])
    q = stream.writeStream.foreach(file_writer(str(out))).start()
    try:
        q.processAllAvailable()
        put(src, "b.json", [{"k": 3, "v": "c"}])
        q.processAllAvailable()
        assert q.lastProgress["sink"]["numOutputRows"] == 1
    finally:
        q.stop()
    assert q.exception() is None
    assert logs(out) == {
        "p0-e0.log": "open 0 0\nprocess 1 a\nprocess 2 None\nclose None\n",
        "p0-e1.log": "open 0 1\nprocess 3 c\nclose None\n",
    }


def test_writer_function_gets_every_row(spark, tmp_path):
    out = tmp_path / "rows.txt"
    _, stream = stream_of(spark, tmp_path, [{"k": i, "v": f"x{i}"} for i in range(5)])

    def write(row):
        with open(out, "a") as f:
            f.write(f"{row.k}:{row.v}:{row.doubled}\n")

    q = stream.withColumn("doubled", F.col("k") * 2).writeStream.foreach(write).start()
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    assert sorted(out.read_text().splitlines()) == [f"{i}:x{i}:{2 * i}" for i in range(5)]


def test_writer_in_complete_mode_sees_the_whole_result(spark, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    src, stream = stream_of(spark, tmp_path, [{"k": 1, "v": "a"}, {"k": 1, "v": "b"}, {"k": 2, "v": "c"}])

    class Counts:
        def open(self, partition_id, epoch_id):
            self.rows = []
            self.path = os.path.join(str(out), f"e{epoch_id}")
            return True

        def process(self, row):
            self.rows.append(f"{row.k}={row['count']}")

        def close(self, error):
            with open(self.path, "a") as f:
                f.write("".join(r + "\n" for r in self.rows))

    q = stream.groupBy("k").count().writeStream.outputMode("complete").foreach(Counts()).start()
    try:
        q.processAllAvailable()
        put(src, "b.json", [{"k": 2, "v": "d"}])
        q.processAllAvailable()
    finally:
        q.stop()
    assert sorted((out / "e0").read_text().split()) == ["1=2", "2=1"]
    assert sorted((out / "e1").read_text().split()) == ["1=2", "2=2"]


def test_exception_in_process_fails_the_query_with_the_traceback(spark, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    src, stream = stream_of(spark, tmp_path, [{"k": 1, "v": "a"}])
    q = stream.writeStream.foreach(file_writer(str(out))).start()
    try:
        q.processAllAvailable()
        put(src, "b.json", [{"k": 2, "v": "b"}, {"k": 3, "v": "boom"}, {"k": 4, "v": "d"}])
        with pytest.raises(StreamingQueryException) as info:
            q.awaitTermination(60)
    finally:
        q.stop()
    msg = str(info.value)
    assert "Traceback (most recent call last)" in msg
    assert "ValueError: cannot write row 3" in msg
    assert q.exception() is not None and "cannot write row 3" in str(q.exception())
    # close got the error; the epoch did not commit, so its rows were not all written.
    assert logs(out)["p0-e1.log"] == "open 0 1\nprocess 2 b\nclose ValueError('cannot write row 3')\n"
    assert not q.isActive


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_stop_kills_a_writer_in_progress(spark, tmp_path):
    pid_file = tmp_path / "pid"
    _, stream = stream_of(spark, tmp_path, [{"k": 1, "v": "a"}])

    def slow(row):
        pid_file.write_text(str(os.getpid()))
        time.sleep(300)

    q = stream.writeStream.foreach(slow).start()
    deadline = time.time() + 60
    while not pid_file.exists() and time.time() < deadline:
        time.sleep(0.05)
    assert pid_file.exists(), "the writer never ran"
    pid = int(pid_file.read_text())
    assert alive(pid)
    q.stop()
    assert not q.isActive
    assert q.exception() is None  # stopped, not failed
    deadline = time.time() + 30
    while alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    assert not alive(pid), f"writer worker {pid} outlived the query"
    # The session's workers still run the next query's writer.
    out = tmp_path / "after.txt"
    src2 = tmp_path / "src2"
    src2.mkdir()
    put(src2, "a.json", [{"k": 7, "v": "z"}])
    q2 = spark.readStream.format("json").schema("k INT, v STRING").load(str(src2)).writeStream.foreach(
        lambda row: open(out, "a").write(f"{row.k}\n")).start()
    try:
        q2.processAllAvailable()
    finally:
        q2.stop()
    assert out.read_text() == "7\n"
