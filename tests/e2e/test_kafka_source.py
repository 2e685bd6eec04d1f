"""The Kafka source's options against a real Apache Kafka broker (scripts/kafka-broker.sh): batch
reads with starting/ending offsets and timestamps, subscribePattern discovering a topic created
while the query runs, minOffsetsPerTrigger, processAllAvailable and availableNow under
maxOffsetsPerTrigger (read-limited epochs), minPartitions, SASL_PLAINTEXT, and Spark's option errors.

The broker's addresses come from KAFKA_BOOTSTRAP and KAFKA_SASL_BOOTSTRAP (or
`scripts/kafka-broker.sh sasl-address`); without KAFKA_BOOTSTRAP the fixture starts a broker of
its own (its state in a private WEIR_KAFKA_RUN directory) and stops it at the end.
"""
import json
import os
import subprocess
import tempfile
import time

import pytest

from test_kafka import produce, topic_name  # the console producer and unique topic names

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
SCRIPT = os.path.join(ROOT, "scripts", "kafka-broker.sh")

SASL_USER, SASL_PASSWORD = "weir", "weir-secret"
PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"


@pytest.fixture(scope="module")
def broker():
    """(plaintext address, SASL_PLAINTEXT address)."""
    addr = os.environ.get("KAFKA_BOOTSTRAP")
    if addr:
        sasl = os.environ.get("KAFKA_SASL_BOOTSTRAP") or subprocess.run(
            [SCRIPT, "sasl-address"], check=True, capture_output=True, text=True, timeout=60).stdout.strip()
        yield addr, sasl
        return
    env = {**os.environ, "WEIR_KAFKA_RUN": tempfile.mkdtemp(prefix="weir-kafka-run-")}
    out = subprocess.run([SCRIPT, "start"], check=True, capture_output=True, text=True, timeout=900, env=env)
    addr = out.stdout.strip().splitlines()[-1]
    sasl = subprocess.run([SCRIPT, "sasl-address"], check=True, capture_output=True, text=True, timeout=60,
                          env=env).stdout.strip()
    try:
        yield addr, sasl
    finally:
        subprocess.run([SCRIPT, "stop"], check=False, timeout=60, env=env)


@pytest.fixture(scope="module")
def kafka(broker):
    return broker[0]


def batch(spark, kafka: str, **options):
    reader = spark.read.format("kafka").option("kafka.bootstrap.servers", kafka)
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load().selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "topic",
                                    "partition", "`offset`")


def kv(rows):
    return [(r.k, r.v, r.offset) for r in sorted(rows, key=lambda r: (r.topic, r.partition, r.offset))]


def wait_rows(spark, table: str, n: int, timeout: float = 60):
    deadline = time.time() + timeout
    while True:
        rows = spark.sql(f"SELECT * FROM {table}").collect()
        if len(rows) >= n or time.time() > deadline:
            return rows
        time.sleep(0.2)


def test_batch_read_with_offsets_json(spark, kafka):
    topic = topic_name("bjson")
    produce(kafka, topic, ["k0:a", "k1:b", "k2:c", "k3:d"])
    rows = batch(spark, kafka, subscribe=topic, startingOffsets=f'{{"{topic}":{{"0":1}}}}',
                 endingOffsets=f'{{"{topic}":{{"0":3}}}}').collect()
    assert kv(rows) == [("k1", "b", 1), ("k2", "c", 2)]
    # -2 is earliest and -1 latest in the JSON.
    rows = batch(spark, kafka, assign=f'{{"{topic}":[0]}}', startingOffsets=f'{{"{topic}":{{"0":-2}}}}',
                 endingOffsets=f'{{"{topic}":{{"0":-1}}}}').collect()
    assert kv(rows) == [("k0", "a", 0), ("k1", "b", 1), ("k2", "c", 2), ("k3", "d", 3)]


def test_batch_read_earliest_latest(spark, kafka):
    topic = topic_name("bel")
    produce(kafka, topic, ["a:1", "b:2", "c:3"])
    want = [("a", "1", 0), ("b", "2", 1), ("c", "3", 2)]
    assert kv(batch(spark, kafka, subscribe=topic).collect()) == want
    assert kv(batch(spark, kafka, subscribe=topic, startingOffsets="earliest", endingOffsets="latest").collect()) == want
    # A batch read is fixed at its ending offsets: later records are not in it.
    df = batch(spark, kafka, subscribe=topic)
    assert df.count() == 3
    assert df.filter("v = '2'").select("k").collect()[0].k == "b"


