"""The server's edge seen from PySpark: config validated at set, result and message limits."""
import pytest

from conftest import start_server, stop_server


def test_invalid_time_zone_refused_at_set(spark):
    from pyspark.errors import IllegalArgumentException

    key = "spark.sql.session.timeZone"
    before = spark.conf.get(key)
    with pytest.raises(IllegalArgumentException) as caught:
        spark.conf.set(key, "Mars/Olympus")
    assert "[INVALID_CONF_VALUE.TIME_ZONE]" in str(caught.value)
    assert spark.conf.get(key) == before
    assert spark.sql("SELECT current_timezone() AS tz").collect()[0].tz == before
    try:
        spark.conf.set(key, "+08:00")
        row = spark.sql("SELECT current_timezone() AS tz, CAST(TIMESTAMP'1970-01-01 08:00:00' AS LONG) AS s").collect()[0]
        assert (row.tz, row.s) == ("+08:00", 0)
    finally:
        spark.conf.set(key, before)


def test_bad_values_keep_the_session_working(spark):
    from pyspark.errors import IllegalArgumentException

    with pytest.raises(IllegalArgumentException, match="should be boolean, but was maybe"):
        spark.conf.set("spark.sql.ansi.enabled", "maybe")
    with pytest.raises(IllegalArgumentException, match="must be positive"):
        spark.sql("SET spark.sql.shuffle.partitions=0")
    assert spark.conf.get("spark.sql.ansi.enabled") == "true"
    assert spark.range(3).count() == 3


def test_conf_lists_every_key_and_shuffle_partitions_is_used(spark):
    import os

    conf = dict(spark.conf.getAll)
    for key in ("spark.sql.shuffle.partitions", "spark.default.parallelism",
                "spark.weir.query.memoryBudgetBytes", "spark.sql.streaming.pollingDelay"):
        assert key in conf, key
    # Go's runtime.NumCPU counts the CPUs this process may run on, as sched_getaffinity does.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert conf["spark.default.parallelism"] == str(cores)
    assert conf["spark.sql.shuffle.partitions"] == conf["spark.default.parallelism"]
    assert conf["spark.weir.query.memoryBudgetBytes"] == "<undefined>"
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    try:
        df = spark.sql("SELECT id % 7 AS k, count(*) AS n FROM range(100) GROUP BY k")
        assert sorted(r.n for r in df.collect()) == [14, 14, 14, 14, 14, 15, 15]
    finally:
        spark.conf.unset("spark.sql.shuffle.partitions")
    assert spark.conf.get("spark.sql.shuffle.partitions") == conf["spark.default.parallelism"]


def test_max_result_size(spark):
    from pyspark.errors.exceptions.connect import SparkException

    spark.conf.set("spark.driver.maxResultSize", "64k")
    try:
        with pytest.raises(SparkException) as caught:
            spark.range(1_000_000).collect()
        assert "Total size of serialized results of" in str(caught.value)
        assert "is bigger than spark.driver.maxResultSize (64.0 KiB)" in str(caught.value)
        assert len(spark.range(1000).collect()) == 1000
    finally:
        spark.conf.unset("spark.driver.maxResultSize")
    assert len(spark.range(100_000).collect()) == 100_000


def test_max_inbound_message_size():
    from pyspark.errors.exceptions.connect import SparkConnectGrpcException
    from pyspark.sql import SparkSession

    server = start_server(["--max-inbound-message-size", "1m"])
    try:
        spark = SparkSession.builder.remote(server.url).create()
        with pytest.raises(SparkConnectGrpcException) as caught:
            spark.createDataFrame([("x" * (2 << 20),)], "s string").count()
        assert "RESOURCE_EXHAUSTED" in str(caught.value) and "larger than max" in str(caught.value)
        assert spark.range(5).count() == 5
        spark.stop()
    finally:
        stop_server(server)
