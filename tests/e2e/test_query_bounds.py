"""Bounded work per query (issue 10): a per-query memory budget, bounded line reads, partition counts.

Every case fails the query with a Spark-shaped error within seconds and the server keeps answering
with its RSS under 1 GiB (the cases' unbounded forms took 1.3 GB to 5 GB)."""

import os
import time

import pytest
from pyspark.errors import PySparkException

from conftest import rss_bytes, serve, session_of

RSS_BOUND = 1 << 30


# A server of this module's own: the bound is on what these cases make the server hold, not on
# what the rest of the suite left in a shared one (its heap floor, caches, GC's slack).
@pytest.fixture(scope="module")
def server():
    yield from serve()


@pytest.fixture(scope="module")
def spark(server):
    yield from session_of(server)


def refused(spark, server, run, *parts):
    began = time.time()
    with pytest.raises(PySparkException) as info:
        run()
    assert time.time() - began < 20
    for p in parts:
        assert p in str(info.value), str(info.value)
    assert spark.range(3).count() == 3
    assert rss_bytes(server.proc.pid) < RSS_BOUND


def test_devices_and_fifos_are_refused(spark, server, tmp_path):
    refused(spark, server, lambda: spark.read.text("/dev/zero").count(), "/dev/zero: it is a character device")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(spark, server, lambda: spark.read.text(str(fifo)).count(), "it is a named pipe (FIFO)")


def test_long_lines_fail_with_the_conf(spark, server, tmp_path):
    (tmp_path / "a.txt").write_text("short\n" + "x" * 5000 + "\n")
    spark.conf.set("spark.weir.files.maxLineBytes", "4k")
    try:
        refused(spark, server, lambda: spark.read.text(str(tmp_path)).count(),
                "FAILED_READ_FILE.NO_HINT", "Line 2 is longer than 4096 bytes", "spark.weir.files.maxLineBytes")
    finally:
        spark.conf.unset("spark.weir.files.maxLineBytes")
    assert spark.read.text(str(tmp_path)).count() == 2


def test_query_over_its_memory_budget_fails(spark, server):
    spark.conf.set("spark.weir.query.memoryBudgetBytes", "64m")
    # ORDER BY … LIMIT runs as a bounded top-N heap: an offset of nearly all rows makes it hold them.
    try:
        refused(spark, server, lambda: spark.range(0, 20_000_000).orderBy("id", ascending=False).offset(19_999_990).limit(1).collect(),
                "UNABLE_TO_ACQUIRE_MEMORY", "memory budget of 67108864 bytes", "spark.weir.query.memoryBudgetBytes")
    finally:
        spark.conf.unset("spark.weir.query.memoryBudgetBytes")
    assert spark.range(0, 1_000_000).orderBy("id", ascending=False).limit(1).collect()[0].id == 999_999


def test_partition_counts(spark, server):
    refused(spark, server, lambda: spark.range(10).repartition(100000).count(),
            "The query needs 100000 partitions", "spark.weir.maxPartitions")
    refused(spark, server, lambda: spark.range(0, 10, 1, -1).count(), "Positive number of partitions required")
    refused(spark, server, lambda: spark.sql("SELECT * FROM range(0, 10, 1, 0)").count(),
            "Positive number of partitions required")
    assert spark.range(0, 0, 1, -1).count() == 0
    assert spark.range(10).repartition(1000).count() == 10