def test_batch_option_errors(spark, kafka):
    from pyspark.errors import IllegalArgumentException

    topic = topic_name("berr")
    cases = [
        ({"startingOffsets": "latest"}, "starting offset can't be latest for batch queries on Kafka"),
        ({"endingOffsets": "earliest"}, "ending offset can't be earliest for batch queries on Kafka"),
        ({"startingOffsets": f'{{"{topic}":{{"0":-1}}}}'},
         f"startingOffsets for {topic}-0 can't be latest for batch queries on Kafka"),
        ({"endingOffsets": f'{{"{topic}":{{"0":-2}}}}'},
         f"ending offset for {topic}-0 can't be earliest for batch queries on Kafka"),
        ({"startingOffsets": f'{{"{topic}":{{"0":5}}}}', "endingOffsets": f'{{"{topic}":{{"0":2}}}}'},
         f"The specified start offset 5 is greater than the end offset 2 for topic {topic} partition 0"),
        ({"startingTimestamp": "yesterday"}, "Expected a single long value, got yesterday"),
    ]
    for options, message in cases:
        with pytest.raises(IllegalArgumentException) as e:
            batch(spark, kafka, subscribe=topic, **options).collect()
        assert message in str(e.value), (options, str(e.value))
    with pytest.raises(IllegalArgumentException, match="ending offset not valid in streaming queries"):
        (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", topic)
         .option("endingOffsets", "latest").load().writeStream.format("memory").queryName("kafka_src_err").start())


def test_starting_timestamp(spark, kafka):
    topic = topic_name("ts")
    produce(kafka, topic, ["old1:a", "old2:b"])
    time.sleep(1.0)
    cut = int(time.time() * 1000)
    time.sleep(1.0)
    produce(kafka, topic, ["new1:c", "new2:d"])
    rows = batch(spark, kafka, subscribe=topic, startingTimestamp=str(cut)).collect()
    assert kv(rows) == [("new1", "c", 2), ("new2", "d", 3)]
    rows = batch(spark, kafka, subscribe=topic, endingTimestamp=str(cut)).collect()
    assert kv(rows) == [("old1", "a", 0), ("old2", "b", 1)]
    rows = batch(spark, kafka, subscribe=topic, startingOffsetsByTimestamp=f'{{"{topic}":{{"0":{cut}}}}}').collect()
    assert kv(rows) == [("new1", "c", 2), ("new2", "d", 3)]
    # A stream starting at the timestamp reads the later records only.
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", topic)
         .option("startingTimestamp", str(cut)).load()
         .selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "`offset`")
         .writeStream.format("memory").queryName("kafka_src_ts").start())
    try:
        rows = wait_rows(spark, "kafka_src_ts", 2)
        q.processAllAvailable()
    finally:
        q.stop()
    rows = spark.sql("SELECT * FROM kafka_src_ts ORDER BY `offset`").collect()
    assert [(r.k, r.v, r.offset) for r in rows] == [("new1", "c", 2), ("new2", "d", 3)]
    # No record at or after a future timestamp: Spark's default strategy fails, "latest" reads nothing.
    future = str(int(time.time() * 1000) + 3_600_000)
    with pytest.raises(Exception, match=f"No offset matched from request of topic-partition {topic}-0"):
        batch(spark, kafka, subscribe=topic, startingTimestamp=future).collect()
    assert batch(spark, kafka, subscribe=topic, startingTimestamp=future,
                 startingOffsetsByTimestampStrategy="latest").count() == 0


def test_subscribe_pattern_picks_up_a_topic_created_later(spark, kafka):
    prefix = topic_name("pat")
    produce(kafka, f"{prefix}-a", ["a1:one", "a2:two"])
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka)
         .option("subscribePattern", f"{prefix}-.*").option("startingOffsets", "earliest").load()
         .selectExpr("topic", "CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "`offset`")
         .writeStream.format("memory").queryName("kafka_src_pattern").start())
    try:
        assert len(wait_rows(spark, "kafka_src_pattern", 2)) == 2
        produce(kafka, f"{prefix}-b", ["b1:three", "b2:four", "b3:five"])
        produce(kafka, f"other-{prefix}", ["x:not matched"])
        rows = wait_rows(spark, "kafka_src_pattern", 5)
        q.processAllAvailable()
    finally:
        q.stop()
    rows = spark.sql("SELECT * FROM kafka_src_pattern ORDER BY topic, `offset`").collect()
    assert [(r.topic, r.k, r.v, r.offset) for r in rows] == [
        (f"{prefix}-a", "a1", "one", 0), (f"{prefix}-a", "a2", "two", 1),
        (f"{prefix}-b", "b1", "three", 0), (f"{prefix}-b", "b2", "four", 1), (f"{prefix}-b", "b3", "five", 2)]


def test_min_offsets_per_trigger(spark, kafka):
    topic = topic_name("minoff")
    produce(kafka, topic, ["k0:first"])
    q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", topic)
         .option("startingOffsets", "earliest").option("minOffsetsPerTrigger", "3").option("maxTriggerDelay", "1h")
         .load().selectExpr("CAST(value AS STRING) AS v", "`offset`")
         .writeStream.format("memory").queryName("kafka_src_minoff").start())
    try:
        # The first trigger always runs (as in Spark): it reads the one record there is.
        assert len(wait_rows(spark, "kafka_src_minoff", 1)) == 1
        produce(kafka, topic, ["k1:second", "k2:third"])
        time.sleep(3)
        # Two offsets are fewer than minOffsetsPerTrigger and maxTriggerDelay is far: no epoch.
        assert len(spark.sql("SELECT * FROM kafka_src_minoff").collect()) == 1
        produce(kafka, topic, ["k3:fourth"])
        assert len(wait_rows(spark, "kafka_src_minoff", 4)) == 4
        epochs = [p.numInputRows for p in q.recentProgress if p.numInputRows > 0]
    finally:
        q.stop()
    assert epochs == [1, 3]
    rows = spark.sql("SELECT * FROM kafka_src_minoff ORDER BY `offset`").collect()
    assert [r.v for r in rows] == ["first", "second", "third", "fourth"]


def capped_to_memory(spark, kafka, name):
    """A stream of 10 records (v0..v9) in a new topic, read 3 per epoch (maxOffsetsPerTrigger),
    into the memory table name: its writer."""
    topic = topic_name(name)
    produce(kafka, topic, [f"k{i}:v{i}" for i in range(10)])
    return (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", topic)
            .option("startingOffsets", "earliest").option("maxOffsetsPerTrigger", "3")
            .load().selectExpr("CAST(value AS STRING) AS v", "`offset`")
            .writeStream.format("memory").queryName(name))


def test_process_all_available_under_max_offsets_per_trigger(spark, kafka):
    # Spark's processAllAvailable waits until all the data available at the call is processed,
    # however many capped epochs that takes.
    q = capped_to_memory(spark, kafka, "kafka_src_maxoff").start()
    try:
        q.processAllAvailable()
        rows = spark.sql("SELECT * FROM kafka_src_maxoff ORDER BY `offset`").collect()
        epochs = [p.numInputRows for p in q.recentProgress if p.numInputRows > 0]
    finally:
        q.stop()
    assert [r.v for r in rows] == [f"v{i}" for i in range(10)]
    assert max(epochs) <= 3 and sum(epochs) == 10


def offsets(o):
    """A progress offset as JSON (the client may hand it over as text)."""
    return json.loads(o) if isinstance(o, str) else o


def test_available_now_under_max_offsets_per_trigger(spark, kafka):
    # availableNow reads all the data available at start in epochs of at most
    # maxOffsetsPerTrigger (3, 3, 3, 1), then stops; every epoch reports the offsets at start as
    # the latest.
    q = capped_to_memory(spark, kafka, "kafka_src_maxoff_now").trigger(availableNow=True).start()
    assert q.awaitTermination(60)
    assert q.exception() is None
    rows = spark.sql("SELECT * FROM kafka_src_maxoff_now ORDER BY `offset`").collect()
    assert [r.v for r in rows] == [f"v{i}" for i in range(10)]
    progress = q.recentProgress
    assert [p.numInputRows for p in progress] == [3, 3, 3, 1]
    assert [p.batchId for p in progress] == [0, 1, 2, 3]
    topic = list(offsets(progress[0].sources[0].endOffset))[0]
    assert [offsets(p.sources[0].endOffset) for p in progress] == [{topic: {"0": n}} for n in (3, 6, 9, 10)]
    assert all(offsets(p.sources[0].latestOffset) == {topic: {"0": 10}} for p in progress)


def test_available_now_to_a_file_sink_in_read_limited_epochs(spark, kafka, tmp_path):
    # N records, maxOffsetsPerTrigger N/4: four epochs into a parquet sink with a checkpoint,
    # exactly the records; records produced after the query ended stay for the next run, which
    # reads them (and only them) from the checkpoint, again within the limit.
    n = 20
    topic = topic_name("avnow-file")
    produce(kafka, topic, [f"k{i}:v{i}" for i in range(n)])
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")

    def run():
        q = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", kafka).option("subscribe", topic)
             .option("startingOffsets", "earliest").option("maxOffsetsPerTrigger", str(n // 4)).load()
             .selectExpr("CAST(value AS STRING) AS v", "`offset`")
             .writeStream.format("parquet").option("checkpointLocation", cp).trigger(availableNow=True).start(out))
        assert q.awaitTermination(120)
        assert q.exception() is None
        return q

    q = run()
    assert [p.numInputRows for p in q.recentProgress] == [5, 5, 5, 5]
    rows = spark.read.parquet(out).orderBy("offset").collect()
    assert [(r.v, r.offset) for r in rows] == [(f"v{i}", i) for i in range(n)]
    produce(kafka, topic, [f"k{i}:v{i}" for i in range(n, n + 7)])
    q = run()
    assert [p.numInputRows for p in q.recentProgress] == [5, 2]
    assert [p.batchId for p in q.recentProgress] == [4, 5]
    rows = spark.read.parquet(out).orderBy("offset").collect()
    assert [(r.v, r.offset) for r in rows] == [(f"v{i}", i) for i in range(n + 7)]


def test_batch_read_with_min_partitions_above_the_topic_partitions(spark, kafka):
    # minPartitions splits the one topic-partition's range into several reads; the rows are
    # exactly the topic's records, once each.
    topic = topic_name("minparts")
    produce(kafka, topic, [f"k{i}:v{i}" for i in range(50)])
    for parts in ("3", "8", "64"):
        rows = batch(spark, kafka, subscribe=topic, minPartitions=parts).collect()
        assert kv(rows) == [(f"k{i}", f"v{i}", i) for i in range(50)], parts
    rows = batch(spark, kafka, subscribe=topic, minPartitions="5", startingOffsets=f'{{"{topic}":{{"0":7}}}}',
                 endingOffsets=f'{{"{topic}":{{"0":31}}}}').collect()
    assert kv(rows) == [(f"k{i}", f"v{i}", i) for i in range(7, 31)]


def sasl_options(address: str, password: str):
    return {"kafka.bootstrap.servers": address, "kafka.security.protocol": "SASL_PLAINTEXT",
            "kafka.sasl.mechanism": "PLAIN",
            "kafka.sasl.jaas.config": f'{PLAIN_MODULE} required username="{SASL_USER}" password="{password}";'}


def test_sasl_plaintext(spark, broker):
    plain, sasl = broker
    topic = topic_name("sasl")
    produce(plain, topic, ["s1:secret one", "s2:secret two"])

    def read(password, **extra):
        reader = spark.read.format("kafka").option("subscribe", topic)
        for k, v in {**sasl_options(sasl, password), **extra}.items():
            reader = reader.option(k, v)
        return reader.load().selectExpr("CAST(key AS STRING) AS k", "CAST(value AS STRING) AS v", "topic",
                                        "partition", "`offset`")

    assert kv(read(SASL_PASSWORD).collect()) == [("s1", "secret one", 0), ("s2", "secret two", 1)]
    began = time.time()
    with pytest.raises(Exception) as e:
        read("wrong-password", **{"kafka.default.api.timeout.ms": "10000"}).collect()
    assert f"SASL authentication with kafka.bootstrap.servers {sasl} failed" in str(e.value), str(e.value)
    assert "Invalid username or password" in str(e.value), str(e.value)
    assert time.time() - began < 30
    # A stream over SASL reads the same records.
    reader = spark.readStream.format("kafka").option("subscribe", topic).option("startingOffsets", "earliest")
    for k, v in sasl_options(sasl, SASL_PASSWORD).items():
        reader = reader.option(k, v)
    q = (reader.load().selectExpr("CAST(value AS STRING) AS v", "`offset`")
         .writeStream.format("memory").queryName("kafka_src_sasl").start())
    try:
        wait_rows(spark, "kafka_src_sasl", 2)
    finally:
        q.stop()
    rows = spark.sql("SELECT * FROM kafka_src_sasl ORDER BY `offset`").collect()
    assert [r.v for r in rows] == ["secret one", "secret two"]
    # Kerberos (Kafka's default mechanism) is refused clearly.
    with pytest.raises(Exception, match="sasl.mechanism=GSSAPI is not supported"):
        (spark.read.format("kafka").option("kafka.bootstrap.servers", sasl).option("subscribe", topic)
         .option("kafka.security.protocol", "SASL_PLAINTEXT").load().collect())
